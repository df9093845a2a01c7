// The keyword lane side by side with LanceDB's full-text search (its native BM25 index), in one run, on the same
// chunks and the same queries: SciFact abstracts (title and text, one chunk each) repeated in rounds up to CHUNKS
// chunks, searched with SciFact's train queries, top LIMITS hits. Both are fully indexed before timing (the lane as
// one segment, LanceDB's table with its FTS index built over every row) and warmed by one pass over the queries.
// Reports p50/p99 of each per limit and the ratio of their p50s (lane / LanceDB; the goal is 1 or less).
//
// What each side is timed doing, from the query text to the ids of its best `limit` chunks:
// - the lane: the query analyzed as the service analyzes it, then searchBm25 as the content lane calls it (ordered,
//   matches counted up to the limit) over its in-memory segment;
// - LanceDB: table.search(text, 'fts').limit(limit).select(['id', '_score']).toArray(), through its Node binding, over a
//   local table in a temporary folder; its tokenizer set as close to the lane's analyzer as it offers (English
//   stemming and stop words, lowercase, ASCII folding, no positions: the lane stores none either), title and text
//   as one field (the lane weighs title occurrences into one saturated frequency, BM25F).
// Rankings are not compared: the two analyzers differ, and repeated abstracts tie by the hundred.
//
// LanceDB is this benchmark's own dependency, never the service's: install it here first, without the optional
// embedding packages it names (`npm install --omit=optional` in bench/lancedb, which keeps to its lockfile; `npm ci`
// refuses the lockfile, as some platform builds LanceDB 0.39.0 names were never published).
// Usage: node bench/lancedb/keyword-vs-lancedb.ts [chunks=1000000] [limits=10,1000] [lanceBatch=50000]

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { loadDataset } from '../datasets.ts';
import { percentile } from '../stats.ts';
import { buildBm25Segment, searchBm25 } from '../../src/search/bm25.ts';
import type { SparseDoc } from '../../src/search/bm25.ts';
import { analyzeFields, analyzeQueryTerms } from '../../src/text/analyzer.ts';

const chunks = Number(process.argv[2] ?? 1_000_000);
const limits = (process.argv[3] ?? '10,1000').split(',').map(Number);
const lanceBatch = Number(process.argv[4] ?? 50_000);
const WARM_PASSES = 1;

const scifact = loadDataset('scifact', 'train.tsv');
const abstracts = scifact.documents;
const queries = [...scifact.queries.values()].filter((query) => analyzeQueryTerms(query).length > 0);
const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(1);

// The lane: one segment over every chunk. Each abstract is analyzed once; its repeats are the same chunk under
// another id.
let started = performance.now();
const analyzed = abstracts.map((doc) => analyzeFields(doc.text, doc.title));
const docs: SparseDoc[] = [];
for (let id = 0; id < chunks; id++) docs.push({ id, text: '', title: '' });
const segment = buildBm25Segment(docs, (_text, _title, index) => analyzed[index % abstracts.length]);
docs.length = 0;
console.log(`keyword lane: ${chunks} chunks (${abstracts.length} abstracts repeated) in one segment, built in ${seconds(started)} s`);

// LanceDB: the same chunks as rows, added in batches, then its FTS index.
const folder = mkdtempSync(join(tmpdir(), 'hds-lancedb-'));
try {
  started = performance.now();
  const db = await lancedb.connect(folder);
  const rows = (from: number) => {
    const batch: { id: number; text: string }[] = [];
    for (let id = from; id < Math.min(chunks, from + lanceBatch); id++) {
      const doc = abstracts[id % abstracts.length];
      batch.push({ id, text: `${doc.title}\n${doc.text}` });
    }
    return batch;
  };
  const table = await db.createTable('chunks', rows(0));
  for (let from = lanceBatch; from < chunks; from += lanceBatch) await table.add(rows(from));
  console.log(`LanceDB: ${await table.countRows()} rows written in ${seconds(started)} s`);
  started = performance.now();
  await table.createIndex('text', {
    config: lancedb.Index.fts({ withPosition: false, language: 'English', stem: true, removeStopWords: true, lowercase: true, asciiFolding: true }),
  });
  console.log(`LanceDB: FTS index built in ${seconds(started)} s`);

  const lane = (query: string, limit: number) => searchBm25([segment], analyzeQueryTerms(query), { limit, ordered: true, countUpTo: limit }).hits.length;
  const lance = async (query: string, limit: number) => (await (table.search(query, 'fts') as lancedb.Query).limit(limit).select(['id', '_score']).toArray()).length;

  // CPU time beside wall time: LanceDB searches on threads of its own, so its CPU time can exceed its wall time.
  const cpuMs = () => {
    const used = process.cpuUsage();
    return (used.user + used.system) / 1000;
  };
  for (const limit of limits) {
    for (let pass = 0; pass < WARM_PASSES; pass++) {
      for (const query of queries) {
        lane(query, limit);
        await lance(query, limit);
      }
    }
    const wall = { lane: [] as number[], lancedb: [] as number[] };
    const cpu = { lane: [] as number[], lancedb: [] as number[] };
    let short = { lane: 0, lancedb: 0 };
    for (const query of queries) {
      let t = performance.now();
      let c = cpuMs();
      const laneHits = lane(query, limit);
      cpu.lane.push(cpuMs() - c);
      wall.lane.push(performance.now() - t);
      t = performance.now();
      c = cpuMs();
      const lanceHits = await lance(query, limit);
      cpu.lancedb.push(cpuMs() - c);
      wall.lancedb.push(performance.now() - t);
      short = { lane: short.lane + +(laneHits < limit), lancedb: short.lancedb + +(lanceHits < limit) };
    }
    for (const side of ['lane', 'lancedb'] as const) {
      console.log(
        `${side === 'lane' ? 'keyword lane' : 'LanceDB FTS '} limit ${String(limit).padStart(4)}: p50 ${percentile(wall[side], 50).toFixed(2)} ms  p99 ${percentile(wall[side], 99).toFixed(2)} ms; ` +
          `CPU p50 ${percentile(cpu[side], 50).toFixed(2)} ms  (n=${queries.length}, ${short[side]} with fewer hits than the limit)`,
      );
    }
    console.log(`p50 ratio lane / LanceDB at limit ${limit}: ${(percentile(wall.lane, 50) / percentile(wall.lancedb, 50)).toFixed(2)}`);
  }
} finally {
  rmSync(folder, { recursive: true, force: true });
}
