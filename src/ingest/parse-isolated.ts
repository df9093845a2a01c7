// Isolated parsing: each upload is parsed in a worker thread with a bounded heap and a wall-clock deadline, one
// upload at a time per thread. A hostile file may kill its worker, never the service; crash, timeout and
// out-of-memory all become legible IngestErrors, and a thread whose parse did not end well is never used again.

import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { ParsedDocument } from './parsed-document.ts';
import { IngestError } from './parsed-document.ts';
import type { ParseOptions } from './parse-options.ts';
import { parseCrashed, parseOutOfMemory, parseTimeout, tempUnavailable } from './errors.ts';

/** Wall-clock limit for one isolated parse, OCR included. */
export const ISOLATED_PARSE_TIMEOUT_MS = 120_000;
/** Old-generation heap of a parse worker; exceeding it ends the worker with parse_out_of_memory. */
export const ISOLATED_PARSE_MAX_HEAP_MB = 768;
/** Young-generation heap of a parse worker. */
export const ISOLATED_PARSE_YOUNG_HEAP_MB = 64;
/** Stack of a parse worker; deep recursion in a hostile file overflows here, not in the service. */
export const ISOLATED_PARSE_STACK_MB = 4;
/** Time a timed-out worker gets to kill and reap its own OCR children before it is terminated. */
export const ABORT_GRACE_MS = 1000;

export interface IsolatedParseOptions extends ParseOptions {
  timeoutMs?: number;
  maxHeapMb?: number;
}

/** What the parent sends: options without callbacks (functions cannot cross threads). */
export interface WorkerRequest {
  bytes: Uint8Array;
  filename: string;
  options: ParseOptions;
}

export type WorkerReply =
  | { type: 'done'; doc: ParsedDocument }
  | { type: 'error'; code: string; message: string; transient: boolean }
  | { type: 'crash'; detail: string }
  | { type: 'child'; pid: number; running: boolean }
  /** After an abort: every OCR child the thread started is killed and reaped. */
  | { type: 'aborted' };

/** What the parent may send: another document to parse (a reused thread), or abort the running parse. */
export type WorkerCommand = { type: 'parse'; request: WorkerRequest } | { type: 'abort' };

const WORKER_URL = new URL('./parse-worker.ts', import.meta.url);

type ChildHook = ((pid: number, running: boolean) => void) | undefined;

/** Kills OCR children the worker left behind (a terminated worker cannot reap them itself). */
function killChildren(pids: Set<number>, hook: ChildHook): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone: nothing to clean up.
    }
    hook?.(pid, false);
  }
  pids.clear();
}

function requestOf(bytes: Buffer, filename: string, options: IsolatedParseOptions): WorkerRequest {
  const { timeoutMs: _timeout, maxHeapMb: _heap, ...parseOptions } = options;
  const { onChildProcess: _hook, ...ocr } = parseOptions.ocr ?? {};
  return { bytes: new Uint8Array(bytes), filename, options: { ...parseOptions, ocr } };
}

function workerError(error: Error & { code?: string }): IngestError {
  return error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? parseOutOfMemory() : parseCrashed(error);
}

interface WorkerRun {
  result: Promise<ParsedDocument>;
  /** Settles once the parse is over and its thread is either idle again or gone. */
  exited: Promise<void>;
}

/** A parse thread and how many documents it has parsed. */
interface ParseThread {
  worker: Worker;
  heapMb: number;
  parses: number;
  idleTimer?: NodeJS.Timeout;
}

/**
 * Threads kept after a parse that ended well, so the next upload skips a thread's start and its parsers' loading
 * (about 90 ms, and 130 more for pdf.js). A thread that failed, crashed or ran out of time is never reused: it is
 * ended, and so is one that has parsed PARSES_PER_THREAD documents or stayed idle PARSE_THREAD_IDLE_MS.
 */
const idleThreads: ParseThread[] = [];
export const PARSES_PER_THREAD = 32;
export const PARSE_THREAD_IDLE_MS = 10_000;
/** Parses one process runs at once at most, however many cores it has: each thread may grow to PARSE_MAX_HEAP_MB. */
export const MAX_PARSES_AT_ONCE = 4;
/**
 * Files parsed at once in one worker process (compose.ts), whatever WORKER_CONCURRENCY is: one per core, within
 * MAX_PARSES_AT_ONCE, so that parsing uses the machine without holding more than that many parse heaps. Jobs beyond
 * it wait for a parse slot; their parse deadline starts when their parse does.
 */
export const PARSES_AT_ONCE = Math.max(1, Math.min(availableParallelism(), MAX_PARSES_AT_ONCE));
/** Threads kept idle at most: one per parse slot. */
export const MAX_IDLE_PARSE_THREADS = PARSES_AT_ONCE;

/** Parse threads waiting for the next upload (of one heap size when given). */
export function idleParseThreads(heapMb?: number): number {
  return idleThreads.filter((thread) => heapMb === undefined || thread.heapMb === heapMb).length;
}

function takeThread(request: WorkerRequest, heapMb: number): ParseThread {
  const at = idleThreads.findIndex((thread) => thread.heapMb === heapMb);
  if (at >= 0) {
    const [thread] = idleThreads.splice(at, 1);
    clearTimeout(thread!.idleTimer);
    thread!.worker.ref();
    thread!.worker.postMessage({ type: 'parse', request } satisfies WorkerCommand);
    thread!.parses++;
    return thread!;
  }
  const worker = new Worker(WORKER_URL, {
    name: 'parse thread',
    workerData: request,
    resourceLimits: { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: ISOLATED_PARSE_YOUNG_HEAP_MB, stackSizeMb: ISOLATED_PARSE_STACK_MB },
  });
  return { worker, heapMb, parses: 1 };
}

/** Keeps a thread whose parse ended well for the next upload, or ends it. */
function releaseThread(thread: ParseThread): Promise<void> {
  thread.worker.removeAllListeners('message').removeAllListeners('error').removeAllListeners('exit');
  if (thread.parses >= PARSES_PER_THREAD) return thread.worker.terminate().then(() => undefined);
  // Room for this one: the longest idle goes first.
  if (idleThreads.length >= MAX_IDLE_PARSE_THREADS) void idleThreads.shift()!.worker.terminate();
  thread.worker.unref(); // an idle thread never keeps the process alive
  thread.worker.once('exit', () => {
    const at = idleThreads.indexOf(thread);
    if (at >= 0) idleThreads.splice(at, 1);
  });
  thread.idleTimer = setTimeout(() => void thread.worker.terminate(), PARSE_THREAD_IDLE_MS);
  thread.idleTimer.unref();
  idleThreads.push(thread);
  return Promise.resolve();
}

function runWorker(bytes: Buffer, filename: string, options: IsolatedParseOptions): WorkerRun {
  const timeoutMs = options.timeoutMs ?? ISOLATED_PARSE_TIMEOUT_MS;
  const thread = takeThread(requestOf(bytes, filename, options), options.maxHeapMb ?? ISOLATED_PARSE_MAX_HEAP_MB);
  const { worker } = thread;
  const children = new Set<number>();
  const hook = options.ocr?.onChildProcess;
  let markExited!: () => void;
  const exited = new Promise<void>((resolve) => (markExited = resolve));
  worker.once('exit', () => markExited());
  const result = new Promise<ParsedDocument>((resolve, reject) => {
    let settled = false;
    let stopped = false;
    let grace: NodeJS.Timeout | undefined;
    const stop = (): void => {
      stopped = true;
      clearTimeout(timer);
      clearTimeout(grace);
      killChildren(children, hook);
      void worker.terminate();
    };
    const finish = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      stop();
      outcome();
    };
    /** A parse that ended well leaves its thread for the next one (no OCR child can be left: each was reaped). */
    const succeed = (doc: ParsedDocument): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (children.size > 0) {
        stop();
      } else {
        void releaseThread(thread).then(markExited);
      }
      resolve(doc);
    };
    /**
     * On timeout the worker first kills and reaps its own OCR children (no zombies); terminate follows when it says
     * so, or after the grace. Asked even when no child is known here: one it started may be on its way in a message.
     */
    const timeOut = (): void => {
      if (settled) return;
      settled = true;
      reject(parseTimeout(timeoutMs));
      worker.postMessage({ type: 'abort' } satisfies WorkerCommand);
      grace = setTimeout(stop, ABORT_GRACE_MS);
    };
    const timer = setTimeout(timeOut, timeoutMs);
    worker.on('message', (reply: WorkerReply) => {
      if (reply.type === 'child') {
        if (reply.running) children.add(reply.pid);
        else children.delete(reply.pid);
        hook?.(reply.pid, reply.running);
        // A child announced after the thread was stopped cannot be reaped by it any more: killed at least.
        if (stopped) killChildren(children, hook);
      } else if (reply.type === 'aborted') stop();
      else if (reply.type === 'done') succeed(reply.doc);
      else if (reply.type === 'error') finish(() => reject(new IngestError(reply.code, reply.message, { transient: reply.transient })));
      else finish(() => reject(parseCrashed(new Error(reply.detail))));
    });
    worker.on('error', (error) => finish(() => reject(workerError(error))));
    worker.on('exit', (code) => finish(() => reject(parseCrashed(new Error(`parse worker exited with code ${code}`)))));
  });
  return { result, exited };
}

/**
 * Parses `bytes` in a worker thread (a fresh one, or one whose last parse ended well); resolves with the document or
 * rejects with an IngestError. OCR scratch files live in a directory this function owns and removes once the parse
 * is over, even when its thread was terminated.
 */
export async function parseDocumentIsolated(bytes: Buffer, filename: string, options: IsolatedParseOptions = {}): Promise<ParsedDocument> {
  const scratch = await mkdtemp(join(options.ocr?.tempDir ?? tmpdir(), 'ingest-parse-')).catch((error: unknown) => {
    throw tempUnavailable(error);
  });
  const run = runWorker(bytes, filename, { ...options, ocr: { ...options.ocr, tempDir: scratch } });
  try {
    return await run.result;
  } finally {
    await run.exited;
    await rm(scratch, { recursive: true, force: true });
  }
}
