// Starts the real service for benchmarks on a temporary DATA_DIR, in one of two ways:
// - in-process: an api (startApi) and, when jobs must run, a worker (startWorker) in the bench process, for
//   figures measured in-process (direct service calls, the upload path UploadService -> durable job -> worker);
// - as a child process: the supervisor of `npm start` (src/main.ts) with its api and worker processes, for
//   figures measured over HTTP against the service as it is deployed.
// It also loads documents through the service's own upload path, waiting until every job is terminal.

import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.ts';
import type { Config } from '../src/config.ts';
import { startApi } from '../src/api.ts';
import type { RunningApi } from '../src/api.ts';
import { startWorker } from '../src/worker.ts';
import type { RunningWorker } from '../src/worker.ts';
import type { Services } from '../src/http/services.ts';
import type { ClientSnapshot } from '../src/serving/snapshot.ts';
import { validateUploadFields } from '../src/ingest/upload-service.ts';
import { cpuSecondsOf, statFields } from './proc-stat.ts';

export const BENCH_CLIENT = 'bench-client';
export const BENCH_KEY = 'bench-key';

const TERMINAL = new Set(['completed', 'failed', 'partial_failed', 'superseded']);
const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));

/** Settings of a benchmark instance: silent, unlimited rate, fast polling, on a temporary DATA_DIR. */
export function benchEnv(dataDir: string, clientId: string, key: string, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    API_KEY_CLIENTS: JSON.stringify({ [key]: clientId }),
    RATE_LIMIT_PER_MINUTE: '1000000',
    SEARCH_RATE_LIMIT_PER_MINUTE: '1000000',
    WORKER_POLL_MS: '20',
    ...overrides,
  };
}

// ---------------------------------------------------------------------------------------------------------
// In-process: api (+ worker) in the bench process.

/** One api process's composition (and optionally a worker's) running inside the bench process. */
export interface InProcessService {
  api: RunningApi;
  /** null when started without a worker (nothing to run: reads only). */
  worker: RunningWorker | null;
  services: Services;
  url: string;
  close(): Promise<void>;
}

/**
 * Starts an api (and, unless `worker: false`, a worker) on one configuration in this process; resolves once
 * the api has built its serving snapshots. Without a supervisor the api cannot wake the worker, so the
 * worker finds new jobs by polling (WORKER_POLL_MS, 20 ms in benchEnv).
 */
export async function startInProcess(config: Config, options: { worker?: boolean } = {}): Promise<InProcessService> {
  const api = await startApi(config);
  let worker: RunningWorker | null = null;
  try {
    await api.recovered;
    if (options.worker !== false) worker = await startWorker(config);
  } catch (error) {
    await api.close();
    throw error;
  }
  let closing: Promise<void> | null = null;
  return {
    api,
    worker,
    services: api.services,
    url: api.url,
    close() {
      closing ??= (async () => {
        await api.close();
        await worker?.close();
      })();
      return closing;
    },
  };
}

/** An in-process api + worker on a fresh temporary DATA_DIR for BENCH_CLIENT; close() also removes the directory. */
export async function startBenchService(overrides: Record<string, string> = {}): Promise<{ service: InProcessService; dataDir: string; close(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hds-bench-'));
  let service: InProcessService;
  try {
    service = await startInProcess(loadConfig(benchEnv(dataDir, BENCH_CLIENT, BENCH_KEY, overrides)));
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  return {
    service,
    dataDir,
    async close() {
      await service.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Waits until every job is terminal, then until the api's serving snapshot reflects every publication
 * (the read guard's catch-up), so that what was loaded is what a search sees. Returns each job's status.
 */
export async function waitForJobs(service: InProcessService, clientId: string, jobIds: string[]): Promise<Map<string, string>> {
  const outcomes = new Map<string, string>();
  for (const jobId of jobIds) {
    for (;;) {
      const job = await service.api.storage.jobs.get(clientId, jobId);
      if (!job) throw new Error(`job ${jobId} of ${clientId} not found`);
      if (TERMINAL.has(job.status)) {
        outcomes.set(jobId, job.status);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  await servedSnapshot(service, clientId);
  return outcomes;
}

/** The api's serving snapshot of the Client, caught up with the publication log first. */
export function servedSnapshot(service: InProcessService, clientId: string): Promise<ClientSnapshot> {
  return service.services.readGuard.observe(clientId);
}

/** Uploads documents as Markdown text (title as the heading) and waits until all jobs are terminal and served. */
export async function loadDocuments(service: InProcessService, documents: { id: string; title: string; text: string }[]): Promise<number> {
  const started = performance.now();
  const jobIds: string[] = [];
  for (const doc of documents) {
    const upload = validateUploadFields({ documentId: doc.id, versionId: undefined, filename: `${doc.id}.md`, metadata: undefined });
    const body = doc.title ? `# ${doc.title}\n\n${doc.text}` : doc.text;
    jobIds.push((await service.services.uploads.acceptText(BENCH_CLIENT, upload, body || '(empty)')).job_id);
  }
  await waitForJobs(service, BENCH_CLIENT, jobIds);
  return performance.now() - started;
}

// ---------------------------------------------------------------------------------------------------------
// Child process: the supervisor of `npm start`.

/** How long the supervisor may take until every api process has built its snapshots. */
const SUPERVISOR_READY_TIMEOUT_MS = 5 * 60_000;
const SUPERVISOR_STOP_TIMEOUT_MS = 60_000;

/** Resident memory of each process of a service started by spawnSupervisor (its process group), by role. */
/**
 * RSS of every process of the service, split into anonymous memory (heaps, typed arrays) and file-backed pages
 * (mapped files: the HNSW graphs, SQLite's mapped pages, code), which the kernel can drop and read back.
 */
export function serviceMemory(supervisorPid: number): { pid: number; role: string; rssMiB: number; anonMiB: number; fileMiB: number; cpuSeconds: number }[] {
  const out: { pid: number; role: string; rssMiB: number; anonMiB: number; fileMiB: number; cpuSeconds: number }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = statFields(`/proc/${entry}/stat`);
      if (Number(fields[2]) !== supervisorPid) continue; // process group
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      const mib = (field: string) => Math.round(Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024);
      const role = /(?:^|\0)HDS_PROCESS_ROLE=(\w+)/.exec(readFileSync(`/proc/${entry}/environ`, 'utf8'))?.[1] ?? (Number(entry) === supervisorPid ? 'supervisor' : 'other');
      const cpuSeconds = cpuSecondsOf(fields);
      out.push({ pid: Number(entry), role, rssMiB: mib('VmRSS'), anonMiB: mib('RssAnon'), fileMiB: mib('RssFile'), cpuSeconds });
    } catch {
      // the process ended meanwhile
    }
  }
  return out.sort((a, b) => a.role.localeCompare(b.role) || a.pid - b.pid);
}

/**
 * CPU seconds of each thread of a process (utime + stime), summed by thread name: `MainThread`, the service's own
 * threads by their labels (`lanes thread`, `segment thread`, ...), `V8Worker` (V8's compiler and GC helpers),
 * `libuv-worker` (the thread pool: hashing, file reads). Empty once the process has ended.
 */
export function threadCpu(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const task of tasks) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${task}/comm`, 'utf8').trim();
      out.set(name, (out.get(name) ?? 0) + cpuSecondsOf(statFields(`/proc/${pid}/task/${task}/stat`)));
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

/** What each thread name spent between two threadCpu readings, busiest first, those of 0.1 s or more. */
export function formatThreadCpu(before: Map<string, number>, after: Map<string, number>): string {
  return [...after]
    .map(([name, seconds]): [string, number] => [name, seconds - (before.get(name) ?? 0)])
    .filter(([, seconds]) => seconds >= 0.1)
    .sort((a, b) => b[1] - a[1])
    .map(([name, seconds]) => `${name} ${seconds.toFixed(1)} s`)
    .join(', ');
}

export function formatMemory(memory: ReturnType<typeof serviceMemory>): string {
  return memory.map((process) => `${process.role} ${process.pid}: ${process.rssMiB} MiB (anon ${process.anonMiB}, file ${process.fileMiB}; ${process.cpuSeconds.toFixed(1)} s CPU)`).join(', ');
}

export interface SupervisorProcess {
  /** The supervisor's pid (also its process group). */
  pid: number;
  /** From its "ready on URL (...)" line, printed once every api process has built its snapshots. */
  url: string;
  apiProcesses: number;
  workerProcesses: number;
  outputTail(): string;
  /** Whether the supervisor has exited (say, crashed after it was ready) or was stopped. */
  hasExited(): boolean;
  /** SIGTERM (the supervisor drains its processes); SIGKILL to its process group if it or they linger. */
  stop(): Promise<void>;
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Spawns `node src/main.ts` in its own process group with `env` over this process's environment (so that
 * e.g. API_PROCESSES given to the bench reaches it) and resolves once it prints "ready on". PORT 0 is fine:
 * the api processes share the one port the cluster picks, and the ready line names it (a bench may also pass
 * a port of its own). SIGINT/SIGTERM to the bench while it runs kill its process group, run `onAbort` (e.g.
 * remove the DATA_DIR) and exit; this runs before any SIGINT/SIGTERM listener the bench added earlier, so the
 * service is gone before the bench's own clean-up (which then does not run: pass it as `onAbort`).
 */
export function spawnSupervisor(env: Record<string, string>, options: { onAbort?: () => void } = {}): Promise<SupervisorProcess> {
  const child = spawn(process.execPath, ['src/main.ts'], { cwd: REPO_ROOT, env: { ...process.env, ...env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const pid = child.pid;
  let output = '';
  let stdout = '';
  const keep = (data: string) => {
    output = (output + data).slice(-4000);
  };
  let done = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      done = true;
      resolve({ code, signal });
    });
    child.once('error', (error) => {
      keep(`spawn failed: ${error.message}\n`);
      done = true;
      resolve({ code: null, signal: null });
    });
  });
  // An interrupted bench must not leave the service running (it is in another process group: ^C misses it).
  const abort = (signal: NodeJS.Signals) => {
    if (pid !== undefined) killGroup(pid);
    options.onAbort?.();
    process.stderr.write(`\n${signal}: stopped the service\n`);
    process.exit(130);
  };
  const onExit = () => {
    if (pid !== undefined && groupAlive(pid)) killGroup(pid);
  };
  process.prependOnceListener('SIGINT', abort);
  process.prependOnceListener('SIGTERM', abort);
  process.once('exit', onExit);
  const release = () => {
    process.off('SIGINT', abort);
    process.off('SIGTERM', abort);
    process.off('exit', onExit);
  };

  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= (async () => {
      if (!done) {
        child.kill('SIGTERM');
        let timer: NodeJS.Timeout | undefined;
        const outcome = await Promise.race([exited, new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), SUPERVISOR_STOP_TIMEOUT_MS)))]);
        clearTimeout(timer);
        if (outcome === null) console.warn(`warning: the service did not exit within ${SUPERVISOR_STOP_TIMEOUT_MS / 1000} s of SIGTERM; killing its process group`);
        else if (outcome.code !== 0) console.warn(`warning: the service exited with ${outcome.signal ?? `code ${outcome.code}`}:\n${output.trim()}`);
      }
      if (pid !== undefined) {
        for (let i = 0; i < 50 && groupAlive(pid); i++) await sleep(100);
        if (groupAlive(pid)) {
          console.warn('warning: processes of the service outlived it; killing its process group');
          killGroup(pid);
        }
      }
      await exited;
      release();
    })();
    return stopping;
  };

  return new Promise((resolve, reject) => {
    let ready = false;
    let timer: NodeJS.Timeout | undefined;
    const fail = (message: string) => {
      clearTimeout(timer);
      void stop().finally(() => reject(new Error(`${message}:\n${output.trim()}`)));
    };
    timer = setTimeout(() => fail(`the service was not ready after ${SUPERVISOR_READY_TIMEOUT_MS / 1000} s`), SUPERVISOR_READY_TIMEOUT_MS);
    child.stderr!.setEncoding('utf8').on('data', keep);
    child.stdout!.setEncoding('utf8').on('data', (data: string) => {
      keep(data);
      if (ready) return;
      stdout += data;
      const match = /ready on (http:\/\/\S+) \((\d+) api, (\d+) worker/.exec(stdout);
      if (!match) return;
      ready = true;
      clearTimeout(timer);
      resolve({ pid: pid!, url: match[1], apiProcesses: Number(match[2]), workerProcesses: Number(match[3]), outputTail: () => output.trim(), hasExited: () => done, stop });
    });
    void exited.then(({ code, signal }) => {
      if (!ready && stopping === null) fail(`the service exited with ${signal ?? `code ${code}`} before it was ready`);
    });
  });
}
