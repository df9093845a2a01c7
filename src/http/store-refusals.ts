// Whether the store has lately refused this process's writes for want of space, as /health reports it.
// SQLite's probe sees a full disk by its free space; PostgreSQL's cannot (a server tells its client how much
// its tables use, never how much room is left), and a full PostgreSQL disk still answers every read the
// probe makes. So the refusals themselves are the evidence: each write answered 507 storage_full is noted,
// and the state store is degraded until a write that needed room is accepted again (a 202: a job was
// recorded) or STORE_FULL_REPORT_MS pass without another refusal.

import { STORE_FULL_REPORT_MS } from './rate-limit.ts';
import type { StoreFailure } from '../domain/store-failure.ts';

export class StoreRefusals {
  private readonly now: () => number;
  /** When (this process's clock) a write was last refused for want of space, or null. */
  private refusedAt: number | null = null;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  /** Notes `failure` when it is a full store; returns it as it is (the error handler answers it). */
  seen(failure: StoreFailure | null): StoreFailure | null {
    if (failure?.kind === 'full') this.refusedAt = this.now();
    return failure;
  }

  /** A write that needed room was accepted: the store has room again. */
  writeAccepted(): void {
    this.refusedAt = null;
  }

  get refusingWrites(): boolean {
    return this.refusedAt !== null && this.now() - this.refusedAt < STORE_FULL_REPORT_MS;
  }
}
