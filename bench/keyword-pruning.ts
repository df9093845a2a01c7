// The keyword lane alone, pruned against exhaustive, in memory: SciFact abstracts (title and text, one chunk each)
// repeated in rounds up to CHUNKS chunks, in segments of SEGMENT_CHUNKS, searched with SciFact's train queries as the
// content lane calls the lane (its candidate cap as the limit, matches counted up to it, unordered). Reports p50/p99
// of both scorers and checks on every query that they return the same hits, scores and counts. The service's whole
// search path is bench/search-latency.ts's.
// Usage: node bench/keyword-pruning.ts [chunks=100000] [segmentChunks=100000] [limit=DEFAULT_CANDIDATE_CAP]

import { loadDataset } from './datasets.ts';
import { percentile } from './stats.ts';
import { buildBm25Segment, searchBm25Exhaustively, searchBm25Pruned } from '../src/search/bm25.ts';
import type { Bm25Result, Bm25Segment, SparseDoc } from '../src/search/bm25.ts';
import { DEFAULT_CANDIDATE_CAP } from '../src/search/content-lane.ts';
import { analyzeFields, analyzeQueryTerms } from '../src/text/analyzer.ts';

const chunks = Number(process.argv[2] ?? 100_000);
const segmentChunks = Number(process.argv[3] ?? 100_000);
const scifact = loadDataset('scifact', 'train.tsv');
const abstracts = scifact.documents;
// Each abstract is analyzed once: its repeats are the same chunk under another id.
const analyzed = abstracts.map((doc) => analyzeFields(doc.text, doc.title));

let started = performance.now();
const segments: Bm25Segment[] = [];
for (let first = 0; first < chunks; first += segmentChunks) {
  const docs: SparseDoc[] = [];
  for (let id = first; id < Math.min(chunks, first + segmentChunks); id++) docs.push({ id, text: '', title: '' });
  segments.push(buildBm25Segment(docs, (_text, _title, index) => analyzed[(first + index) % abstracts.length]));
}
console.log(`${chunks} chunks (${abstracts.length} abstracts repeated) in ${segments.length} segments, built in ${((performance.now() - started) / 1000).toFixed(1)} s`);

const queries = [...scifact.queries.values()].map((query) => analyzeQueryTerms(query)).filter((terms) => terms.length > 0);
const limit = Number(process.argv[4] ?? DEFAULT_CANDIDATE_CAP);
const options = { limit, ordered: false, countUpTo: limit };

function same(a: Bm25Result, b: Bm25Result): boolean {
  const order = (hits: Bm25Result['hits']) => [...hits].sort((x, y) => y.score - x.score || x.id - y.id);
  const x = order(a.hits);
  const y = order(b.hits);
  const counted = (matched: number) => Math.min(matched, limit + 1);
  return x.length === y.length && x.every((hit, i) => hit.id === y[i].id && hit.score === y[i].score) && counted(a.matched) === counted(b.matched);
}

// Warm-up (JIT, the segments' norms, and the block bounds of every query term, computed on first use).
started = performance.now();
for (const terms of queries) searchBm25Pruned(segments, terms, options);
console.log(`first pass over ${queries.length} queries (block bounds computed on first use): ${(performance.now() - started).toFixed(0)} ms`);
for (const terms of queries) searchBm25Exhaustively(segments, terms, options);

// Timed in CPU time as well as wall time: the machine is often shared, and CPU time is the less disturbed by it.
const cpuMs = () => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
};
const timings = { pruned: [] as number[], exhaustive: [] as number[] };
const cpu = { pruned: [] as number[], exhaustive: [] as number[] };
let differing = 0;
for (const terms of queries) {
  let t = performance.now();
  let c = cpuMs();
  const pruned = searchBm25Pruned(segments, terms, options);
  cpu.pruned.push(cpuMs() - c);
  timings.pruned.push(performance.now() - t);
  t = performance.now();
  c = cpuMs();
  const exhaustive = searchBm25Exhaustively(segments, terms, options);
  cpu.exhaustive.push(cpuMs() - c);
  timings.exhaustive.push(performance.now() - t);
  if (!same(pruned, exhaustive)) differing++;
}
for (const [label, values] of Object.entries(timings)) {
  const used = cpu[label as keyof typeof cpu];
  console.log(`${label.padEnd(11)} limit ${limit}: p50 ${percentile(values, 50).toFixed(2)} ms  p99 ${percentile(values, 99).toFixed(2)} ms; CPU p50 ${percentile(used, 50).toFixed(2)} ms  p99 ${percentile(used, 99).toFixed(2)} ms  (n=${values.length})`);
}
console.log(`queries whose pruned answer differs from the exhaustive one: ${differing}`);
if (differing > 0) process.exitCode = 1;
