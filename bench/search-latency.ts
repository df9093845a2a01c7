// Content-search latency over 100,000 chunks in one Client: p50/p95 in-process and over HTTP with
// concurrent clients (default alpha, limit 10, no rerank), plus where the time goes per lane.
// In-process figures come from an api (startApi) started in this process; the HTTP figures from the
// service as deployed, the supervisor (`node src/main.ts`, API_PROCESSES from the environment or its
// default) spawned as a child process on the same DATA_DIR after the in-process api is closed.
// Usage: node bench/search-latency.ts [chunks=100000] [httpClients=8] [httpRequests=2000]

import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadDataset } from './datasets.ts';
import { benchEnv, servedSnapshot, spawnSupervisor, startInProcess } from './bench-service.ts';
import { seedScifactChunks } from './seed-store.ts';
import { createHashingEmbedder } from '../src/models/hashing-embedder.ts';
import { loadConfig } from '../src/config.ts';
import { searchBm25 } from '../src/search/bm25.ts';
import { searchDense } from '../src/search/dense-lane.ts';
import { analyzeQueryTerms } from '../src/text/analyzer.ts';
import { normalizeContentQuery } from '../src/text/query-normalizer.ts';
import { snapshotVocabulary } from '../src/serving/snapshot.ts';

const TARGET_CHUNKS = Number(process.argv[2] ?? 100_000);
const HTTP_CLIENTS = Number(process.argv[3] ?? 8);
const HTTP_REQUESTS = Number(process.argv[4] ?? 2000);
const CLIENT = 'latency-client';
const KEY = 'latency-key';

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function summary(label: string, values: number[]): string {
  return `${label.padEnd(34)} p50 ${percentile(values, 50).toFixed(2)} ms  p95 ${percentile(values, 95).toFixed(2)} ms  (n=${values.length})`;
}

const scifact = loadDataset('scifact', 'train.tsv');
const queries = [...scifact.queries.values()];
const dataDir = mkdtempSync(join(tmpdir(), 'hds-latency-'));
const embedder = createHashingEmbedder();

// 1. Write generations straight into the durable store (the start-up rebuild then loads them).
let started = performance.now();
const seeded = await seedScifactChunks(dataDir, CLIENT, TARGET_CHUNKS);
console.log(`wrote ${seeded.chunks} chunks in ${seeded.documents} versions in ${((performance.now() - started) / 1000).toFixed(1)} s`);

// 2. Start an api in this process: recovery rebuilds the serving snapshot from SQLite. No worker: there are
// no jobs, and an idle one would only poll the job queue in the middle of the measurements.
started = performance.now();
const service = await startInProcess(loadConfig(benchEnv(dataDir, CLIENT, KEY)), { worker: false });
console.log(`service started (snapshot rebuilt) in ${((performance.now() - started) / 1000).toFixed(1)} s; RSS ${Math.round(process.memoryUsage().rss / 1048576)} MiB`);

try {
  const search = (query: string) =>
    service.services.search.search(CLIENT, {
      query,
      scope: 'content',
      alpha: undefined,
      limit: 10,
      offset: 0,
      filters: {},
      rerank: false,
      topKRerank: 20,
      includeDeleted: false,
      highlight: false,
    });
  for (const query of queries.slice(0, 50)) await search(query); // warm-up (JIT, vocabulary)

  // 3. In-process latency of the whole search path, then of its parts.
  const whole: number[] = [];
  for (const query of queries) {
    const t = performance.now();
    await search(query);
    whole.push(performance.now() - t);
  }
  const snapshot = await servedSnapshot(service, CLIENT);
  const vocabulary = snapshotVocabulary(snapshot);
  const parts = { normalize: [] as number[], embed: [] as number[], sparse: [] as number[], dense: [] as number[] };
  for (const query of queries) {
    let t = performance.now();
    const normalized = normalizeContentQuery(query, vocabulary).text;
    parts.normalize.push(performance.now() - t);
    t = performance.now();
    const [vector] = await embedder.embed([normalized]);
    parts.embed.push(performance.now() - t);
    t = performance.now();
    searchBm25(snapshot.segments.map((segment) => segment.bm25), analyzeQueryTerms(normalized), { limit: 1000, liveById: snapshot.live });
    parts.sparse.push(performance.now() - t);
    t = performance.now();
    searchDense(snapshot.segments, vector, snapshot.live);
    parts.dense.push(performance.now() - t);
  }
  console.log(`\nin-process, ${snapshot.liveChunkCount} live chunks in ${snapshot.segments.length} segments:`);
  console.log(summary('search (default alpha, limit 10)', whole));
  for (const [name, values] of Object.entries(parts)) console.log(summary(`  ${name}`, values));

  // 4. Over HTTP with concurrent clients, against the supervisor and its api processes in child processes.
  await service.close();
  started = performance.now();
  const supervisor = await spawnSupervisor(benchEnv(dataDir, CLIENT, KEY, { WORKER_PROCESSES: '1' }), {
    onAbort: () => rmSync(dataDir, { recursive: true, force: true }),
  });
  console.log(
    `\nsupervisor ready (${supervisor.apiProcesses} api processes rebuilt their snapshots, ${supervisor.workerProcesses} worker) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  try {
    // Load with HTTP_CLIENTS concurrent clients cycling through the queries; returns each request's latency.
    const load = async (requests: number): Promise<number[]> => {
      const latencies: number[] = [];
      let next = 0;
      await Promise.all(
        Array.from({ length: HTTP_CLIENTS }, async () => {
          while (next < requests) {
            const query = queries[next++ % queries.length];
            const t = performance.now();
            const response = await fetch(`${supervisor.url}/search`, {
              method: 'POST',
              headers: { 'Content-Type': 'application/json', 'X-API-Key': KEY },
              body: JSON.stringify({ query, scope: 'content', limit: 10 }),
            });
            await response.arrayBuffer();
            if (response.status !== 200) throw new Error(`HTTP ${response.status}`);
            latencies.push(performance.now() - t);
          }
        }),
      );
      return latencies;
    };
    // Warm-up, as in-process above: the api processes are fresh (JIT, vocabulary), about 50 queries each.
    const warmup = 50 * supervisor.apiProcesses;
    await load(warmup);
    const httpStarted = performance.now();
    const latencies = await load(HTTP_REQUESTS);
    const seconds = (performance.now() - httpStarted) / 1000;
    console.log(
      `\nover HTTP, ${HTTP_CLIENTS} concurrent clients in this process after ${warmup} warm-up requests; server: supervisor child process with ${supervisor.apiProcesses} api processes (all share this machine's ${availableParallelism()} cores):`,
    );
    console.log(summary('POST /search', latencies));
    console.log(`throughput ${(latencies.length / seconds).toFixed(0)} requests/s`);
  } finally {
    await supervisor.stop();
  }
} finally {
  await service.close();
  rmSync(dataDir, { recursive: true, force: true });
}
