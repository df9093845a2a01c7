// The read guard of an api process: at request start it reads the durable authority mode and the Client's
// log head (one indexed read each) and catches the snapshot up before serving, so every read observes every
// publication committed before it started, whichever api process serves it. It never serves a partial state.

import type { StoragePort } from '../storage/port.ts';
import { ServiceError } from '../domain/service-error.ts';
import type { AuthorityMode, PublicationView } from '../domain/publication-log.ts';
import type { ServingIndex } from './serving-index.ts';
import type { ClientSnapshot } from './snapshot.ts';

export interface GuardedRead {
  view: PublicationView;
  snapshot: ClientSnapshot;
}

export interface ReadGuardOptions {
  /** PUBLICATION_ENABLED: without it there is no authority to consult and the mode is DISABLED. */
  enabled: boolean;
  /** How long a read may wait for its snapshot to catch up before failing closed with 503. */
  catchUpDeadlineMs: number;
}

export class ReadGuard {
  private readonly storage: StoragePort;
  private readonly index: ServingIndex;
  private readonly options: ReadGuardOptions;
  /** RECOVERING belongs to this process: true until its snapshots are built. */
  private recovering = true;
  recoveredAt: string | null = null;

  constructor(storage: StoragePort, index: ServingIndex, options: ReadGuardOptions) {
    this.storage = storage;
    this.index = index;
    this.options = options;
  }

  get enabled(): boolean {
    return this.options.enabled;
  }

  get isRecovering(): boolean {
    return this.recovering;
  }

  /** Marks this process's snapshots as built: RECOVERING ends. */
  recovered(): void {
    this.recovering = false;
    this.recoveredAt = new Date().toISOString();
  }

  /** The mode this process reports: its own RECOVERING first, then the durable record (DISABLED without publication). */
  async mode(): Promise<AuthorityMode> {
    if (this.recovering) return 'RECOVERING';
    if (!this.options.enabled) return 'DISABLED';
    return (await this.storage.control.authority()).mode;
  }

  /**
   * READY and DISABLED serve the snapshot caught up to the Client's log head; FENCING pins the last READY
   * snapshot (the follower stops applying while fenced, and writers do not activate); every other mode fails
   * closed with a retryable 503.
   */
  async guard(clientId: string): Promise<GuardedRead> {
    const mode = await this.mode();
    switch (mode) {
      case 'RECOVERING':
        throw new ServiceError('publication_unavailable', 'Publication authority is recovering');
      case 'MAINTENANCE':
        throw new ServiceError('publication_busy', 'Publication authority is in maintenance');
      case 'FENCING':
        return { view: 'pinned_ready', snapshot: this.index.snapshot(clientId) };
      case 'READY':
      case 'DISABLED':
        await this.catchUp(clientId);
        return { view: 'ready', snapshot: this.index.snapshot(clientId) };
    }
  }

  /**
   * For status polls, which must stay readable in every mode: the snapshot, caught up first when the mode
   * lets the follower apply the log (READY, DISABLED). Never refuses.
   */
  async observe(clientId: string): Promise<ClientSnapshot> {
    const mode = await this.mode();
    if (mode === 'READY' || mode === 'DISABLED') await this.catchUp(clientId);
    return this.index.snapshot(clientId);
  }

  private async catchUp(clientId: string): Promise<void> {
    const head = await this.storage.client(clientId).logHead();
    if (this.index.appliedSeq(clientId) >= head) return;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), this.options.catchUpDeadlineMs)));
    try {
      const outcome = await Promise.race([this.index.catchUp(clientId, head).then(() => 'done' as const), deadline]);
      if (outcome === 'late') throw new ServiceError('publication_unavailable', 'The serving snapshot could not catch up with the publication log in time');
    } finally {
      clearTimeout(timer);
    }
  }
}
