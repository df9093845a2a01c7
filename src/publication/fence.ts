// The per-Client lifecycle fence: one lifecycle writer at a time across every api process, held as a lease
// in the durable store. A writer waits a bounded time for its turn; a holder that dies frees it at expiry.

import { randomUUID } from 'node:crypto';
import type { AuthorityRepository } from '../storage/port.ts';

/** How often a waiting writer asks for the fence again. */
export const FENCE_POLL_MS = 20;
/** Lease time of a held fence; renewed while its holder works, so only a dead holder lets it expire. */
export const FENCE_LEASE_MS = 3_000;

export class FenceTimeout extends Error {
  constructor() {
    super('publication fence wait exceeded');
    this.name = 'FenceTimeout';
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function fenceName(clientId: string): string {
  return `fence:${clientId}`;
}

export class LifecycleFence {
  private readonly authority: AuthorityRepository;
  private readonly leaseMs: number;

  constructor(authority: AuthorityRepository, leaseMs = FENCE_LEASE_MS) {
    this.authority = authority;
    this.leaseMs = leaseMs;
  }

  /** Runs fn while holding the Client's fence; rejects with FenceTimeout if it is not free within waitMs. */
  async run<T>(clientId: string, waitMs: number, fn: () => Promise<T>): Promise<T> {
    const name = fenceName(clientId);
    const owner = `fence-${process.pid}-${randomUUID()}`;
    const deadline = Date.now() + waitMs;
    while (!(await this.authority.acquireLease(name, owner, this.leaseMs))) {
      if (Date.now() >= deadline) throw new FenceTimeout();
      await sleep(Math.min(FENCE_POLL_MS, Math.max(1, deadline - Date.now())));
    }
    const renew = setInterval(() => void this.authority.renewLease(name, owner, this.leaseMs).catch(() => {}), this.leaseMs / 3);
    try {
      return await fn();
    } finally {
      clearInterval(renew);
      // A fence that cannot be released (a full or unreachable store) expires with its lease; what fn did, or
      // the error that stopped it, is what the caller must hear: a delete that took effect never answers 500.
      await this.authority.releaseLease(name, owner).catch(() => {});
    }
  }

  /** True while some writer holds the Client's fence. */
  async held(clientId: string): Promise<boolean> {
    return (await this.authority.leaseHolder(fenceName(clientId))) !== null;
  }
}
