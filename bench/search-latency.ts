// Content-search latency over CHUNKS chunks in one Client, in-process (an api started in a process of the bench's
// own with an api process's V8 flags and allocator setting, no worker, searched by direct calls): start-up to the
// first search answered, then again after a restart (segments from the segment cache, graphs from the graph cache),
// p50/p95/p99 of the whole search path (default alpha, limit 10, no rerank) and of alpha 0 and 1, the share of
// each stage, the RSS of this process, and the dense lane's recall@10 against an exact float32 scan of the
// stored vectors. The HTTP figures are bench/http-load.ts's.
// Usage: node bench/search-latency.ts [chunks=100000] [recallQueries=200]

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DatabaseSync } from 'node:sqlite';
import { loadDataset } from './datasets.ts';
import { percentile } from './stats.ts';
import { benchEnv, servedSnapshot, startInProcess } from './bench-service.ts';
import { seedScifactChunks } from './seed-store.ts';
import { createHashingEmbedder } from '../src/models/hashing-embedder.ts';
import { loadConfig } from '../src/config.ts';
import { roleEnvironment, roleExecArgv } from '../src/process-settings.ts';
import { searchBm25 } from '../src/search/bm25.ts';
import { searchDense } from '../src/search/dense-lane.ts';
import { DEFAULT_CANDIDATE_CAP } from '../src/search/content-lane.ts';
import { MAX_FILTER_VALUES } from '../src/search/filters.ts';
import { DENSE_RESCORE_CHUNKS, rescoreDenseHead } from '../src/search/dense-rescore.ts';
import type { ChunkVectorReader } from '../src/search/dense-rescore.ts';
import { analyzeQueryTerms } from '../src/text/analyzer.ts';
import { normalizeContentQuery } from '../src/text/query-normalizer.ts';
import { chunkByOrdinal, snapshotVocabulary } from '../src/serving/snapshot.ts';

const MEASURE_FLAG = '--measure';
const measuring = process.argv.indexOf(MEASURE_FLAG);
const CLIENT = 'latency-client';
const KEY = 'latency-key';
const THIS_FILE = fileURLToPath(import.meta.url);

function summary(label: string, values: number[]): string {
  return `${label.padEnd(34)} p50 ${percentile(values, 50).toFixed(2)} ms  p95 ${percentile(values, 95).toFixed(2)} ms  p99 ${percentile(values, 99).toFixed(2)} ms  (n=${values.length})`;
}

const rssMiB = () => Math.round(process.memoryUsage().rss / 1048576);

if (measuring < 0) {
  const targetChunks = Number(process.argv[2] ?? 100_000);
  const recallQueries = Number(process.argv[3] ?? 200);
  const dataDir = mkdtempSync(join(tmpdir(), 'hds-latency-'));
  try {
    // 1. Write generations straight into the durable store, with their lane data, as workers do.
    const started = performance.now();
    const seeded = await seedScifactChunks(dataDir, CLIENT, targetChunks);
    console.log(`wrote ${seeded.chunks} chunks in ${seeded.documents} versions in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    // The search path is timed in a process of its own, started as the supervisor starts an api process (its V8
    // flags, its allocator setting), not in this one, which still holds what seeding allocated.
    const config = loadConfig(benchEnv(dataDir, CLIENT, KEY));
    const child = spawnSync(process.execPath, [...roleExecArgv('api', config), THIS_FILE, MEASURE_FLAG, dataDir, String(recallQueries)], {
      stdio: 'inherit',
      env: { ...process.env, ...roleEnvironment('api', config) },
    });
    if (child.status !== 0) throw new Error(`the measuring process failed (${child.status ?? child.signal})`);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
} else {
  await measure(process.argv[measuring + 1], Number(process.argv[measuring + 2]));
}

async function measure(dataDir: string, recallQueryCount: number): Promise<void> {
  const scifact = loadDataset('scifact', 'train.tsv');
  const queries = [...scifact.queries.values()];
  const embedder = createHashingEmbedder();
  // 2. Start an api in this process; the Client loads on its first search and its graph is built. Then restart
  // it: the Client loads again from its lane data, and the graph is mapped from the graph cache.
  const config = loadConfig(benchEnv(dataDir, CLIENT, KEY));
  let started = performance.now();
  let service = await startInProcess(config, { worker: false });
  const search = (query: string, alpha?: number, filters: Record<string, unknown> = {}) =>
    service.services.search.search(CLIENT, {
      query,
      scope: 'content',
      alpha,
      limit: 10,
      offset: 0,
      filters,
      rerank: false,
      topKRerank: 20,
      includeDeleted: false,
      highlight: false,
    });
  for (const run of ['start', 'restart']) {
    if (run === 'restart') {
      await service.close();
      started = performance.now();
      service = await startInProcess(config, { worker: false });
    }
    const listening = performance.now() - started;
    // A large Client may take longer to load than a read waits (READ_CATCH_UP_TIMEOUT_MS): that read answers
    // 503 and is retried, as a client would.
    let retries = 0;
    for (;;) {
      try {
        await search(queries[0]);
        break;
      } catch (error) {
        if ((error as { code?: string }).code !== 'publication_unavailable') throw error;
        retries++;
      }
    }
    console.log(`${run}: api listening after ${(listening / 1000).toFixed(2)} s; first search answered after ${((performance.now() - started) / 1000).toFixed(2)} s (the Client loads from ${service.services.serving.restoredSegments > 0 ? `the segment cache (${service.services.serving.restoredSegments} segments) and the lane data of the rest` : 'its lane data'}${retries ? `; ${retries} reads answered 503 meanwhile` : ''}); RSS ${rssMiB()} MiB`);
    const graphsFrom = performance.now();
    await service.services.serving.annSettled();
    console.log(`${run}: HNSW graphs ${run === 'start' ? 'built' : 'mapped from the graph cache'} ${((performance.now() - graphsFrom) / 1000).toFixed(1)} s later (exact scans meanwhile); RSS ${rssMiB()} MiB; ${JSON.stringify(service.services.serving.stats())}`);
  }
  try {
    for (const query of queries.slice(0, 100)) await search(query); // warm-up (JIT)

    // 3. In-process latency of the whole search path, then of its stages.
    const whole: Record<string, number[]> = { default: [], 'alpha 0': [], 'alpha 1': [] };
    for (const [label, alpha] of [['default', undefined], ['alpha 0', 0], ['alpha 1', 1]] as const) {
      for (const query of queries) {
        const t = performance.now();
        await search(query, alpha);
        whole[label].push(performance.now() - t);
      }
    }
    const snapshot = await servedSnapshot(service, CLIENT);
    // Filtered at the default alpha: to the most document ids a filter takes, spread over the Client (about 1% of
    // the versions, scanned exactly). A filtered search also finds the best keyword score and the dense rows to
    // rescore as the unfiltered search would (search rule 7: filters never affect rank).
    const versions = [...snapshot.versions.values()];
    const spread = Array.from({ length: Math.min(MAX_FILTER_VALUES, versions.length) }, (_, i) => versions[Math.floor((i * versions.length) / Math.min(MAX_FILTER_VALUES, versions.length))].documentId);
    const filteredLabel = `default, ${spread.length} document ids`;
    whole[filteredLabel] = [];
    for (const query of queries.slice(0, 100)) await search(query, undefined, { document_id: spread }); // warm-up (JIT)
    for (const query of queries) {
      const t = performance.now();
      await search(query, undefined, { document_id: spread });
      whole[filteredLabel].push(performance.now() - t);
    }
    const vocabulary = snapshotVocabulary(snapshot);
    for (const segment of snapshot.segments) {
      // The seeded corpus repeats SciFact's abstracts: identical chunks share one graph node.
      if (segment.ann.graph) console.log(`graph of a segment of ${segment.rows} rows: ${segment.ann.graph.nodes} nodes (distinct rows)`);
    }
    const parts = { normalize: [] as number[], embed: [] as number[], sparse: [] as number[], dense: [] as number[] };
    for (const query of queries) {
      let t = performance.now();
      const normalized = normalizeContentQuery(query, vocabulary).text;
      parts.normalize.push(performance.now() - t);
      t = performance.now();
      const [vector] = await embedder.embed([normalized]);
      parts.embed.push(performance.now() - t);
      t = performance.now();
      // As the content lane calls it (content-lane.ts): its cap, unordered, matches counted up to the cap.
      searchBm25(snapshot.segments.map((segment) => segment.bm25), analyzeQueryTerms(normalized), { limit: DEFAULT_CANDIDATE_CAP, liveById: snapshot.live, ordered: false, countUpTo: DEFAULT_CANDIDATE_CAP });
      parts.sparse.push(performance.now() - t);
      t = performance.now();
      searchDense(snapshot.segments, vector, snapshot.live, { depth: 10 });
      parts.dense.push(performance.now() - t);
    }
    console.log(`\nin-process, ${snapshot.liveChunkCount} live chunks in ${snapshot.segments.length} segments:`);
    for (const [label, values] of Object.entries(whole)) console.log(summary(`search (${label}, limit 10)`, values));
    const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
    const wholeMean = mean(whole.default);
    // The searches above met every query's words already: their rewrites are remembered (query-normalizer.ts), and
    // the default searches, the first of each query, paid for the fuzzy look-ups.
    const stageLabels: Record<string, string> = { normalize: 'normalize (words met before)' };
    for (const [name, values] of Object.entries(parts)) console.log(`${summary(`  ${stageLabels[name] ?? name}`, values)}  ${((100 * mean(values)) / wholeMean).toFixed(0)}% of the default search`);
    // A lone search walks the dense lane's graph on the graph thread while its sparse lane runs, so the stages
    // measured one by one add up to more than the whole: the rest is the whole less the longer of the two lanes.
    const lanes = Math.max(mean(parts.sparse), mean(parts.dense));
    console.log(`  the rest (read guard, fusion, grouping, evidence text reads, rendering): ${((100 * (wholeMean - mean(parts.normalize) - mean(parts.embed) - lanes)) / wholeMean).toFixed(0)}% (the dense lane's graph walk runs beside the sparse lane)`);
    console.log(`RSS of this process (api, no worker): ${rssMiB()} MiB`);

    // 4. Dense recall@10 against an exact float32 scan of the stored vectors (ties count as found).
    const db = new DatabaseSync(join(dataDir, 'clients', readdirSync(join(dataDir, 'clients')).find((name) => name.endsWith('.db'))!), { readOnly: true });
    const recallQueries = queries.slice(0, recallQueryCount);
    const vectors = await embedder.embed(recallQueries.map((query) => normalizeContentQuery(query, vocabulary).text));
    const exactTop = vectors.map(() => [] as { key: string; score: number }[]);
    const rows = db.prepare("SELECT c.generation AS generation, c.chunk_index AS chunk_index, c.vector AS vector FROM chunks c JOIN generations g ON g.generation = c.generation WHERE g.state = 'active'").iterate() as Iterable<{ generation: number; chunk_index: number; vector: Uint8Array }>;
    for (const row of rows) {
      const stored = new Float32Array(row.vector.slice().buffer);
      vectors.forEach((query, q) => {
        let score = 0;
        for (let d = 0; d < query.length; d++) score += stored[d] * query[d];
        const top = exactTop[q];
        if (top.length < 10 || score > top[top.length - 1].score) {
          top.push({ key: `${row.generation}:${row.chunk_index}`, score });
          top.sort((a, b) => b.score - a.score);
          if (top.length > 10) top.pop();
        }
      });
    }
    const vectorOf = db.prepare('SELECT vector FROM chunks WHERE generation = ? AND chunk_index = ?');
    const recallOf = async (lane: (query: Float32Array) => Promise<{ ordinal: number }[]> | { ordinal: number }[]) => {
    let found = 0;
    let wanted = 0;
    for (const [q, query] of vectors.entries()) {
      const hits = (await lane(query)).slice(0, 10);
      const exact = exactTop[q];
      // A returned chunk counts when its exact float32 score reaches the exact tenth: the seeded corpus repeats
      // abstracts, so equal vectors tie and any of them is a right answer.
      const cutoff = exact[exact.length - 1].score - 1e-6;
      wanted += exact.length;
      for (const hit of hits) {
        const chunk = chunkByOrdinal(snapshot, hit.ordinal)!;
        const stored = new Float32Array((vectorOf.get(chunk.version.generation, chunk.chunkIndex) as { vector: Uint8Array }).vector.slice().buffer);
        let score = 0;
        for (let d = 0; d < query.length; d++) score += stored[d] * query[d];
        if (score >= cutoff) found++;
      }
    }
    return found / wanted;
    };
    // What a search ranks by: the graphs' proposals, their best rows rescored with the stored float32 vectors.
    const readVectors: ChunkVectorReader = async (keys) => keys.map((key) => {
      const row = vectorOf.get(key.generation, key.chunkIndex) as { vector: Uint8Array } | undefined;
      return row ? new Float32Array(row.vector.slice().buffer) : null;
    });
    const rescored = await recallOf(async (query) => {
      const { hits } = searchDense(snapshot.segments, query, snapshot.live, { depth: 10, floor: -1 });
      await rescoreDenseHead(snapshot, hits, query, 10, DENSE_RESCORE_CHUNKS, readVectors);
      return hits.sort((a, b) => b.score - a.score);
    });
    const approximate = await recallOf((query) => searchDense(snapshot.segments, query, snapshot.live, { depth: 10, floor: -1 }).hits);
    // The same lane without graphs: what the int8 codes alone give up against float32.
    const graphs = snapshot.segments.map((segment) => segment.ann.graph);
    for (const segment of snapshot.segments) segment.ann.graph = null;
    const exhaustive = await recallOf((query) => searchDense(snapshot.segments, query, snapshot.live, { depth: 10, floor: -1 }).hits);
    snapshot.segments.forEach((segment, index) => (segment.ann.graph = graphs[index]));
    db.close();
    console.log(`dense recall@10 against an exact float32 scan (${recallQueries.length} queries): ${rescored.toFixed(3)} as searches rank (HNSW graphs, the best ${DENSE_RESCORE_CHUNKS} chunks, copies read once, rescored in float32); by the int8 codes alone ${approximate.toFixed(3)} with HNSW graphs, ${exhaustive.toFixed(3)} scanning them exhaustively`);
  } finally {
    await service.close();
  }
}
