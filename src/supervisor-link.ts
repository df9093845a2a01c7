// The api and worker processes' side of the channel to the supervisor (node:cluster IPC): tell workers a
// job is waiting, and ask for the metrics of every process. Without a supervisor both degrade to no-ops.

/** How long an api process waits for the supervisor to gather every process's metrics. */
export const CLUSTER_METRICS_TIMEOUT_MS = 6_000;

export type SupervisorMessage =
  | { type: 'listening'; url: string }
  | { type: 'ready'; url?: string }
  | { type: 'wake' }
  | { type: 'metrics-request'; id: number }
  | { type: 'metrics-response'; id: number; text: string | null };

export function underSupervisor(): boolean {
  return typeof process.send === 'function' && process.connected;
}

export function tellSupervisor(message: SupervisorMessage): void {
  if (underSupervisor()) process.send!(message);
}

/** Asks the workers (through the supervisor) to look for new jobs now instead of at their next poll. */
export function wakeWorkers(): void {
  tellSupervisor({ type: 'wake' });
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
