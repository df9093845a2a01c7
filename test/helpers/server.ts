// Test harness: start the real service (the supervisor of `npm start` with its api and worker processes)
// on a random port with a temporary DATA_DIR, and talk to it over HTTP like a client would.

import { mkdtempSync, rmSync } from 'node:fs';
import { before, after } from 'node:test';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { storeEnv } from './test-store.ts';
import { childEnv } from './child-env.ts';
import { faultPreload } from './faults.ts';

export const KEYS = { alpha: 'key-alpha-1', alpha2: 'key-alpha-2', beta: 'key-beta-1', operator: 'op-key-1' } as const;
export const API_KEY_CLIENTS = JSON.stringify({ [KEYS.alpha]: 'client-alpha', [KEYS.alpha2]: 'client-alpha', [KEYS.beta]: 'client-beta' });

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** How long a supervisor may take to start its processes and build their snapshots. */
const START_TIMEOUT_MS = 60_000;

export function tempDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'hds-test-'));
}

/** The service's settings for a test: on the suites' store (test-store.ts) unless `overrides` name a STORE. */
export function baseEnv(dataDir: string, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    ...('STORE' in overrides ? {} : storeEnv(dataDir)),
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    API_KEY_CLIENTS,
    OPERATOR_API_KEYS: JSON.stringify([KEYS.operator]),
    RATE_LIMIT_PER_MINUTE: '100000',
    SEARCH_RATE_LIMIT_PER_MINUTE: '100000',
    JOB_RETRY_BASE_SECONDS: '0.2',
    // The workers' and followers' polls keep their defaults (WORKER_POLL_MS, FOLLOWER_POLL_MS): a queued job wakes
    // the workers at once and a read catches up with the publication log itself, so faster polls would only cost
    // every live service CPU (at 50 ms, a few per cent of a core each while idle).
    // One api process unless the test is about several (its settings say so): the suite starts its services
    // about 300 times, and each api process costs about a second of CPU to start and then catches up on every
    // publication, so a second one per service would cost the suite minutes that only the topology tests need.
    API_PROCESSES: '1',
    ...overrides,
  };
}

export interface ChildServer {
  url: string;
  /** Resolves when every api process has built its snapshots (the supervisor's "ready on" line). */
  ready: Promise<void>;
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
  /** A crash of everything: SIGKILL to the supervisor and all its api and worker processes at once. */
  crash(): Promise<void>;
  /** Graceful stop (SIGTERM to the supervisor, which drains its processes); resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Process groups of supervisors still running: killed if the test process exits without stopping them, and
 * when it is itself stopped by a signal (a runner's or a shell's timeout), which skips 'exit' handlers.
 */
const runningGroups = new Set<number>();
function killRunningGroups(): void {
  for (const pid of runningGroups) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
process.once('exit', killRunningGroups);
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    killRunningGroups();
    process.exit(signal === 'SIGTERM' ? 143 : 130);
  });
}

/**
 * Starts `node src/main.ts` (the supervisor) in its own process group, resolving once it says every api
 * process has built its snapshots ("ready on URL"), or, with `until: 'listening'`, once they all listen. It runs
 * in the checkout unless `cwd` names another working directory (where relative settings and `.env` are read).
 */
export function spawnServer(env: Record<string, string>, options: { until?: 'listening' | 'ready'; sharedCompileCache?: boolean; cwd?: string } = {}): Promise<ChildServer> {
  // The supervisor's start-up lines are JSON (src/log-lines.ts): the URL ends at the closing quote of its msg.
  const announcement = options.until === 'listening' ? /listening on (http:\/\/[^\s"]+)/ : /ready on (http:\/\/[^\s"]+)/;
  // Settings that pause fault points (faultPauses) come with the preload that reads them; the supervisor's
  // processes inherit both (its execArgv and environment).
  const child = spawn(process.execPath, [...faultPreload(env), join(ROOT, 'src/main.ts')], { cwd: options.cwd ?? ROOT, env: childEnv(env, { sharedCompileCache: options.sharedCompileCache }), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stdout = '';
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  runningGroups.add(child.pid!);
  void exited.then(() => runningGroups.delete(child.pid!));
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const crash = async () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
    await exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void crash();
      reject(new Error(`server did not become ready in ${START_TIMEOUT_MS} ms: ${stdout}\n${stderr}`));
    }, START_TIMEOUT_MS);
    child.stdout!.on('data', (chunk) => {
      stdout += chunk;
      if (/ready on http/.test(stdout)) markReady();
      const match = announcement.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve({
          url: match[1],
          ready,
          child,
          stdout: () => stdout,
          stderr: () => stderr,
          exited,
          crash,
          async stop() {
            child.kill('SIGTERM');
            return exited;
          },
        });
      }
    });
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before it was ready: ${stderr}`));
    });
  });
}

export interface TestServer {
  url: string;
  dataDir: string;
  server: ChildServer;
  close(): Promise<void>;
}

export async function startTestServer(overrides: Record<string, string> = {}, dataDir = tempDataDir()): Promise<TestServer> {
  const server = await spawnServer(baseEnv(dataDir, overrides));
  return {
    url: server.url,
    dataDir,
    server,
    async close() {
      await server.stop();
    },
  };
}

/**
 * One server for the whole test file: started before the first test (then `setup` runs), closed and
 * its DATA_DIR removed after the last.
 */
export function useTestServer(overrides: Record<string, string> = {}, setup?: (server: TestServer) => Promise<void>): TestServer {
  let current: TestServer | undefined;
  const running = (): TestServer => {
    if (!current) throw new Error('the test server is not running');
    return current;
  };
  before(async () => {
    current = await startTestServer(overrides);
    await setup?.(current);
  });
  after(async () => {
    if (!current) return;
    await current.close();
    removeDir(current.dataDir);
  });
  return {
    get url() {
      return running().url;
    },
    get dataDir() {
      return running().dataDir;
    },
    get server() {
      return running().server;
    },
    close: () => running().close(),
  };
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

export async function api(url: string, path: string, options: { method?: string; key?: string | null; body?: unknown; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== null && options.key !== undefined) headers['X-API-Key'] = options.key;
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['Content-Type'] ??= 'application/json';
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  }
  return readAnswer(await fetch(`${url}${path}`, { method: options.method ?? (body ? 'POST' : 'GET'), headers, body }));
}

/** A response as tests look at it: status, headers, the body text and its JSON (null when it is not JSON). */
export async function readAnswer(response: Response) {
  const text = await response.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: response.status, headers: response.headers, json, text };
}

/** A request whose body and headers are sent exactly as given (hostile-input tests). */
export async function sendRaw(url: string, path: string, options: { method: string; headers: Record<string, string>; body?: Uint8Array | string }) {
  return readAnswer(await fetch(`${url}${path}`, { method: options.method, headers: options.headers, body: options.body }));
}

export async function uploadText(url: string, key: string, body: Record<string, unknown>) {
  return api(url, '/embed', { key, body });
}

export async function uploadFile(url: string, key: string, fields: Record<string, string>, file: { name: string; bytes: Uint8Array; type?: string }) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('file', new Blob([file.bytes], { type: file.type ?? 'application/octet-stream' }), file.name);
  const response = await fetch(`${url}/embed`, { method: 'POST', headers: { 'X-API-Key': key }, body: form });
  return { status: response.status, json: (await response.json()) as any, headers: response.headers };
}

export const TERMINAL = new Set(['completed', 'failed', 'partial_failed', 'superseded']);

/** The first pause between two status reads of a job, and the longest a wait for a terminal state grows to. */
const JOB_POLL_MS = 50;
const JOB_POLL_MAX_MS = 250;

/**
 * Polls /status until the job is terminal (or `until` says so). A wait for a terminal state, which lasts, polls
 * less often as it goes on (each read is a request the service answers while the suite's other files compute); a
 * wait for a passing state (`until`) keeps to JOB_POLL_MS, so as not to miss it.
 */
export async function waitForJob(url: string, key: string, jobId: string, options: { timeoutMs?: number; until?: (job: any) => boolean } = {}) {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  const until = options.until ?? ((job: any) => TERMINAL.has(job.status));
  for (let pauseMs = JOB_POLL_MS; ; pauseMs = options.until ? JOB_POLL_MS : Math.min(JOB_POLL_MAX_MS, pauseMs * 1.5)) {
    const response = await api(url, `/status/${jobId}`, { key });
    if (response.status === 200 && until(response.json)) return response.json;
    if (Date.now() > deadline) throw new Error(`job ${jobId} did not finish: ${response.status} ${response.text}`);
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
}

/**
 * GET /health until it answers 200, within `timeoutMs`; the last answer. For a test that means "the service is
 * still healthy" after what it did: a publication probe that misses its 2-second deadline (SPEC.md health rule
 * 6) on a machine too busy to run the probe thread answers 503 for that one call, which is the rule working, not
 * the service broken. A service that stays unhealthy still fails the test, with its last answer.
 */
export async function untilHealthy(url: string, timeoutMs = 30_000): Promise<{ status: number; text: string }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await api(url, '/health', { key: null });
    if (answer.status === 200 || Date.now() > deadline) return { status: answer.status, text: answer.text };
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
