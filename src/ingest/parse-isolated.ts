// Isolated parsing: each upload is parsed in a child process (parse-child.ts) with a bounded heap and a wall-clock
// deadline, one upload at a time per child. A hostile file may kill its child, never the service: crash, timeout
// and out-of-memory all become legible IngestErrors, and a child whose parse did not end well is never used again.
// A process, not a worker thread: V8 can abort the whole process when a thread's heap limit is reached during an
// allocation it cannot recover from (nodejs/node#47224, seen here with a 16 MiB parse heap), and a parse that
// outgrows its heap must end as parse_out_of_memory, never as the worker process's end.

import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ParsedDocument } from './parsed-document.ts';
import { IngestError } from './parsed-document.ts';
import type { ParseOptions } from './parse-options.ts';
import { parseCrashed, parseOutOfMemory, parseTimeout, tempUnavailable } from './errors.ts';

/** Wall-clock limit for one isolated parse, OCR included. */
export const ISOLATED_PARSE_TIMEOUT_MS = 120_000;
/** Old-generation heap of a parse child; exceeding it ends the child with parse_out_of_memory. */
export const ISOLATED_PARSE_MAX_HEAP_MB = 768;
/** Each of the two semi-spaces of a parse child's young generation. */
export const ISOLATED_PARSE_SEMI_SPACE_MB = 16;
/**
 * V8's stack limit in a parse child (KiB): deep recursion in a hostile file overflows here, as a RangeError of the
 * child, not in the service. Below the 8 MiB main-thread stack Linux gives a process by default.
 */
export const ISOLATED_PARSE_STACK_KB = 3_984;
/** Time a timed-out child gets to kill and reap its own OCR children before it is killed. */
export const ABORT_GRACE_MS = 1000;
/** The end of a child's stderr kept to tell an out-of-memory end from another crash. */
const STDERR_TAIL_CHARS = 4096;
/** How long a child's end waits for the rest of its stderr (an OCR child still holding the pipe does not delay it more). */
const STDERR_DRAIN_MS = 1000;
/** What V8 prints on the way out when a heap limit is reached. */
const OUT_OF_MEMORY_LINE = /JavaScript heap out of memory/;

export interface IsolatedParseOptions extends ParseOptions {
  timeoutMs?: number;
  maxHeapMb?: number;
}

/** What the parent sends: options without callbacks (functions cannot cross processes). */
export interface ParseRequest {
  bytes: Uint8Array;
  filename: string;
  options: ParseOptions;
}

export type ParseReply =
  | { type: 'done'; doc: ParsedDocument; maxRssBytes: number }
  | { type: 'error'; code: string; message: string; transient: boolean; maxRssBytes: number }
  | { type: 'crash'; detail: string }
  | { type: 'child'; pid: number; running: boolean }
  /** After an abort: every OCR child the parse child started is killed and reaped. */
  | { type: 'aborted' };

/** What the parent may send: another document to parse (a reused child), or abort the running parse. */
export type ParseCommand = { type: 'parse'; request: ParseRequest } | { type: 'abort' };

const CHILD_PATH = fileURLToPath(new URL('./parse-child.ts', import.meta.url));

type ChildHook = ((pid: number, running: boolean) => void) | undefined;

/** Kills OCR children a parse child left behind (a killed child cannot reap them itself). */
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

function requestOf(bytes: Buffer, filename: string, options: IsolatedParseOptions): ParseRequest {
  const { timeoutMs: _timeout, maxHeapMb: _heap, ...parseOptions } = options;
  const { onChildProcess: _hook, ...ocr } = parseOptions.ocr ?? {};
  return { bytes: new Uint8Array(bytes), filename, options: { ...parseOptions, ocr } };
}

interface ParseRun {
  result: Promise<ParsedDocument>;
  /** Settles once the parse is over and its child is either idle again or gone. */
  exited: Promise<void>;
}

/** A parse child, how many documents it has parsed, and the end of what it wrote to stderr. */
interface ParseProcess {
  child: ChildProcess;
  heapMb: number;
  parses: number;
  stderrTail: string;
  idleTimer?: NodeJS.Timeout;
}

/**
 * Children kept after a parse that ended well, so the next upload skips a child's start and its parsers' loading.
 * A child whose parse failed, crashed or ran out of time is never reused: it is killed, and so is one that has
 * parsed PARSES_PER_PROCESS documents or stayed idle PARSE_PROCESS_IDLE_MS.
 */
const idleProcesses: ParseProcess[] = [];
export const PARSES_PER_PROCESS = 32;
export const PARSE_PROCESS_IDLE_MS = 10_000;
/** Parses one process runs at once at most, however many cores it has: each child may grow to PARSE_MAX_HEAP_MB. */
export const MAX_PARSES_AT_ONCE = 4;
/**
 * Files parsed at once in one worker process (compose.ts), whatever WORKER_CONCURRENCY is: one per core, within
 * MAX_PARSES_AT_ONCE, so that parsing uses the machine without holding more than that many parse heaps. Jobs beyond
 * it wait for a parse slot; their parse deadline starts when their parse does.
 */
export const PARSES_AT_ONCE = Math.max(1, Math.min(availableParallelism(), MAX_PARSES_AT_ONCE));
/** Children kept idle at most: one per parse slot. */
export const MAX_IDLE_PARSE_PROCESSES = PARSES_AT_ONCE;

/** The largest peak RSS a parse child of this process has reported at the end of a parse (bytes). */
let peakChildRssBytes = 0;

/** Parse children waiting for the next upload (of one heap size when given). */
export function idleParseProcesses(heapMb?: number): number {
  return idleProcesses.filter((parse) => heapMb === undefined || parse.heapMb === heapMb).length;
}

/** The largest resident memory any parse child reached, as the children reported it when their parses ended. */
export function parseChildPeakRssBytes(): number {
  return peakChildRssBytes;
}

function startProcess(heapMb: number): ParseProcess {
  const child = fork(CHILD_PATH, [], {
    // Only the limits: the parent's own flags (a preload, --expose-gc) are not the parser's.
    execArgv: [`--max-old-space-size=${heapMb}`, `--max-semi-space-size=${ISOLATED_PARSE_SEMI_SPACE_MB}`, `--stack-size=${ISOLATED_PARSE_STACK_KB}`],
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  const parse: ParseProcess = { child, heapMb, parses: 0, stderrTail: '' };
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (text: string) => {
    parse.stderrTail = (parse.stderrTail + text).slice(-STDERR_TAIL_CHARS);
  });
  return parse;
}

function takeProcess(request: ParseRequest, heapMb: number): ParseProcess {
  const at = idleProcesses.findIndex((parse) => parse.heapMb === heapMb);
  const parse = at >= 0 ? idleProcesses.splice(at, 1)[0]! : startProcess(heapMb);
  clearTimeout(parse.idleTimer);
  setHeld(parse.child, true);
  parse.child.send({ type: 'parse', request } satisfies ParseCommand);
  parse.parses++;
  return parse;
}

/** Whether the child (its process, IPC channel and stderr pipe) keeps this process's event loop alive. */
function setHeld(child: ChildProcess, held: boolean): void {
  const handles = [child, child.channel, child.stderr] as ({ ref?: () => void; unref?: () => void } | null | undefined)[];
  for (const handle of handles) (held ? handle?.ref : handle?.unref)?.call(handle);
}

function kill(parse: ParseProcess): void {
  parse.child.kill('SIGKILL');
}

/** Keeps a child whose parse ended well for the next upload, or ends it. */
function releaseProcess(parse: ParseProcess): Promise<void> {
  const { child } = parse;
  child.removeAllListeners('message').removeAllListeners('error').removeAllListeners('exit');
  if (parse.parses >= PARSES_PER_PROCESS || child.exitCode !== null || child.signalCode !== null) {
    const gone = new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));
    kill(parse);
    return gone;
  }
  // Room for this one: the longest idle goes first.
  if (idleProcesses.length >= MAX_IDLE_PARSE_PROCESSES) kill(idleProcesses.shift()!);
  // An idle child never keeps this process alive.
  setHeld(child, false);
  child.once('exit', () => {
    const at = idleProcesses.indexOf(parse);
    if (at >= 0) idleProcesses.splice(at, 1);
  });
  parse.idleTimer = setTimeout(() => kill(parse), PARSE_PROCESS_IDLE_MS);
  parse.idleTimer.unref();
  idleProcesses.push(parse);
  return Promise.resolve();
}

/** What a child's end means: out of memory when V8 said so on the way out, a crash otherwise. */
function endOf(parse: ParseProcess, code: number | null, signal: NodeJS.Signals | null): IngestError {
  if (OUT_OF_MEMORY_LINE.test(parse.stderrTail)) return parseOutOfMemory();
  return parseCrashed(new Error(`parse process exited with ${signal ? `signal ${signal}` : `code ${code}`}`));
}

function runParse(bytes: Buffer, filename: string, options: IsolatedParseOptions): ParseRun {
  const timeoutMs = options.timeoutMs ?? ISOLATED_PARSE_TIMEOUT_MS;
  const parse = takeProcess(requestOf(bytes, filename, options), options.maxHeapMb ?? ISOLATED_PARSE_MAX_HEAP_MB);
  const { child } = parse;
  const children = new Set<number>();
  const hook = options.ocr?.onChildProcess;
  let markExited!: () => void;
  const exited = new Promise<void>((resolve) => (markExited = resolve));
  child.once('exit', () => markExited());
  const result = new Promise<ParsedDocument>((resolve, reject) => {
    let settled = false;
    let stopped = false;
    let grace: NodeJS.Timeout | undefined;
    const stop = (): void => {
      stopped = true;
      clearTimeout(timer);
      clearTimeout(grace);
      killChildren(children, hook);
      kill(parse);
    };
    const finish = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      stop();
      outcome();
    };
    /** A parse that ended well leaves its child for the next one (no OCR child can be left: each was reaped). */
    const succeed = (doc: ParsedDocument): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (children.size > 0) {
        stop();
      } else {
        void releaseProcess(parse).then(markExited);
      }
      resolve(doc);
    };
    /**
     * On timeout the child first kills and reaps its own OCR children (no zombies); the kill follows when it says
     * so, or after the grace. Asked even when no OCR child is known here: one it started may be on its way in a message.
     */
    const timeOut = (): void => {
      if (settled) return;
      settled = true;
      reject(parseTimeout(timeoutMs));
      if (child.connected) child.send({ type: 'abort' } satisfies ParseCommand);
      grace = setTimeout(stop, ABORT_GRACE_MS);
    };
    const timer = setTimeout(timeOut, timeoutMs);
    child.on('message', (reply: ParseReply) => {
      if (reply.type === 'child') {
        if (reply.running) children.add(reply.pid);
        else children.delete(reply.pid);
        hook?.(reply.pid, reply.running);
        // An OCR child announced after the parse child was stopped cannot be reaped by it any more: killed at least.
        if (stopped) killChildren(children, hook);
        return;
      }
      if (reply.type === 'aborted') return stop();
      if (reply.type === 'done' || reply.type === 'error') peakChildRssBytes = Math.max(peakChildRssBytes, reply.maxRssBytes);
      if (reply.type === 'done') succeed(reply.doc);
      else if (reply.type === 'error') finish(() => reject(new IngestError(reply.code, reply.message, { transient: reply.transient })));
      else finish(() => reject(parseCrashed(new Error(reply.detail))));
    });
    // A child that cannot be started (no memory, no process slot) is a crash of this parse, like one that dies.
    child.on('error', (error) => finish(() => reject(parseCrashed(error))));
    child.on('exit', (code, signal) => {
      // Its stderr may still be arriving: read the tail once the pipe has ended (or after STDERR_DRAIN_MS), then judge.
      const judge = () => finish(() => reject(endOf(parse, code, signal)));
      if (settled || !child.stderr || child.stderr.readableEnded) return judge();
      const drained = setTimeout(judge, STDERR_DRAIN_MS);
      child.stderr.once('end', () => {
        clearTimeout(drained);
        judge();
      });
    });
  });
  return { result, exited };
}

/**
 * Parses `bytes` in a child process (a fresh one, or one whose last parse ended well); resolves with the document or
 * rejects with an IngestError. OCR scratch files live in a directory this function owns and removes once the parse
 * is over, even when its child was killed.
 */
export async function parseDocumentIsolated(bytes: Buffer, filename: string, options: IsolatedParseOptions = {}): Promise<ParsedDocument> {
  const scratch = await mkdtemp(join(options.ocr?.tempDir ?? tmpdir(), 'ingest-parse-')).catch((error: unknown) => {
    throw tempUnavailable(error);
  });
  const run = runParse(bytes, filename, { ...options, ocr: { ...options.ocr, tempDir: scratch } });
  try {
    return await run.result;
  } finally {
    await run.exited;
    await rm(scratch, { recursive: true, force: true });
  }
}
