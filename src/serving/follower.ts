// The follower of an api process: applies new publication-log entries of every loaded Client in the background,
// so the read guard rarely has to catch up on the request path. While FENCING it applies only what the
// fence's position in the log covers; in MAINTENANCE and while recovering it waits.
// A store that announces publications (PostgreSQL's NOTIFY) wakes it for the Client that published, and the
// poll is then only a backstop; a store that does not (SQLite) is polled every FOLLOWER_POLL_MS.
// An announcement of a Client not loaded here may be another host's hard delete: this host's cache files of it are
// swept. Announcements committed before the watch listens (or while its connection was lost) are not heard, so once
// it listens, and again after each reconnect, every Client with cache files here is swept (`sweepHeld`).

import type { PublicationWatch, StoragePort } from '../storage/port.ts';
import type { ServingIndex } from './serving-index.ts';
import type { ReadGuard } from './read-guard.ts';

/** The poll of a follower whose store announces publications: a backstop, since announcements wake it first. */
export const FOLLOWER_BACKSTOP_POLL_MS = 5_000;

export class Follower {
  private readonly storage: StoragePort;
  private readonly index: ServingIndex;
  private readonly guard: ReadGuard;
  private readonly pollMs: number;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private watch: PublicationWatch | null = null;
  /** Passes run one after another (announcements and polls). */
  private passes: Promise<void> = Promise.resolve();
  private onError: (error: unknown) => void;

  /** Sweeps this host's cache files of a Client not loaded here (caches/cache-sweep.ts). */
  private readonly sweep: (clientId: string) => Promise<unknown>;
  /** Sweeps every Client with cache files here (announcements may have been missed). */
  private readonly sweepHeld: () => Promise<void>;

  constructor(deps: {
    storage: StoragePort;
    index: ServingIndex;
    guard: ReadGuard;
    pollMs: number;
    sweep?: (clientId: string) => Promise<unknown>;
    sweepHeld?: () => Promise<unknown>;
    onError?: (error: unknown) => void;
  }) {
    this.storage = deps.storage;
    this.sweep = deps.sweep ?? (async () => undefined);
    const sweepHeld = deps.sweepHeld;
    this.sweepHeld = async () => void (await sweepHeld?.());
    this.index = deps.index;
    this.guard = deps.guard;
    this.pollMs = deps.pollMs;
    this.onError = deps.onError ?? (() => {});
  }

  /** Starts polling, and listening when the store announces publications. */
  start(): void {
    this.watch = this.storage.watchPublications?.((clientId) => void this.pass(() => (clientId === null ? this.missed() : this.tickClient(clientId)))) ?? null;
    // What was announced before the watch listened went unheard: a hard delete on another host among it is swept.
    void this.watch?.listening.then(() => this.pass(() => this.sweepHeld()));
    this.schedule();
  }

  /** Announcements may have been missed: every loaded Client is caught up and every Client held here swept. */
  private async missed(): Promise<void> {
    await this.tick();
    await this.sweepHeld();
  }

  /** Settles once announcements are heard (at once for a store that is polled). */
  async listening(): Promise<void> {
    await this.watch?.listening;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.watch?.stop();
  }

  private pass(run: () => Promise<void>): Promise<void> {
    this.passes = this.passes.then(() => (this.stopped ? undefined : run())).catch(this.onError);
    return this.passes;
  }

  private schedule(): void {
    if (this.stopped) return;
    const pollMs = this.watch ? Math.max(this.pollMs, FOLLOWER_BACKSTOP_POLL_MS) : this.pollMs;
    this.timer = setTimeout(() => {
      void this.pass(() => this.tick()).finally(() => this.schedule());
    }, pollMs);
    this.timer.unref();
  }

  /**
   * One announced publication: the Client is caught up if it is loaded (one that is not loads current on its first
   * read). For one that is not, it may be a hard delete on another host: this host's cache files of it are swept.
   */
  private async tickClient(clientId: string): Promise<void> {
    if (!this.index.isLoaded(clientId)) {
      await this.sweep(clientId);
      return;
    }
    const until = await this.guard.applicableUntil();
    if (until === false) return;
    await this.catchUp(clientId, until);
  }

  private async catchUp(clientId: string, until: string | null): Promise<void> {
    const head = await this.storage.client(clientId).publicationLog.head(until ?? undefined);
    if (head > this.index.appliedSeq(clientId)) await this.index.catchUp(clientId, head, until ?? undefined);
  }

  /**
   * One pass: every loaded Client whose log moved is caught up, as far as the authority mode allows. Clients
   * not loaded are left alone: their first read loads them current.
   */
  async tick(): Promise<void> {
    const until = await this.guard.applicableUntil();
    if (until === false) return;
    for (const clientId of this.index.loadedClientIds()) {
      if (this.stopped) return;
      await this.catchUp(clientId, until);
    }
  }
}
