// Bulk ingest over HTTP: SciFact abstracts (10 to a document) sent as JSON to POST /embed by this process,
// UPLOADS_IN_FLIGHT at a time, against the supervisor with its default topology (an api process per core and
// one worker), until every job is terminal. Reports chunks/s and documents/s, job outcomes, and the RSS and CPU of
// every process of the service, the CPU also by thread (threadCpu in bench-service.ts). The service is started as a child process: this process only sends load, over
// node:http with kept-alive connections (fetch cost the loader about twice the CPU, taken from the service's cores).
// Two loaders (--mode): `bulk` (default) keeps its uploads in flight back to back and follows the accepted jobs
// in order, one status poll at a time, as a bulk loader would: the service's ingest throughput. `each` waits
// for each document's job to end before its uploader sends the next: bound by one document's latency
// (upload, the worker's pick-up, publication, and the poll interval) as much as by throughput.
// The store is SQLite (DATA_DIR) unless `--store postgres` runs the service on a throwaway local PostgreSQL
// cluster (bench-store.ts).
// --repeat N runs the load N times, each on a fresh service and store, and ends with the median and range of the
// rates: on a shared machine one run's rate moves by a fifth with the neighbours' load.
// --rounds N sends SciFact N times, each round as new documents (5,473 chunks a round), for a longer load into one
// growing Client: one round takes about 6 s, of which the service's start (compiling its hot code, filling its
// caches) is a noticeable part; later rounds show the sustained rate.
// --restart then stops the service and starts it again over the same store, and reports how long the first search
// took to be answered from the start (the Client loads on it: from the segment cache, and the lane data of the rest).
// Usage: node bench/ingest-http.ts [--documents 0 (all)] [--rounds 1] [--in-flight 8] [--poll-ms 100] [--mode bulk|each] [--store sqlite|postgres] [--repeat 1] [--restart]

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent } from 'node:http';
import { formatMemory, formatThreadCpu, serviceMemory, spawnSupervisor, threadCpu } from './bench-service.ts';
import { loadDataset } from './datasets.ts';
import { openBenchStore, parseBenchStore } from './bench-store.ts';
import { median } from './stats.ts';
import { requestJson } from '../test/helpers/http-json.ts';

const { values } = parseArgs({ options: { documents: { type: 'string', default: '0' }, 'in-flight': { type: 'string', default: '8' }, 'poll-ms': { type: 'string', default: '100' }, mode: { type: 'string', default: 'bulk' }, store: { type: 'string', default: 'sqlite' }, repeat: { type: 'string', default: '1' }, rounds: { type: 'string', default: '1' }, restart: { type: 'boolean', default: false } }, strict: true });
const ABSTRACTS_PER_DOCUMENT = 10;
const IN_FLIGHT = Number(values['in-flight']);
const KEY = 'ingest-key';
const TERMINAL = new Set(['completed', 'failed', 'partial_failed', 'superseded']);
/** How often a pending job is polled, as a bulk loader would (each poll is a request the api processes serve). */
const POLL_MS = Number(values['poll-ms']);

const scifact = loadDataset('scifact', 'train.tsv');
const documents: { document_id: string; text: string }[] = [];
for (let start = 0; start < scifact.documents.length; start += ABSTRACTS_PER_DOCUMENT) {
  const group = scifact.documents.slice(start, start + ABSTRACTS_PER_DOCUMENT);
  documents.push({ document_id: `scifact-${start}`, text: group.map((doc) => `${doc.title}\n\n${doc.text}`).join('\n\n') });
}
const ROUNDS = Number(values.rounds);
/** Each round sends the documents again as new documents (ids of their own): a longer load over a growing Client. */
const rounds = Array.from({ length: ROUNDS }, (_, round) => documents.map((document) => ({ ...document, document_id: round === 0 ? document.document_id : `${document.document_id}-r${round}` }))).flat();
const wanted = Number(values.documents) > 0 ? rounds.slice(0, Number(values.documents)) : rounds;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/**
 * The service is idle when, over each of SETTLE_QUIET_SECONDS seconds in a row, no process came or went and all
 * spent less than this CPU (idle, the api processes' followers and the worker's job polls spend about 0.03 s a
 * second in all; a merge or a graph build spends most of a core)...
 */
const IDLE_CPU_SECONDS = 0.1;
const SETTLE_QUIET_SECONDS = 3;
/** ...or, at the latest, this long after the load. */
const SETTLE_MAX_SECONDS = 180;

/** Waits until the service is idle (its background work after the load is done: merges, graph builds), then reads its memory. */
async function settledMemory(supervisorPid: number): Promise<{ seconds: number; memory: ReturnType<typeof serviceMemory> }> {
  const started = performance.now();
  const cpuByPid = () => new Map(serviceMemory(supervisorPid).map((entry) => [entry.pid, entry.cpuSeconds]));
  let before = cpuByPid();
  for (let quiet = 0; quiet < SETTLE_QUIET_SECONDS && (performance.now() - started) / 1000 < SETTLE_MAX_SECONDS; ) {
    await sleep(1000);
    const now = cpuByPid();
    const same = now.size === before.size && [...now.keys()].every((pid) => before.has(pid));
    const spent = [...now].reduce((sum, [pid, cpu]) => sum + cpu - (before.get(pid) ?? 0), 0);
    quiet = same && spent < IDLE_CPU_SECONDS ? quiet + 1 : 0;
    before = now;
  }
  return { seconds: (performance.now() - started) / 1000, memory: serviceMemory(supervisorPid) };
}
/** Starts the service again over the store and reports when its first search was answered (reads answering 503 while the Client loads are retried). */
async function restart(env: Record<string, string>, onAbort: () => void): Promise<void> {
  const started = performance.now();
  const service = await spawnSupervisor(env, { onAbort });
  try {
    const listening = (performance.now() - started) / 1000;
    let unavailable = 0;
    for (;;) {
      const answer = await requestJson(`${service.url}/search`, { headers: { 'x-api-key': KEY }, body: { query: 'vitamin d deficiency', limit: 10 }, agent: false });
      if (answer.status === 200) break;
      if (answer.status !== 503) throw new Error(`search answered ${answer.status}: ${JSON.stringify(answer.json)}`);
      unavailable++;
    }
    console.log(`restart: the service listening after ${listening.toFixed(2)} s, its first search answered after ${((performance.now() - started) / 1000).toFixed(2)} s${unavailable ? ` (${unavailable} answered 503 meanwhile)` : ''}`);
    await sleep(3000);
    console.log(`restart: RSS 3 s later: ${formatMemory(serviceMemory(service.pid).filter((entry) => entry.role === 'api'))}`);
  } finally {
    await service.stop();
  }
}

/** One load on a fresh service and store: prints its figures and returns its rate in chunks/s. */
async function oneLoad(): Promise<number> {
  let rate = 0;
  const dataDir = mkdtempSync(join(tmpdir(), 'hds-ingest-http-'));
  const store = await openBenchStore(parseBenchStore(values.store), dataDir);
  try {
    const env = { ...store.env, HOST: '127.0.0.1', PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent', API_KEY_CLIENTS: JSON.stringify({ [KEY]: 'ingest-client' }), RATE_LIMIT_PER_MINUTE: '1000000', SEARCH_RATE_LIMIT_PER_MINUTE: '1000000' };
    const onAbort = () => {
      rmSync(dataDir, { recursive: true, force: true });
      store.close();
    };
    const service = await spawnSupervisor(env, { onAbort });
    try {
      console.log(`service ready on ${store.store}: ${service.apiProcesses} api, ${service.workerProcesses} worker; ${wanted.length} documents of ${ABSTRACTS_PER_DOCUMENT} abstracts, ${IN_FLIGHT} uploads in flight, jobs polled every ${POLL_MS} ms, loader ${values.mode}`);
      const headers = { 'x-api-key': KEY };
      // Kept-alive connections, one per request in flight at most: as a bulk loader would hold them.
      const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT + 1, scheduling: 'fifo' });
      const outcomes = new Map<string, number>();
      let chunks = 0;
      let next = 0;
      let polls = 0;
      const upload = async (document: (typeof wanted)[number]): Promise<string> => {
        const accepted = await requestJson(`${service.url}/embed`, { headers, body: document, agent });
        if (accepted.status !== 202) throw new Error(`POST /embed answered ${accepted.status}: ${JSON.stringify(accepted.json)}`);
        return (accepted.json as { job_id: string }).job_id;
      };
      /** Polls the job until it is terminal, POLL_MS apart. */
      const follow = async (jobId: string): Promise<void> => {
        for (;;) {
          polls++;
          const status = (await requestJson(`${service.url}/status/${jobId}`, { headers, agent })).json as { status: string; chunks_created?: number };
          if (TERMINAL.has(status.status)) {
            outcomes.set(status.status, (outcomes.get(status.status) ?? 0) + 1);
            chunks += status.chunks_created ?? 0;
            return;
          }
          await sleep(POLL_MS);
        }
      };
      const cpuBefore = new Map(serviceMemory(service.pid).map((entry) => [entry.pid, entry.cpuSeconds]));
      const threadsBefore = new Map(serviceMemory(service.pid).map((entry) => [entry.pid, threadCpu(entry.pid)]));
      const loaderBefore = process.cpuUsage();
      const serverBefore = store.serverCpuSeconds();
      const started = performance.now();
      if (values.mode === 'each') {
        await Promise.all(
          Array.from({ length: IN_FLIGHT }, async () => {
            while (next < wanted.length) await follow(await upload(wanted[next++]));
          }),
        );
      } else {
        const jobs: Promise<string>[] = [];
        const uploaders = Promise.all(
          Array.from({ length: IN_FLIGHT }, async () => {
            while (next < wanted.length) {
              const accepted = upload(wanted[next++]);
              jobs.push(accepted);
              await accepted;
            }
          }),
        );
        // Jobs are followed in the order they were accepted: a later one is polled once the earlier ones ended.
        for (let followed = 0; followed < wanted.length; followed++) {
          while (jobs.length <= followed) await Promise.race([uploaders, sleep(POLL_MS)]);
          await follow(await jobs[followed]);
        }
        await uploaders;
      }
      const seconds = (performance.now() - started) / 1000;
      rate = chunks / seconds;
      console.log(`${wanted.length} documents, ${chunks} chunks in ${seconds.toFixed(1)} s: ${(chunks / seconds).toFixed(0)} chunks/s, ${(wanted.length / seconds).toFixed(1)} documents/s`);
      console.log(`outcomes: ${JSON.stringify(Object.fromEntries(outcomes))}; ${polls} status polls (mode ${values.mode})`);
      const after = serviceMemory(service.pid);
      const threadsAfter = new Map(after.map((entry) => [entry.pid, threadCpu(entry.pid)]));
      console.log(`RSS: ${formatMemory(after)}`);
      // CPU spent during the load alone (start-up excluded): against 2 cores x the wall time, what bounds the rate.
      const during = after.map((entry) => ({ ...entry, cpu: entry.cpuSeconds - (cpuBefore.get(entry.pid) ?? 0) }));
      const total = during.reduce((sum, entry) => sum + entry.cpu, 0);
      const loader = process.cpuUsage(loaderBefore);
      const server = store.store === 'sqlite' ? '' : `; the ${store.store} server ${(store.serverCpuSeconds() - serverBefore).toFixed(1)} s`;
      console.log(`CPU during the load: ${during.map((entry) => `${entry.role} ${entry.cpu.toFixed(1)} s`).join(', ')}; ${total.toFixed(1)} s in all, ${(total / seconds).toFixed(2)} cores; the loader (this process) ${((loader.user + loader.system) / 1e6).toFixed(1)} s${server}`);
      for (const entry of after) {
        const threads = formatThreadCpu(threadsBefore.get(entry.pid) ?? new Map(), threadsAfter.get(entry.pid)!);
        if (threads !== '') console.log(`  ${entry.role} ${entry.pid} by thread: ${threads}`);
      }
      // What the processes hold once the work the load left behind (segment merges, graph builds) is done.
      const settled = await settledMemory(service.pid);
      console.log(`RSS once settled (${settled.seconds.toFixed(0)} s after the load, the service idle): ${formatMemory(settled.memory)}`);
    } finally {
      await service.stop();
    }
    if (values.restart) await restart(env, onAbort);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    store.close();
  }
  return rate;
}

const REPEAT = Number(values.repeat);
const rates: number[] = [];
for (let run = 1; run <= REPEAT; run++) {
  if (REPEAT > 1) console.log(`\n# load ${run} of ${REPEAT}`);
  rates.push(await oneLoad());
}
if (REPEAT > 1) {
  console.log(`\n${REPEAT} loads: median ${median(rates).toFixed(0)} chunks/s (min ${Math.min(...rates).toFixed(0)}, max ${Math.max(...rates).toFixed(0)}; each ${rates.map((value) => value.toFixed(0)).join(', ')})`);
}
