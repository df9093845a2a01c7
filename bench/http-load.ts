// HTTP load on POST /search against the real service started as a child process (`node src/main.ts`), once
// per API_PROCESSES value, over one seeded DATA_DIR. The load comes from autocannon in a third process (this
// file started again with --runner), so neither the server nor the process that manages it generates it.
// Reports requests/s, p50/p99 latency, non-2xx and errors per run, the api processes' CPU per request, and the
// speedup of 2 api processes over 1 (goal: >= 1.5x). `--rounds N` loads each service N times after one warm-up
// and reports every round and their median: a shared machine's speed moves a single run by 20% or more, and
// the CPU per request shows whether a slow round was the service or the machine.
//
// The load generator is wrk (Debian package `wrk`, a small C program, so it takes little of the 2 cores from
// the service) when it is installed, else autocannon; `--generator` chooses.
// The store is SQLite (DATA_DIR) unless `--store postgres` runs the service on a throwaway local PostgreSQL
// cluster (bench-store.ts).
// Usage: node bench/http-load.ts [--chunks 100000] [--connections 16] [--duration 20] [--processes 1,2]
//                                [--warmup 200] [--rounds 3] [--alpha A] [--generator wrk|autocannon]
//                                [--store sqlite|postgres]
// (`npm run bench:http-load -- --chunks 5000 --duration 5` for a quick run.)

import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { formatMemory, serviceMemory, spawnSupervisor } from './bench-service.ts';
import type { SupervisorProcess } from './bench-service.ts';
import { loadDataset } from './datasets.ts';
import { openBenchStore, parseBenchStore } from './bench-store.ts';
import { median } from './stats.ts';

const CLIENT = 'load-client';
const KEY = 'load-key';
const OPERATOR_KEY = 'load-operator';
/** The highest value src/config.ts accepts for RATE_LIMIT_PER_MINUTE and SEARCH_RATE_LIMIT_PER_MINUTE. */
const UNLIMITED_RATE = '1000000';
const READY_TIMEOUT_MS = 5 * 60_000;
/** Several api processes share the port: every one must answer before the load starts. */
const CONSECUTIVE_HEALTHY_PROBES = 20;
const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));
const THIS_FILE = fileURLToPath(import.meta.url);

type Generator = 'wrk' | 'autocannon';

interface RunnerConfig {
  generator: Generator;
  alpha: number | undefined;
  url: string;
  key: string;
  connections: number;
  durationSeconds: number;
  warmupRequests: number;
}

interface LoadFigures {
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  latencyMeanMs: number;
  ok2xx: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  durationSeconds: number;
  warmupNon2xx: number;
  warmupErrors: number;
}

/** The SciFact queries that have train judgments, in file order. */
function trainQueries(): string[] {
  const scifact = loadDataset('scifact', 'train.tsv');
  const queries = [...scifact.qrels.keys()].map((id) => scifact.queries.get(id)).filter((text): text is string => typeof text === 'string');
  if (queries.length === 0) throw new Error('no SciFact train queries found');
  return queries;
}

function searchBody(query: string, alpha?: number): string {
  return JSON.stringify({ query, scope: 'content', limit: 10, ...(alpha === undefined ? {} : { alpha }) });
}

function wrkInstalled(): boolean {
  return spawnSync('wrk', ['--version']).error === undefined;
}

// ---------------------------------------------------------------------------------------------------------
// Runner mode: the load generator, in its own process. Prints one JSON line of LoadFigures on stdout.

/** A wrk script cycling through the query bodies; its `done` prints the figures as one JSON line. */
function wrkScript(key: string, bodies: string[]): string {
  const literal = (text: string) => `[==[${text}]==]`;
  return `local bodies = { ${bodies.map(literal).join(',\n')} }
local headers = { ["content-type"] = "application/json", ["x-api-key"] = ${literal(key)} }
local counter = 0
request = function()
  counter = counter + 1
  return wrk.format("POST", "/search", headers, bodies[(counter % #bodies) + 1])
end
done = function(summary, latency, requests)
  io.write(string.format('\\n{"requests":%d,"durationUs":%d,"p50Us":%d,"p99Us":%d,"meanUs":%f,"status":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.mean,
    summary.errors.status, summary.errors.connect, summary.errors.read, summary.errors.write, summary.errors.timeout))
end
`;
}

interface WrkFigures {
  requests: number;
  durationUs: number;
  p50Us: number;
  p99Us: number;
  meanUs: number;
  status: number;
  connect: number;
  read: number;
  write: number;
  timeout: number;
}

function runWrk(config: RunnerConfig, script: string, seconds: number): WrkFigures {
  const result = spawnSync('wrk', ['-t1', `-c${config.connections}`, `-d${seconds}s`, '--timeout', '30s', '-s', script, `${config.url}/search`], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`wrk failed: ${result.stderr || result.error}`);
  const line = result.stdout.split('\n').find((text) => text.startsWith('{"requests"'));
  if (!line) throw new Error(`wrk printed no figures: ${result.stdout.slice(-500)}`);
  return JSON.parse(line) as WrkFigures;
}

/** The figures of a warm-up alone (a runner with durationSeconds 0 only warms the service up). */
function warmupOnly(non2xx: number, errors: number): LoadFigures {
  return { requestsPerSecond: 0, latencyP50Ms: 0, latencyP99Ms: 0, latencyMeanMs: 0, ok2xx: 0, non2xx: 0, errors: 0, timeouts: 0, durationSeconds: 0, warmupNon2xx: non2xx, warmupErrors: errors };
}

/** wrk has no request count for a warm-up, so it warms up for about the time `warmupRequests` take at 100/s. */
function runLoadWithWrk(config: RunnerConfig): LoadFigures {
  const dir = mkdtempSync(join(tmpdir(), 'hds-wrk-'));
  try {
    const script = join(dir, 'search.lua');
    writeFileSync(script, wrkScript(config.key, trainQueries().map((query) => searchBody(query, config.alpha))));
    const warmup = config.warmupRequests > 0 ? runWrk(config, script, Math.max(1, Math.ceil(config.warmupRequests / 100))) : null;
    if (config.durationSeconds === 0) return warmupOnly(warmup?.status ?? 0, warmup ? warmup.connect + warmup.read + warmup.write : 0);
    const run = runWrk(config, script, config.durationSeconds);
    const durationSeconds = run.durationUs / 1e6;
    return {
      requestsPerSecond: run.requests / durationSeconds,
      latencyP50Ms: run.p50Us / 1000,
      latencyP99Ms: run.p99Us / 1000,
      latencyMeanMs: run.meanUs / 1000,
      ok2xx: run.requests - run.status,
      non2xx: run.status,
      errors: run.connect + run.read + run.write,
      timeouts: run.timeout,
      durationSeconds,
      warmupNon2xx: warmup?.status ?? 0,
      warmupErrors: warmup ? warmup.connect + warmup.read + warmup.write : 0,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function runLoad(config: RunnerConfig): Promise<LoadFigures> {
  if (config.generator === 'wrk') return runLoadWithWrk(config);
  const { default: autocannon } = await import('autocannon');
  const queries = trainQueries();
  let next = 0; // shared by all connections: they cycle through the queries together
  const options = {
    url: `${config.url}/search`,
    method: 'POST' as const,
    headers: { 'content-type': 'application/json', 'x-api-key': config.key },
    connections: config.connections,
    timeout: 30,
    requests: [{ setupRequest: (request: object) => ({ ...request, body: searchBody(queries[next++ % queries.length], config.alpha) }) }],
  };
  const warmup = config.warmupRequests > 0 ? await autocannon({ ...options, amount: config.warmupRequests }) : null;
  if (config.durationSeconds === 0) return warmupOnly(warmup?.non2xx ?? 0, warmup?.errors ?? 0);
  const result = await autocannon({ ...options, duration: config.durationSeconds });
  return {
    requestsPerSecond: result.requests.average,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    latencyMeanMs: result.latency.average,
    ok2xx: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    durationSeconds: result.duration,
    warmupNon2xx: warmup?.non2xx ?? 0,
    warmupErrors: warmup?.errors ?? 0,
  };
}

/** The load runner while it runs, so that an interrupted bench can stop it. */
let activeRunner: ChildProcess | null = null;

/** Starts the runner process and returns its figures. */
function spawnRunner(config: RunnerConfig): Promise<LoadFigures> {
  return new Promise((resolve, reject) => {
    const runner = spawn(process.execPath, [THIS_FILE, '--runner', JSON.stringify(config)], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    runner.stdout!.setEncoding('utf8').on('data', (data: string) => (stdout += data));
    activeRunner = runner;
    runner.on('error', reject);
    runner.on('exit', (code, signal) => {
      activeRunner = null;
      const last = stdout.trim().split('\n').pop() ?? '';
      if (code !== 0) return reject(new Error(`load runner exited with ${signal ?? `code ${code}`}: ${last}`));
      try {
        resolve(JSON.parse(last) as LoadFigures);
      } catch {
        reject(new Error(`load runner printed no figures: ${stdout.slice(-500)}`));
      }
    });
  });
}

// ---------------------------------------------------------------------------------------------------------
// The service under test: the supervisor as a child process in its own process group (bench-service.ts).

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Resolves once the supervisor has printed "ready on" (every api process has built its snapshots). */
function startService(dataDir: string, storeEnv: Record<string, string>, port: number, apiProcesses: number, onAbort: () => void): Promise<SupervisorProcess> {
  const env = {
    ...storeEnv,
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: dataDir,
    API_PROCESSES: String(apiProcesses),
    WORKER_PROCESSES: '1',
    LOG_LEVEL: 'silent',
    API_KEY_CLIENTS: JSON.stringify({ [KEY]: CLIENT }),
    OPERATOR_API_KEYS: JSON.stringify([OPERATOR_KEY]),
    RATE_LIMIT_PER_MINUTE: UNLIMITED_RATE,
    SEARCH_RATE_LIMIT_PER_MINUTE: UNLIMITED_RATE,
  };
  return spawnSupervisor(env, { onAbort });
}

/** GET /health on a fresh connection (no keep-alive), so that successive probes may reach different processes. */
function probeHealth(port: number): Promise<number> {
  return new Promise((resolve) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: '/health', method: 'GET', agent: false, timeout: 3000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve(0));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve(0));
    req.end();
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitUntilHealthy(service: SupervisorProcess, port: number): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let consecutive = 0;
  let lastStatus = 0;
  while (consecutive < CONSECUTIVE_HEALTHY_PROBES) {
    if (service.hasExited()) throw new Error(`service exited during start-up:\n${service.outputTail()}`);
    if (Date.now() > deadline) {
      throw new Error(`service not healthy after ${READY_TIMEOUT_MS / 1000} s (last /health status ${lastStatus || 'no answer'}):\n${service.outputTail()}`);
    }
    lastStatus = await probeHealth(port);
    if (lastStatus === 200) {
      consecutive++;
      await sleep(25);
    } else {
      consecutive = 0;
      await sleep(250);
    }
  }
}

/** One authenticated search before the load: fails fast, with the answer, when the setup is wrong. */
async function checkSearch(port: number, query: string): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${port}/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': KEY },
    body: searchBody(query),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`POST /search answered ${response.status}: ${text.slice(0, 500)}`);
  const body = JSON.parse(text) as { results?: unknown[] };
  return Array.isArray(body.results) ? body.results.length : 0;
}

/** POST /search on a fresh connection (so that successive calls may reach different api processes): its status. */
async function searchOnce(port: number, query: string): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${port}/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': KEY, connection: 'close' },
    body: searchBody(query),
  });
  await response.arrayBuffer();
  return response.status;
}

/**
 * Until CONSECUTIVE_HEALTHY_PROBES searches in a row answer 200 on fresh connections: every api process has
 * loaded the Client (a process answers 503 with Retry-After while its first load outlasts the catch-up bound).
 */
async function waitUntilSearchable(port: number, query: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (let consecutive = 0; consecutive < CONSECUTIVE_HEALTHY_PROBES; ) {
    if (Date.now() > deadline) throw new Error('searches did not answer 200 in time');
    if ((await searchOnce(port, query)) === 200) consecutive++;
    else {
      consecutive = 0;
      await sleep(50);
    }
  }
}

/** Until every api process reports no HNSW graph still being built (GET /admin/authority on fresh connections). */
async function waitForGraphs(port: number): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (let consecutive = 0; consecutive < CONSECUTIVE_HEALTHY_PROBES; ) {
    if (Date.now() > deadline) throw new Error('HNSW graphs were not built in time');
    const response = await fetch(`http://127.0.0.1:${port}/admin/authority`, { headers: { 'x-api-key': OPERATOR_KEY, connection: 'close' } });
    const body = (await response.json()) as { serving?: { graphsPending?: number; clients?: number } };
    if (response.status === 200 && body.serving?.graphsPending === 0 && (body.serving.clients ?? 0) > 0) consecutive++;
    else {
      consecutive = 0;
      await sleep(250);
    }
  }
}

// ---------------------------------------------------------------------------------------------------------

interface RunRow {
  apiProcesses: number;
  /** 1-based; 0 for the median of a service's rounds. */
  round: number;
  /** CPU seconds of the service's api processes (and their threads) per answered request, in milliseconds. */
  apiCpuMsPerRequest: number;
  readySeconds: number;
  firstSearchSeconds: number;
  allSearchableSeconds: number;
  figures: LoadFigures;
  memory: string;
}

function positiveInt(name: string, value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new Error(`--${name} must be a positive integer, got "${value}"`);
  return parsed;
}

/** `rounds`: per service; the RSS shown is the one after its last round. */
function printTable(rows: RunRow[], rounds: number): void {
  const header = ['API_PROCESSES', 'round', 'req/s (mean)', 'p50 ms', 'p99 ms', 'mean ms', 'api CPU ms/req', '2xx', 'non-2xx', 'errors', 'timeouts', 'ready s', 'first search s'];
  const lines = rows.map((row) => [
    String(row.apiProcesses),
    row.round === 0 ? 'median' : String(row.round),
    row.figures.requestsPerSecond.toFixed(1),
    row.figures.latencyP50Ms.toFixed(1),
    row.figures.latencyP99Ms.toFixed(1),
    row.figures.latencyMeanMs.toFixed(1),
    row.apiCpuMsPerRequest.toFixed(2),
    String(row.figures.ok2xx),
    String(row.figures.non2xx),
    String(row.figures.errors),
    String(row.figures.timeouts),
    row.readySeconds.toFixed(1),
    row.firstSearchSeconds.toFixed(1),
  ]);
  const widths = header.map((title, i) => Math.max(title.length, ...lines.map((line) => line[i].length)));
  const format = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  console.log(format(header));
  console.log(widths.map((width) => '-'.repeat(width)).join('  '));
  for (const line of lines) console.log(format(line));
  for (const row of rows) if (row.round === rounds) console.log(`API_PROCESSES=${row.apiProcesses}: RSS after the last round ${row.memory}`);
}

/** The median of each figure over a service's rounds, as a row of its own (round 0). */
function medianRow(rounds: RunRow[]): RunRow {
  const of = (pick: (row: RunRow) => number) => median(rounds.map(pick));
  const first = rounds[0];
  return {
    ...first,
    round: 0,
    apiCpuMsPerRequest: of((row) => row.apiCpuMsPerRequest),
    figures: {
      ...first.figures,
      requestsPerSecond: of((row) => row.figures.requestsPerSecond),
      latencyP50Ms: of((row) => row.figures.latencyP50Ms),
      latencyP99Ms: of((row) => row.figures.latencyP99Ms),
      latencyMeanMs: of((row) => row.figures.latencyMeanMs),
      ok2xx: rounds.reduce((sum, row) => sum + row.figures.ok2xx, 0),
      non2xx: rounds.reduce((sum, row) => sum + row.figures.non2xx, 0),
      errors: rounds.reduce((sum, row) => sum + row.figures.errors, 0),
      timeouts: rounds.reduce((sum, row) => sum + row.figures.timeouts, 0),
    },
  };
}

/** CPU seconds of the service's api processes so far. */
function apiCpuSeconds(supervisorPid: number): number {
  return serviceMemory(supervisorPid).filter((entry) => entry.role === 'api').reduce((sum, entry) => sum + entry.cpuSeconds, 0);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      chunks: { type: 'string', default: '100000' },
      store: { type: 'string', default: 'sqlite' },
      connections: { type: 'string', default: '16' },
      duration: { type: 'string', default: '20' },
      processes: { type: 'string', default: '1,2' },
      warmup: { type: 'string', default: '200' },
      rounds: { type: 'string', default: '3' },
      alpha: { type: 'string' },
      generator: { type: 'string' },
    },
    strict: true,
  });
  const chunks = positiveInt('chunks', values.chunks);
  const connections = positiveInt('connections', values.connections);
  const durationSeconds = positiveInt('duration', values.duration);
  const rounds = positiveInt('rounds', values.rounds);
  const warmupRequests = Number(values.warmup);
  if (!Number.isInteger(warmupRequests) || warmupRequests < 0) throw new Error(`--warmup must be a non-negative integer, got "${values.warmup}"`);
  const alpha = values.alpha === undefined ? undefined : Number(values.alpha);
  if (alpha !== undefined && !(alpha >= 0 && alpha <= 1)) throw new Error(`--alpha must be between 0 and 1, got "${values.alpha}"`);
  const generator = (values.generator ?? (wrkInstalled() ? 'wrk' : 'autocannon')) as Generator;
  if (generator !== 'wrk' && generator !== 'autocannon') throw new Error(`--generator must be wrk or autocannon, got "${values.generator}"`);
  const processCounts = values.processes.split(',').map((value) => positiveInt('processes', value.trim()));
  const firstQuery = trainQueries()[0];

  const dataDir = mkdtempSync(join(tmpdir(), 'hds-http-load-'));
  const store = await openBenchStore(parseBenchStore(values.store), dataDir);
  const cleanUp = () => {
    activeRunner?.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    store.close();
  };
  // While a service runs, spawnSupervisor's own handler comes first: it kills the service's process group,
  // runs cleanUp and exits. This one covers the rest (seeding, between runs).
  const abort = (signal: NodeJS.Signals) => {
    console.error(`\n${signal}: stopping`);
    cleanUp();
    process.exit(130);
  };
  process.once('SIGINT', abort);
  process.once('SIGTERM', abort);

  const rows: RunRow[] = [];
  try {
    const seedStarted = performance.now();
    const { seedScifactChunks } = await import('./seed-store.ts');
    const seeded = await seedScifactChunks(dataDir, CLIENT, chunks, 'doc-', store.open);
    console.log(`seeded ${seeded.chunks} chunks in ${seeded.documents} versions in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s (store ${store.store}, ${dataDir})`);

    for (const apiProcesses of processCounts) {
      const port = await freePort();
      console.log(`\nAPI_PROCESSES=${apiProcesses}: starting the service on port ${port}`);
      const started = performance.now();
      const service = await startService(dataDir, store.env, port, apiProcesses, cleanUp);
      try {
        await waitUntilHealthy(service, port);
        const readySeconds = (performance.now() - started) / 1000;
        while ((await searchOnce(port, firstQuery)) !== 200) await sleep(20);
        const firstSearchSeconds = (performance.now() - started) / 1000;
        await waitUntilSearchable(port, firstQuery);
        const allSearchableSeconds = (performance.now() - started) / 1000;
        const results = await checkSearch(port, firstQuery);
        console.log(`  healthy after ${readySeconds.toFixed(1)} s; first search answered after ${firstSearchSeconds.toFixed(1)} s, every api process searchable after ${allSearchableSeconds.toFixed(1)} s (${results} results)`);
        console.log(`  RSS after loading: ${formatMemory(serviceMemory(service.pid))}`);
        const graphsStarted = performance.now();
        await waitForGraphs(port);
        console.log(`  HNSW graphs built ${((performance.now() - graphsStarted) / 1000).toFixed(1)} s later; RSS ${formatMemory(serviceMemory(service.pid))}`);
        console.log(`  load: ${connections} connections for ${durationSeconds} s${rounds > 1 ? `, ${rounds} rounds,` : ''} after ${warmupRequests} warm-up requests`);
        const runner = { generator, alpha, url: `http://127.0.0.1:${port}`, key: KEY, connections, durationSeconds };
        if (warmupRequests > 0) {
          const warmup = await spawnRunner({ ...runner, durationSeconds: 0, warmupRequests });
          if (warmup.warmupNon2xx > 0 || warmup.warmupErrors > 0) console.warn(`  warning: warm-up had ${warmup.warmupNon2xx} non-2xx answers and ${warmup.warmupErrors} errors`);
        }
        const serviceRounds: RunRow[] = [];
        for (let round = 1; round <= rounds; round++) {
          const cpuBefore = apiCpuSeconds(service.pid);
          const figures = await spawnRunner({ ...runner, warmupRequests: 0 });
          const apiCpuMsPerRequest = ((apiCpuSeconds(service.pid) - cpuBefore) * 1000) / Math.max(1, figures.ok2xx + figures.non2xx);
          if (service.hasExited()) throw new Error(`service exited during the load:\n${service.outputTail()}`);
          if (figures.non2xx > 0 || figures.errors > 0) console.warn(`  warning: ${figures.non2xx} non-2xx answers and ${figures.errors} errors: figures are not comparable`);
          console.log(`  ${rounds > 1 ? `round ${round}: ` : ''}${figures.requestsPerSecond.toFixed(1)} requests/s, p50 ${figures.latencyP50Ms.toFixed(1)} ms, p99 ${figures.latencyP99Ms.toFixed(1)} ms, api CPU ${apiCpuMsPerRequest.toFixed(2)} ms per request`);
          const memory = formatMemory(serviceMemory(service.pid));
          console.log(`  RSS after the load: ${memory}`);
          serviceRounds.push({ apiProcesses, round, apiCpuMsPerRequest, readySeconds, firstSearchSeconds, allSearchableSeconds, figures, memory });
        }
        rows.push(...serviceRounds);
        if (rounds > 1) rows.push(medianRow(serviceRounds));
      } finally {
        await service.stop();
      }
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    store.close();
    process.off('SIGINT', abort);
    process.off('SIGTERM', abort);
  }

  console.log(`\nPOST /search over ${chunks} chunks on ${store.store}, ${connections} connections, ${durationSeconds} s per round, alpha ${alpha ?? 'default'} (load from a separate ${generator} process):\n`);
  printTable(rows, rounds);
  // The median of several rounds, else the one round.
  const summary = (processes: number) => rows.find((row) => row.apiProcesses === processes && row.round === (rounds > 1 ? 0 : 1));
  const one = summary(1);
  const two = summary(2);
  if (one && two) {
    const ratio = two.figures.requestsPerSecond / one.figures.requestsPerSecond;
    console.log(`\nspeedup 2 vs 1 api processes: ${ratio.toFixed(2)}x (goal >= 1.5x: ${ratio >= 1.5 ? 'met' : 'NOT met'})`);
  }
}

const runnerArg = process.argv.indexOf('--runner');
if (runnerArg !== -1) {
  const figures = await runLoad(JSON.parse(process.argv[runnerArg + 1]) as RunnerConfig);
  process.stdout.write(`${JSON.stringify(figures)}\n`);
} else {
  try {
    await main();
  } catch (error) {
    console.error(`http-load failed: ${error instanceof Error ? error.message : error}`);
    process.exitCode = 1;
  }
}
