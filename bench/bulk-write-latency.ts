// Search and /health latency while a large lifecycle write and a backfill run, next to the same load without
// writes: the figures test/serial/bulk-write-latency.serial.ts leaves to benchmarks. The service runs as a child
// process (the supervisor of `npm start`, with --api-processes api processes); this process only generates the
// load: --searchers loops of POST /search, each on a fresh connection (so that they spread over the api
// processes) 10 ms apart, and one loop of GET /health 100 ms apart, as in the test.
// 1. Baseline: the load for --baseline-seconds, nothing else running.
// 2. During writes: an operator backfill of the Client and a soft delete of all --versions versions of one
//    document, sent together; the load runs until both are done.
// Usage: node bench/bulk-write-latency.ts [--versions 2000] [--baseline-seconds 15] [--api-processes 2] [--searchers 2]

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { benchEnv, spawnSupervisor } from './bench-service.ts';
import { seedDocumentVersions } from './seed-store.ts';
import { percentile } from './stats.ts';
import { requestJson, type JsonAnswer } from '../test/helpers/http-json.ts';

const { values } = parseArgs({
  options: {
    versions: { type: 'string', default: '2000' },
    'baseline-seconds': { type: 'string', default: '15' },
    'api-processes': { type: 'string', default: '2' },
    searchers: { type: 'string', default: '2' },
  },
  strict: true,
});
const VERSIONS = Number(values.versions);
const BASELINE_SECONDS = Number(values['baseline-seconds']);
const API_PROCESSES = values['api-processes'];
const SEARCHERS = Number(values.searchers);
const CLIENT = 'bulk-client';
const KEY = 'bulk-key';
const OPERATOR_KEY = 'bulk-operator-key';
/** Searches sent before the baseline: the first read of a Client loads its snapshot. */
const WARM_UP_SEARCHES = 50;
const SEARCH_PAUSE_MS = 10;
const HEALTH_PAUSE_MS = 100;
const JOB_POLL_MS = 100;
const TERMINAL = new Set(['completed', 'failed', 'partial_failed', 'superseded']);

/** One request on its own connection (no keep-alive), so the kernel hands it to any api process. */
function fresh(url: string, path: string, options: { method?: string; key?: string; body?: unknown } = {}): Promise<JsonAnswer> {
  return requestJson(`${url}${path}`, { method: options.method, headers: options.key ? { 'X-API-Key': options.key } : {}, body: options.body, agent: false });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Samples {
  ms: number[];
  /** Answers other than 200 (a failed connection counts as status 0). */
  failures: number;
}

/** The test's load until `stop()`: searchers and one /health loop, each recording its latencies. */
function startLoad(url: string): { search: Samples; health: Samples; stop(): Promise<void> } {
  const search: Samples = { ms: [], failures: 0 };
  const health: Samples = { ms: [], failures: 0 };
  let stopping = false;
  const loop = async (samples: Samples, pauseMs: number, send: () => Promise<JsonAnswer>) => {
    while (!stopping) {
      const started = performance.now();
      const status = await send().then((answer) => answer.status, () => 0);
      samples.ms.push(performance.now() - started);
      if (status !== 200) samples.failures++;
      await sleep(pauseMs);
    }
  };
  const loops = [
    ...Array.from({ length: SEARCHERS }, () => loop(search, SEARCH_PAUSE_MS, () => fresh(url, '/search', { key: KEY, body: { query: 'cheque clearing Seremban', limit: 10 } }))),
    loop(health, HEALTH_PAUSE_MS, () => fresh(url, '/health')),
  ];
  return {
    search,
    health,
    async stop() {
      stopping = true;
      await Promise.all(loops);
    },
  };
}

function row(label: string, samples: Samples): string {
  const cell = (value: number) => (Number.isNaN(value) ? '-' : value.toFixed(1)).padStart(8);
  return `${label.padEnd(26)}${String(samples.ms.length).padStart(6)}${cell(percentile(samples.ms, 50))}${cell(percentile(samples.ms, 99))}${cell(percentile(samples.ms, 100))}${String(samples.failures).padStart(8)}`;
}

async function waitForJob(url: string, jobId: string): Promise<any> {
  for (;;) {
    const answer = await fresh(url, `/status/${jobId}`, { key: KEY });
    if (answer.status === 200 && TERMINAL.has(answer.json.status)) return answer.json;
    await sleep(JOB_POLL_MS);
  }
}

const dataDir = mkdtempSync(join(tmpdir(), 'hds-bulk-write-'));
const removeDataDir = () => rmSync(dataDir, { recursive: true, force: true });
try {
  const seedStarted = performance.now();
  await seedDocumentVersions(dataDir, CLIENT, 'bulk', Array.from({ length: VERSIONS }, (_, i) => `Bulk ledger entry ${i}: transfer to savings account ${1000 + i}.`));
  await seedDocumentVersions(dataDir, CLIENT, 'probe', ['Cheque clearing report for the Seremban branch.']);
  console.log(`seeded ${VERSIONS} versions of one document and a probe document in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);
  const service = await spawnSupervisor(benchEnv(dataDir, CLIENT, KEY, { API_PROCESSES, OPERATOR_API_KEYS: JSON.stringify([OPERATOR_KEY]) }), { onAbort: removeDataDir });
  try {
    console.log(`service ready: ${service.apiProcesses} api, ${service.workerProcesses} worker processes; load: ${SEARCHERS} searchers ${SEARCH_PAUSE_MS} ms apart, /health ${HEALTH_PAUSE_MS} ms apart, each request on a fresh connection`);
    const listed = await fresh(service.url, '/documents?limit=1', { key: KEY });
    if (listed.json?.total !== VERSIONS + 1) throw new Error(`expected ${VERSIONS + 1} versions, the service lists ${JSON.stringify(listed.json?.total)}`);
    for (let i = 0; i < WARM_UP_SEARCHES; i++) await fresh(service.url, '/search', { key: KEY, body: { query: 'cheque clearing Seremban', limit: 10 } });

    const baseline = startLoad(service.url);
    await sleep(BASELINE_SECONDS * 1000);
    await baseline.stop();

    const during = startLoad(service.url);
    const writesStarted = performance.now();
    const backfill = await fresh(service.url, '/admin/backfill', { key: OPERATOR_KEY, body: { client_id: CLIENT } });
    if (backfill.status !== 202) throw new Error(`backfill refused: ${backfill.status} ${JSON.stringify(backfill.json)}`);
    const [deleted, backfillJob] = await Promise.all([
      fresh(service.url, '/document/bulk', { method: 'DELETE', key: KEY }).then((answer) => ({ answer, seconds: (performance.now() - writesStarted) / 1000 })),
      waitForJob(service.url, backfill.json.job_id).then((job) => ({ job, seconds: (performance.now() - writesStarted) / 1000 })),
    ]);
    await during.stop();
    if (deleted.answer.status !== 200) throw new Error(`soft delete failed: ${deleted.answer.status} ${JSON.stringify(deleted.answer.json)}`);

    console.log(`\nsoft delete of ${VERSIONS} versions: ${deleted.seconds.toFixed(1)} s (${deleted.answer.json.deleted_chunks} chunks); backfill: ${backfillJob.job.status} after ${backfillJob.seconds.toFixed(1)} s`);
    console.log(`\n${''.padEnd(26)}${'n'.padStart(6)}${'p50 ms'.padStart(8)}${'p99 ms'.padStart(8)}${'max ms'.padStart(8)}${'non-200'.padStart(8)}`);
    console.log(row('search, no writes', baseline.search));
    console.log(row('search, during writes', during.search));
    console.log(row('/health, no writes', baseline.health));
    console.log(row('/health, during writes', during.health));
  } finally {
    await service.stop();
  }
} finally {
  removeDataDir();
}
