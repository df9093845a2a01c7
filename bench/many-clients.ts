// Many Clients on one deployment: CLIENTS Clients of CHUNKS chunks each, searched over HTTP in a skewed
// pattern (most searches on a few Clients) against the supervisor with its default topology and a memory
// budget smaller than the whole corpus. Reports RSS of every process, loads and evictions per api process,
// p50/p99 of first searches (a Client's first search in the run) and of later ones, and checks every answer:
// each result belongs to the Client that asked (document ids carry the Client's name).
// Usage: node bench/many-clients.ts [--clients 200] [--chunks 2000] [--searches 4000] [--budget 384] [--hot 10]
//   [--data-dir DIR]: seed DIR once and keep it, so later runs skip seeding (the same Clients and chunks).

import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { formatMemory, serviceMemory, spawnSupervisor } from './bench-service.ts';
import { seedScifactChunks } from './seed-store.ts';
import { loadDataset } from './datasets.ts';
import { percentile } from './stats.ts';

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '200' },
    chunks: { type: 'string', default: '2000' },
    searches: { type: 'string', default: '4000' },
    budget: { type: 'string', default: '384' },
    hot: { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '8' },
    'data-dir': { type: 'string' },
  },
  strict: true,
});
const CLIENTS = Number(values.clients);
const CHUNKS = Number(values.chunks);
const SEARCHES = Number(values.searches);
const BUDGET_MB = Number(values.budget);
const HOT = Math.min(Number(values.hot), CLIENTS);
const CONCURRENCY = Number(values.concurrency);
/** Share of searches that go to the HOT Clients; the rest are spread over all of them. */
const HOT_SHARE = 0.8;
const OPERATOR_KEY = 'many-operator';
/** How often the api processes' resident sizes are read during the searches. */
const RSS_SAMPLE_MS = 250;

const clientIds = Array.from({ length: CLIENTS }, (_, i) => `tenant-${String(i).padStart(3, '0')}`);
const keyOf = (clientId: string) => `key-${clientId}`;
const queries = [...loadDataset('scifact', 'train.tsv').queries.values()];

/** A deterministic pseudo-random sequence, so runs are comparable. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const keptDir = values['data-dir'];
const dataDir = keptDir ?? mkdtempSync(join(tmpdir(), 'hds-many-clients-'));
/** Marks a kept DATA_DIR as seeded with this run's Clients and chunks. */
const seededMark = join(dataDir, `seeded-${CLIENTS}x${CHUNKS}`);
const removeDataDir = () => {
  if (!keptDir) rmSync(dataDir, { recursive: true, force: true });
};
try {
  let started = performance.now();
  if (existsSync(seededMark)) {
    console.log(`reusing ${dataDir}, seeded with ${CLIENTS} Clients x ${CHUNKS} chunks`);
  } else {
    if (keptDir && existsSync(keptDir) && readdirSync(keptDir).length > 0) throw new Error(`--data-dir ${keptDir} holds something else than this benchmark's seeded Clients`);
    if (keptDir) mkdirSync(keptDir, { recursive: true });
    for (const clientId of clientIds) await seedScifactChunks(dataDir, clientId, CHUNKS, `${clientId}-doc-`);
    mkdirSync(seededMark);
    console.log(`seeded ${CLIENTS} Clients x ${CHUNKS} chunks in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }

  const supervisor = await spawnSupervisor(
    {
      HOST: '127.0.0.1',
      PORT: '0',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      API_KEY_CLIENTS: JSON.stringify(Object.fromEntries(clientIds.map((clientId) => [keyOf(clientId), clientId]))),
      OPERATOR_API_KEYS: JSON.stringify([OPERATOR_KEY]),
      RATE_LIMIT_PER_MINUTE: '1000000',
      SEARCH_RATE_LIMIT_PER_MINUTE: '1000000',
      SERVING_MEMORY_BUDGET_MB: String(BUDGET_MB),
    },
    { onAbort: removeDataDir },
  );
  try {
    console.log(`service ready (${supervisor.apiProcesses} api, ${supervisor.workerProcesses} worker), SERVING_MEMORY_BUDGET_MB=${BUDGET_MB}; RSS ${formatMemory(serviceMemory(supervisor.pid))}`);
    const next = random(42);
    const plan = Array.from({ length: SEARCHES }, () => (next() < HOT_SHARE ? clientIds[Math.floor(next() * HOT)] : clientIds[Math.floor(next() * CLIENTS)]));
    const seen = new Set<string>();
    const first: number[] = [];
    const later: number[] = [];
    let retried = 0;
    let wrong = 0;
    let cursor = 0;
    started = performance.now();
    // The api processes' resident sizes, sampled through the run (not only at its end): peak and median.
    const samples = new Map<number, number[]>();
    const sampler = setInterval(() => {
      for (const member of serviceMemory(supervisor.pid)) if (member.role === 'api') samples.set(member.pid, [...(samples.get(member.pid) ?? []), member.rssMiB]);
    }, RSS_SAMPLE_MS);
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (cursor < plan.length) {
          const index = cursor++;
          const clientId = plan[index];
          const isFirst = !seen.has(clientId);
          seen.add(clientId);
          const t = performance.now();
          let response: Response;
          for (;;) {
            response = await fetch(`${supervisor.url}/search`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'x-api-key': keyOf(clientId) },
              body: JSON.stringify({ query: queries[index % queries.length], limit: 10 }),
            });
            if (response.status !== 503) break;
            // A Client still loading answers 503 with Retry-After: retrying is what a caller does.
            retried++;
            await response.arrayBuffer();
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
          const body = (await response.json()) as { results?: { document_version: { document_id: string } }[] };
          if (response.status !== 200) throw new Error(`search for ${clientId} answered ${response.status}: ${JSON.stringify(body).slice(0, 300)}`);
          if (body.results!.some((row) => !row.document_version.document_id.startsWith(`${clientId}-doc-`))) wrong++;
          (isFirst ? first : later).push(performance.now() - t);
        }
      }),
    );
    clearInterval(sampler);
    const seconds = (performance.now() - started) / 1000;
    console.log(`${SEARCHES} searches (${Math.round(HOT_SHARE * 100)}% on ${HOT} hot Clients, ${seen.size} Clients touched) in ${seconds.toFixed(1)} s, ${CONCURRENCY} concurrent: ${(SEARCHES / seconds).toFixed(0)} searches/s`);
    console.log(`first search of a Client: p50 ${percentile(first, 50).toFixed(1)} ms, p99 ${percentile(first, 99).toFixed(1)} ms (n=${first.length}); later: p50 ${percentile(later, 50).toFixed(1)} ms, p99 ${percentile(later, 99).toFixed(1)} ms (n=${later.length})`);
    console.log(`answers with a result of another Client: ${wrong}; 503 retries while loading: ${retried}`);
    const perProcess = new Map<number, unknown>();
    for (let probe = 0; probe < 40 && perProcess.size < supervisor.apiProcesses; probe++) {
      const response = await fetch(`${supervisor.url}/admin/authority`, { headers: { 'x-api-key': OPERATOR_KEY, connection: 'close' } });
      const body = (await response.json()) as { process_id: number; serving: { clients: number; loads: number; evictions: number; estimatedBytes: number; budgetBytes: number; forcedCollections: number }; memory: Record<string, number> };
      const mib = (bytes: number) => Math.round(bytes / 1048576);
      perProcess.set(body.process_id, {
        clients: body.serving.clients,
        loads: body.serving.loads,
        evictions: body.serving.evictions,
        forcedCollections: body.serving.forcedCollections,
        estimatedMiB: mib(body.serving.estimatedBytes),
        snapshotBudgetMiB: mib(body.serving.budgetBytes),
        memoryMiB: Object.fromEntries(Object.entries(body.memory).map(([name, bytes]) => [name, mib(bytes)])),
      });
    }
    for (const [pid, stats] of perProcess) console.log(`api process ${pid}: ${JSON.stringify(stats)}`);
    for (const [pid, rss] of samples) {
      const over = rss.filter((value) => value > BUDGET_MB).length;
      console.log(`api process ${pid} RSS during the searches: median ${percentile(rss, 50)} MiB, p95 ${percentile(rss, 95)} MiB, peak ${Math.max(...rss)} MiB; over the budget in ${over} of ${rss.length} samples`);
    }
    console.log(`RSS: ${formatMemory(serviceMemory(supervisor.pid))}`);
    if (wrong > 0) process.exitCode = 1;
  } finally {
    await supervisor.stop();
  }
} finally {
  removeDataDir();
}
