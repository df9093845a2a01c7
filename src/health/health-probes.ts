// The store reads behind GET /health (the state store, the authority record, the lane schemas), each within
// HEALTH_PROBE_DEADLINE_MS (SPEC.md "Health probe deadline"). They run on a thread with its own connections
// (probe-thread.ts): a SQLite call is synchronous, so on the event loop a stuck one would hold /health, and
// every other request of the process, past the deadline. A probe that misses it reports its component as
// failed, and its thread is given up: the next probe starts a new one, whatever the stuck call does.
//
// Probes of other /health calls queued on that thread behind the stuck read did not miss anything of their own:
// they are made again on the new thread, each with a deadline of its own again (a read that never started gets
// its whole 2 seconds), so that one call's stuck state-store read never fails another call's authority probe
// (SPEC.md health rule 3: 200 degraded, not 503). They are re-made in the order they were first made, behind
// only the probes older than them, at most MAX_PROBE_RERUNS times: /health stays bounded while a store is stuck.

import { AbandonedRequestError, RequestThread } from '../runtime/request-thread.ts';
import type { AuthorityRecord } from '../storage/port.ts';
import type { StoreSettings } from '../config.ts';
import { HEALTH_PROBE_DEADLINE_MS } from '../spec-limits.ts';
import type { ProbeName, ProbeReply, ProbeRequest } from './probe-messages.ts';

const PROBE_THREAD = new URL('./probe-thread.ts', import.meta.url);

/**
 * How often a probe is made again after another probe's missed deadline gave up the thread it waited on. Each
 * time, some older probe held the thread for a whole deadline: with three /health calls overlapping on a stuck
 * store, the third call's probes wait out two of them. A probe still failed so then reports its component failed.
 */
export const MAX_PROBE_RERUNS = 2;

export class HealthProbes {
  private readonly thread: RequestThread<ProbeRequest, ProbeReply>;
  private readonly deadlineMs: number;
  /** Probes that missed their deadline so far (each gave its thread up). */
  late = 0;

  /**
   * `store`: where the durable store is (a data directory alone means SQLite there).
   * `deadlineMs`: each probe's (HEALTH_PROBE_DEADLINE_MS).
   */
  constructor(store: string | StoreSettings, options: { deadlineMs?: number } = {}) {
    // Only where the store is goes to the thread (not the whole configuration, with its keys).
    const settings: StoreSettings =
      typeof store === 'string'
        ? { store: 'sqlite', dataDir: store, databaseUrl: null, databasePoolMax: 1, clientConnectionsMax: 1, publicationEnabled: true }
        : {
            store: store.store,
            dataDir: store.dataDir,
            databaseUrl: store.databaseUrl,
            databasePoolMax: store.databasePoolMax,
            clientConnectionsMax: store.clientConnectionsMax,
            publicationEnabled: store.publicationEnabled,
          };
    this.thread = new RequestThread<ProbeRequest, ProbeReply>(PROBE_THREAD, 'health probe thread', {}, { workerData: { settings } });
    this.deadlineMs = options.deadlineMs ?? HEALTH_PROBE_DEADLINE_MS;
  }

  /** The probe's reply, or null when it failed or missed its deadline. */
  private async within<P extends ProbeName>(probe: P): Promise<Extract<ProbeReply, { probe: P }> | null> {
    for (let reruns = 0; ; reruns++) {
      const outcome = await this.attempt(probe);
      if (outcome !== 'abandoned') return outcome;
      if (reruns === MAX_PROBE_RERUNS) return null;
    }
  }

  /** One try of the probe within its deadline; 'abandoned' when another probe's lateness gave its thread up. */
  private async attempt<P extends ProbeName>(probe: P): Promise<Extract<ProbeReply, { probe: P }> | null | 'abandoned'> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), this.deadlineMs)));
    const answer = this.thread.request({ probe }).catch((error: unknown) => (error instanceof AbandonedRequestError ? ('abandoned' as const) : null));
    try {
      const outcome = await Promise.race([answer, late]);
      if (outcome === 'late') {
        this.late++;
        this.thread.abandon(`the ${probe} probe missed its ${this.deadlineMs} ms deadline`);
        return null;
      }
      return outcome as Extract<ProbeReply, { probe: P }> | null | 'abandoned';
    } finally {
      clearTimeout(timer);
    }
  }

  /** The control database and a bounded window of Client databases read (storage.ts probe). */
  async stateStore(): Promise<boolean> {
    return (await this.within('stateStore')) !== null;
  }

  /** The durable authority record, or null when it is missing, unreadable or late. */
  async authority(): Promise<AuthorityRecord | null> {
    return (await this.within('authority'))?.authority ?? null;
  }

  async laneSchemas(): Promise<{ engineVersion: string; schemas: string[] }> {
    const reply = await this.within('laneSchemas');
    if (!reply) throw new Error('the lane schemas could not be read in time');
    return reply.laneSchemas;
  }

  async provisionedClients(): Promise<number> {
    const reply = await this.within('provisionedClients');
    if (!reply) throw new Error('the provisioned Client stores could not be counted in time');
    return reply.provisioned;
  }

  close(): Promise<void> {
    return this.thread.close();
  }
}
