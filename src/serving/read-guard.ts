// The read guard of an api process: at request start it reads the durable authority mode and the Client's
// log head (one indexed read each) and catches the snapshot up before serving, so every read observes every
// publication committed before it started, whichever api process serves it. It never serves a partial state.
// Requests side by side share those reads, but only reads begun after they arrived (runtime/fresh-reads.ts).

import type { AuthorityRecord, StoragePort } from '../storage/port.ts';
import { ServiceError } from '../domain/service-error.ts';
import type { AuthorityMode, PublicationView } from '../domain/publication-log.ts';
import { AuthorityUnreadable } from '../domain/publication-log.ts';
import type { ServingIndex } from './serving-index.ts';
import type { ClientSnapshot } from './snapshot.ts';
import { FreshReads } from '../runtime/fresh-reads.ts';

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

/** What a status answer reads of the snapshot (ReadGuard.observe). */
export type SnapshotReads =
  | 'everything'
  | 'nothing'
  | { documentId: string; versionKey: string; served: (snapshot: ClientSnapshot) => boolean };

const EVERYTHING: SnapshotReads = 'everything';

export class ReadGuard {
  private readonly storage: StoragePort;
  private readonly index: ServingIndex;
  private readonly options: ReadGuardOptions;
  /** RECOVERING belongs to this process: true until its snapshots are built. */
  private recovering = true;
  recoveredAt: string | null = null;
  /** The durable authority record (one key: the deployment has one). */
  private readonly authorityReads: FreshReads<'authority', AuthorityRecord>;
  /** A Client's log head, as far as a fence lets it be read: keyed by the Client and the fence's start. */
  private readonly headReads: FreshReads<string, number>;

  constructor(storage: StoragePort, index: ServingIndex, options: ReadGuardOptions) {
    this.storage = storage;
    this.index = index;
    this.options = options;
    this.authorityReads = new FreshReads(() => this.storage.authority.authority());
    this.headReads = new FreshReads((key) => {
      const [clientId, until] = JSON.parse(key) as [string, string | null];
      return this.storage.client(clientId).publicationLog.head(until ?? undefined);
    });
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

  /** The mode this process reports and, in FENCING, when the fence began (reads are pinned to what came before). */
  private async state(): Promise<{ mode: AuthorityMode; fencedAt: string | null }> {
    if (this.recovering) return { mode: 'RECOVERING', fencedAt: null };
    if (!this.options.enabled) return { mode: 'DISABLED', fencedAt: null };
    let record;
    try {
      record = await this.authorityReads.get('authority');
    } catch (error) {
      // Corrupted publication state: every read fails closed, retryably, until an operator repairs it.
      if (error instanceof AuthorityUnreadable) throw new ServiceError('publication_authority_inconsistent', 'The publication authority record is missing or unreadable');
      throw error;
    }
    return { mode: record.mode, fencedAt: record.mode === 'FENCING' ? record.changedAt : null };
  }

  /** The mode this process reports: its own RECOVERING first, then the durable record (DISABLED without publication). */
  async mode(): Promise<AuthorityMode> {
    return (await this.state()).mode;
  }

  /**
   * How far the log may be applied now: everything (null), what was committed before the fence began (an
   * ISO time), or nothing (false: recovering or in maintenance).
   */
  async applicableUntil(): Promise<string | null | false> {
    const { mode, fencedAt } = await this.state();
    if (mode === 'READY' || mode === 'DISABLED') return null;
    return mode === 'FENCING' ? fencedAt : false;
  }

  /**
   * READY and DISABLED serve the snapshot caught up to the Client's log head. FENCING pins the last READY
   * publication: the snapshot caught up to what was committed before the fence began (writers stage but do
   * not activate meanwhile). Every other mode fails closed with a retryable 503.
   */
  async guard(clientId: string): Promise<GuardedRead> {
    const { mode, fencedAt } = await this.state();
    switch (mode) {
      case 'RECOVERING':
        throw new ServiceError('publication_unavailable', 'Publication authority is recovering');
      case 'MAINTENANCE':
        throw new ServiceError('publication_busy', 'Publication authority is in maintenance');
      case 'FENCING':
        await this.catchUp(clientId, fencedAt ?? undefined);
        return { view: 'pinned_ready', snapshot: this.index.snapshot(clientId) };
      case 'READY':
      case 'DISABLED':
        await this.catchUp(clientId);
        return { view: 'ready', snapshot: this.index.snapshot(clientId) };
    }
  }

  /**
   * For status polls, which must stay readable in every mode: the snapshot, caught up first as far as the
   * mode lets the log be applied. Never refuses. `reads` says what the answer reads of it, so that a catch-up
   * that could not change the answer is spared (during bulk ingest, a catch-up and a small segment per poll):
   * - `nothing` (a job in flight, failed or superseded): the snapshot is served as it is, and a Client this process
   *   has not loaded stays unloaded (its empty snapshot answers): a poll would otherwise load all of a large Client
   *   for an answer that reads none of it, and answer 503 once the load outran the catch-up deadline;
   * - one Document Version, with whether the snapshot already serves what the answer looks for: when it does and
   *   no entry after what was applied names that version, catching up would change nothing the answer reads.
   */
  async observe(clientId: string, reads: SnapshotReads = EVERYTHING): Promise<ClientSnapshot> {
    if (reads === 'nothing') return this.index.snapshot(clientId);
    const until = await this.applicableUntil();
    if (until === false) return this.index.snapshot(clientId);
    if (reads !== 'everything' && this.index.isLoaded(clientId) && reads.served(this.index.snapshot(clientId))) {
      const applied = this.index.appliedSeq(clientId);
      const touched = await this.storage.client(clientId).publicationLog.touchedSince(applied, reads.documentId, reads.versionKey, until ?? undefined);
      if (!touched) return this.index.snapshot(clientId);
    }
    await this.catchUp(clientId, until ?? undefined);
    return this.index.snapshot(clientId);
  }

  private async catchUp(clientId: string, until?: string): Promise<void> {
    const head = await this.headReads.get(JSON.stringify([clientId, until ?? null]));
    if (this.index.appliedSeq(clientId) >= head) return;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), this.options.catchUpDeadlineMs)));
    try {
      const outcome = await Promise.race([this.index.catchUp(clientId, head, until).then(() => 'done' as const), deadline]);
      if (outcome === 'late') throw new ServiceError('publication_unavailable', 'The serving snapshot could not catch up with the publication log in time');
    } finally {
      clearTimeout(timer);
    }
  }
}
