// One worker thread answering numbered requests: each request carries an id, each reply the same id and either
// its answer or an error. A thread that dies, or is abandoned, fails every request it held and is replaced on
// the next one; a request failed by an abandonment it did not cause says so (AbandonedRequestError), so that its
// caller can make it again on the new thread. The segment thread of an api process, the lanes thread of a worker process and the health
// probes' thread are driven through it.
//
// A thread closed (recycled) is let exit before the next one starts. glibc's malloc gives each thread an arena and
// hands an exited thread's arena to the next thread that starts; a thread started while the one before it still
// runs gets an arena of its own instead, and the process keeps the pages of both (about 30 MiB more per api
// process under mixed load, for good, at whatever minute the first recycle overlapped a request).

import { Worker } from 'node:worker_threads';
import type { ResourceLimits } from 'node:worker_threads';

/** A request without its id, for each kind of a union (Omit over the union would merge the kinds). */
export type Unnumbered<T> = T extends unknown ? Omit<T, 'id'> : never;

type Failed = { id: number; error: string };

/**
 * A request failed because its thread was given up on (RequestThread.abandon), whatever it asked: the request
 * itself may never have started, queued behind the one that held the thread. Its caller may make it again.
 */
export class AbandonedRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AbandonedRequestError';
  }
}

export interface RequestThreadHooks {
  /** A new thread was started (the first request, or the first after one ended). */
  started?(): void;
  /** A reply was handed to its caller. */
  replied?(): void;
}

export interface RequestThreadOptions {
  /** What each thread started finds in worker_threads' workerData. */
  workerData?: unknown;
  /** Heap limits of each thread started (a thread that holds little keeps a small young generation). */
  resourceLimits?: ResourceLimits;
}

export class RequestThread<Request extends { id: number }, Reply extends { id: number }> {
  private readonly url: URL;
  /** Names the thread in the errors it causes. */
  private readonly label: string;
  private readonly hooks: RequestThreadHooks;
  private thread: Worker | null = null;
  /** The exit of the thread last closed, while it is ending: the next thread starts after it. */
  private ending: Promise<void> | null = null;
  /** Requests made while `ending`, sent to the next thread once it starts. */
  private queued: { message: Unnumbered<Request> & { id: number }; transfer: ArrayBuffer[] }[] = [];
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (reply: Exclude<Reply, Failed>) => void; reject: (error: Error) => void }>();

  private readonly options: RequestThreadOptions;

  constructor(url: URL, label: string, hooks: RequestThreadHooks = {}, options: RequestThreadOptions = {}) {
    this.url = url;
    this.label = label;
    this.hooks = hooks;
    this.options = options;
  }

  /** True while a thread is started (what it holds goes with it when it ends). */
  get running(): boolean {
    return this.thread !== null;
  }

  /** Requests sent and not answered yet. */
  get waiting(): number {
    return this.pending.size;
  }

  private ensureThread(): Worker {
    if (this.thread) return this.thread;
    // Named for what it does: the label is the thread's name in /proc (bench/ reports CPU by thread) and in diagnostics.
    const thread = new Worker(this.url, { name: this.label, workerData: this.options.workerData, resourceLimits: this.options.resourceLimits });
    thread.unref(); // never keeps the process alive on its own
    thread.on('message', (reply: Reply | Failed) => {
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      if ('error' in reply) waiting.reject(new Error(`${this.label}: ${reply.error}`));
      else waiting.resolve(reply as Exclude<Reply, Failed>);
      this.hooks.replied?.();
    });
    const fail = (error: Error) => {
      if (this.thread !== thread) return;
      this.thread = null;
      for (const waiting of this.pending.values()) waiting.reject(error);
      this.pending.clear();
    };
    thread.on('error', fail);
    thread.on('exit', (code) => fail(new Error(`${this.label} exited with code ${code}`)));
    this.thread = thread;
    this.hooks.started?.();
    return thread;
  }

  /** `transfer`: buffers moved to the thread instead of copied (the caller no longer reads them). */
  request(message: Unnumbered<Request>, transfer: ArrayBuffer[] = []): Promise<Exclude<Reply, Failed>> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      const numbered = { ...message, id };
      if (this.ending && !this.thread) this.queued.push({ message: numbered, transfer });
      else this.post(numbered, transfer);
    });
  }

  /** Sends a request to the thread (started if none runs); one that cannot be sent fails alone. */
  private post(message: Unnumbered<Request> & { id: number }, transfer: ArrayBuffer[]): void {
    try {
      this.ensureThread().postMessage(message, transfer);
    } catch (error) {
      const waiting = this.pending.get(message.id);
      this.pending.delete(message.id);
      waiting?.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /**
   * Starts the next thread once the one closed before it has exited, with the requests made meanwhile (a turn of
   * the event loop later, so that whoever awaited the close has seen it first).
   */
  private startAfter(exited: Promise<void>): void {
    const ending = exited.then(() => new Promise<void>((resolve) => setImmediate(resolve))).then(() => {
      if (this.ending !== ending) return;
      this.ending = null;
      const queued = this.queued;
      this.queued = [];
      for (const { message, transfer } of queued) this.post(message, transfer);
    });
    this.ending = ending;
  }

  /** What the thread's isolate holds (heap and external memory), or 0 while there is none. */
  async heapBytes(): Promise<number> {
    const thread = this.thread;
    if (!thread) return 0;
    try {
      const heap = await thread.getHeapStatistics();
      return heap.total_heap_size + heap.external_memory;
    } catch {
      return 0; // it ended meanwhile
    }
  }

  /**
   * Gives up on the current thread (one stuck in a call that cannot be interrupted, say): its requests fail
   * now with an AbandonedRequestError, it is terminated as soon as it can be, and the next request starts a new
   * thread. Which request held the thread is the caller's to know: the others, made again, run on the new one.
   */
  abandon(reason: string): void {
    const thread = this.thread;
    if (!thread) return;
    this.thread = null;
    const error = new AbandonedRequestError(`${this.label}: ${reason}`);
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
    void thread.terminate().catch(() => undefined);
  }

  /**
   * Ends the current thread; a request made before it has exited waits for that and goes to a new thread.
   * (`abandon` does not wait: the thread it gives up on may take long to end.) Closed again before then (shutdown
   * during a recycle), the requests waiting fail and no new thread starts.
   */
  async close(): Promise<void> {
    const thread = this.thread;
    this.thread = null;
    if (!thread) {
      const queued = this.queued;
      this.queued = [];
      for (const { message } of queued) {
        this.pending.get(message.id)?.reject(new Error(`${this.label}: closed`));
        this.pending.delete(message.id);
      }
      return this.ending ?? undefined;
    }
    const exited = thread.terminate().then(
      () => undefined,
      () => undefined,
    );
    this.startAfter(exited);
    await exited;
  }
}
