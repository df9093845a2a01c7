// The follower of an api process: applies new publication-log entries of every loaded Client in the background,
// so the read guard rarely has to catch up on the request path. While FENCING it applies only what was
// committed before the fence began; in MAINTENANCE and while recovering it waits.

import type { StoragePort } from '../storage/port.ts';
import type { ServingIndex } from './serving-index.ts';
import type { ReadGuard } from './read-guard.ts';

export class Follower {
  private readonly storage: StoragePort;
  private readonly index: ServingIndex;
  private readonly guard: ReadGuard;
  private readonly pollMs: number;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private onError: (error: unknown) => void;

  constructor(deps: { storage: StoragePort; index: ServingIndex; guard: ReadGuard; pollMs: number; onError?: (error: unknown) => void }) {
    this.storage = deps.storage;
    this.index = deps.index;
    this.guard = deps.guard;
    this.pollMs = deps.pollMs;
    this.onError = deps.onError ?? (() => {});
  }

  start(): void {
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.tick().catch(this.onError).finally(() => this.schedule());
    }, this.pollMs);
    this.timer.unref();
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
      const head = await this.storage.client(clientId).publicationLog.head(until ?? undefined);
      if (head > this.index.appliedSeq(clientId)) await this.index.catchUp(clientId, head, until ?? undefined);
    }
  }
}
