// The api and worker processes' side of the channel to the supervisor (node:cluster IPC): tell workers a
// job is waiting, and ask for the metrics of every process. Without a supervisor both degrade to no-ops.

/** How long an api process waits for the supervisor to gather every process's metrics. */
export const CLUSTER_METRICS_TIMEOUT_MS = 6_000;

export type SupervisorMessage =
  | { type: 'listening'; url: string }
  | { type: 'ready'; url?: string }
  | { type: 'wake' }
  /** Api process to supervisor: its connections that carried an answer lately (http/connection-balance.ts). */
  | { type: 'connections'; active: number }
  /** Supervisor to api process: close this many of those connections, each after its next answer. */
  | { type: 'shed'; count: number }
  | { type: 'metrics-request'; id: number }
  | { type: 'metrics-response'; id: number; text: string | null };

export function underSupervisor(): boolean {
  return typeof process.send === 'function' && process.connected;
}

export function tellSupervisor(message: SupervisorMessage): void {
  if (underSupervisor()) process.send!(message);
}

/**
 * Wakes closer together than this go out as one. In a bulk load an api process accepts an upload every few
 * milliseconds, and each wake is a message the supervisor relays to every worker: coalescing them spares those
 * processes most of that traffic, while every enqueued job is still followed by a wake within this time (the
 * workers' poll, WORKER_POLL_MS, remains the fallback, and a worker with jobs in hand looks again as each ends).
 */
export const WAKE_COALESCE_MS = 25;

/**
 * Sends a wake at once when none went out in the last `windowMs`, otherwise once at the end of that window:
 * never more than one per window, and never later than `windowMs` after a call.
 */
export class WakeCoalescer {
  private readonly send: () => void;
  private readonly windowMs: number;
  private readonly now: () => number;
  private lastSentAt = -Infinity;
  private pending: NodeJS.Timeout | null = null;

  constructor(send: () => void, windowMs: number = WAKE_COALESCE_MS, now: () => number = () => performance.now()) {
    this.send = send;
    this.windowMs = windowMs;
    this.now = now;
  }

  wake(): void {
    if (this.pending) return; // the wake due at the end of this window covers the call
    const since = this.now() - this.lastSentAt;
    if (since >= this.windowMs) {
      this.fire();
      return;
    }
    this.pending = setTimeout(() => {
      this.pending = null;
      this.fire();
    }, this.windowMs - since);
    this.pending.unref(); // a process that exits meanwhile loses nothing: the job is durable and workers poll
  }

  private fire(): void {
    this.lastSentAt = this.now();
    this.send();
  }
}

const workerWakes = new WakeCoalescer(() => tellSupervisor({ type: 'wake' }));

/** Asks the workers (through the supervisor) to look for new jobs now instead of at their next poll. */
export function wakeWorkers(): void {
  workerWakes.wake();
}

/**
 * Every `intervalMs`, tells the supervisor how many connections carried an answer lately (`active`), and runs `shed`
 * when it asks this process to shed some (runtime/connection-shares.ts decides how many).
 */
export function shareConnections(active: () => number, shed: (count: number) => void, intervalMs: number): void {
  if (!underSupervisor()) return;
  process.on('message', (message: SupervisorMessage) => {
    if (message?.type === 'shed') shed(message.count);
  });
  setInterval(() => tellSupervisor({ type: 'connections', active: active() }), intervalMs).unref();
}

let nextRequest = 1;
const pending = new Map<number, (text: string | null) => void>();
let listening = false;

/** The Prometheus exposition of every process, gathered by the supervisor. */
export function requestClusterMetrics(): Promise<string> {
  if (!listening) {
    listening = true;
    process.on('message', (message: SupervisorMessage) => {
      if (message?.type !== 'metrics-response') return;
      pending.get(message.id)?.(message.text);
      pending.delete(message.id);
    });
  }
  const id = nextRequest++;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      pending.delete(id);
      reject(new Error('the supervisor did not answer with metrics in time'));
    }, CLUSTER_METRICS_TIMEOUT_MS);
    pending.set(id, (text) => {
      clearTimeout(timer);
      if (text === null) reject(new Error('the supervisor could not gather metrics'));
      else resolve(text);
    });
    tellSupervisor({ type: 'metrics-request', id });
  });
}
