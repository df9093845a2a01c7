// The SQLite rate-limit repository, in the control database: sliding windows per (Client, bucket), shared
// by every process.

import type { Database } from './database.ts';
import { cachedStatement, transaction } from './database.ts';
import type { RateBatchPolicy, RateLimitRepository, RateSlotRequest, RateWindowDecision } from '../port.ts';

/** Slots counted for a bucket with `room` left: a batch of up to `wanted` when the policy allows one, else 1. */
export function slotsToCount(wanted: number, room: number, batch: RateBatchPolicy | undefined): number {
  if (batch === undefined || wanted <= 1 || room < batch.minRoom) return 1;
  return Math.max(1, Math.min(wanted, Math.floor(room / batch.roomShare)));
}

export class SqliteRateLimitRepository implements RateLimitRepository {
  private readonly db: Database;
  private readonly now: () => number;

  constructor(db: Database, now: () => number = Date.now) {
    this.db = db;
    this.now = now;
  }

  /**
   * One sliding window per (Client, bucket), shared by every process. Counts one request (or a batch) in each
   * bucket if every bucket's window has room (all or nothing: a refused request is counted nowhere). Each
   * bucket keeps its hits' times and a running count, so a decision costs the same whatever the limit: expired
   * hits are deleted once and subtracted, and only a refusal looks up the oldest.
   */
  async takeSlots(clientId: string, buckets: readonly RateSlotRequest[], windowMs: number, batch?: RateBatchPolicy): Promise<RateWindowDecision> {
    const now = this.now();
    const db = this.db;
    return transaction(db, () => {
      let refused = false;
      let retryAfterMs = 0;
      const rooms: number[] = [];
      for (const { bucket, limit } of buckets) {
        const expired = cachedStatement(db, 'DELETE FROM rate_hits WHERE client_id = ? AND bucket = ? AND at <= ?').run(clientId, bucket, now - windowMs).changes;
        if (expired > 0) cachedStatement(db, 'UPDATE rate_counts SET hits = MAX(0, hits - ?) WHERE client_id = ? AND bucket = ?').run(expired, clientId, bucket);
        const count = cachedStatement(db, 'SELECT hits FROM rate_counts WHERE client_id = ? AND bucket = ?').get(clientId, bucket) as { hits: number } | undefined;
        const room = limit - (count?.hits ?? 0);
        rooms.push(room);
        if (room > 0) continue;
        const oldest = cachedStatement(db, 'SELECT MIN(at) AS at FROM rate_hits WHERE client_id = ? AND bucket = ?').get(clientId, bucket) as { at: number | null };
        refused = true;
        retryAfterMs = Math.max(retryAfterMs, (oldest.at ?? now) + windowMs - now);
      }
      if (refused) return { allowed: false, retryAfterMs, granted: [], stampedAt: now };
      const stampedAt = now + (batch?.lifetimeMs ?? 0);
      const granted = buckets.map(({ bucket, wanted = 1 }, at) => {
        const slots = slotsToCount(wanted, rooms[at], batch);
        const insert = cachedStatement(db, 'INSERT INTO rate_hits (client_id, bucket, at) VALUES (?, ?, ?)');
        for (let slot = 0; slot < slots; slot++) insert.run(clientId, bucket, slots > 1 ? stampedAt : now);
        cachedStatement(db, 'INSERT INTO rate_counts (client_id, bucket, hits) VALUES (?, ?, ?) ON CONFLICT (client_id, bucket) DO UPDATE SET hits = hits + excluded.hits').run(clientId, bucket, slots);
        return slots;
      });
      return { allowed: true, retryAfterMs: 0, granted, stampedAt };
    });
  }

  async returnSlots(clientId: string, bucket: string, count: number, stampedAt: number): Promise<void> {
    const db = this.db;
    transaction(db, () => {
      const returned = cachedStatement(db, 'DELETE FROM rate_hits WHERE seq IN (SELECT seq FROM rate_hits WHERE client_id = ? AND bucket = ? AND at = ? LIMIT ?)').run(clientId, bucket, stampedAt, count).changes;
      if (returned > 0) cachedStatement(db, 'UPDATE rate_counts SET hits = MAX(0, hits - ?) WHERE client_id = ? AND bucket = ?').run(returned, clientId, bucket);
    });
  }

  async countSlots(clientId: string, bucket: string, windowMs: number): Promise<number> {
    const row = cachedStatement(this.db, 'SELECT COUNT(*) AS hits FROM rate_hits WHERE client_id = ? AND bucket = ? AND at > ?').get(clientId, bucket, this.now() - windowMs) as { hits: number };
    return row.hits;
  }

  async recordSlots(clientId: string, bucket: string, agesMs: readonly number[]): Promise<void> {
    if (agesMs.length === 0) return;
    const db = this.db;
    const now = this.now();
    transaction(db, () => {
      const insert = cachedStatement(db, 'INSERT INTO rate_hits (client_id, bucket, at) VALUES (?, ?, ?)');
      for (const age of agesMs) insert.run(clientId, bucket, now - age);
      cachedStatement(db, 'INSERT INTO rate_counts (client_id, bucket, hits) VALUES (?, ?, ?) ON CONFLICT (client_id, bucket) DO UPDATE SET hits = hits + excluded.hits').run(clientId, bucket, agesMs.length);
    });
  }
}
