// The SQLite rate-limit repository, in the control database: sliding windows per (Client, bucket), shared
// by every process.

import type { Database } from './sqlite.ts';
import { cachedStatement, transaction } from './sqlite.ts';
import type { RateLimitRepository, RateWindowDecision } from './port.ts';

export class SqliteRateLimitRepository implements RateLimitRepository {
  private readonly db: Database;
  private readonly now: () => number;

  constructor(db: Database, now: () => number = Date.now) {
    this.db = db;
    this.now = now;
  }

  /**
   * One sliding window per (Client, bucket), shared by every process. Counts one request in each bucket if every bucket's window has room (all or nothing: a refused request is
   * counted nowhere). Each bucket keeps its hits' times and a running count, so a decision costs the same
   * whatever the limit: expired hits are deleted once and subtracted, and only a refusal looks up the oldest.
   */
  async takeSlots(clientId: string, buckets: readonly { bucket: string; limit: number }[], windowMs: number): Promise<RateWindowDecision> {
    const now = this.now();
    const db = this.db;
    return transaction(db, () => {
      let refused = false;
      let retryAfterMs = 0;
      for (const { bucket, limit } of buckets) {
        const expired = cachedStatement(db, 'DELETE FROM rate_hits WHERE client_id = ? AND bucket = ? AND at <= ?').run(clientId, bucket, now - windowMs).changes;
        if (expired > 0) cachedStatement(db, 'UPDATE rate_counts SET hits = MAX(0, hits - ?) WHERE client_id = ? AND bucket = ?').run(expired, clientId, bucket);
        const count = cachedStatement(db, 'SELECT hits FROM rate_counts WHERE client_id = ? AND bucket = ?').get(clientId, bucket) as { hits: number } | undefined;
        if ((count?.hits ?? 0) < limit) continue;
        const oldest = cachedStatement(db, 'SELECT MIN(at) AS at FROM rate_hits WHERE client_id = ? AND bucket = ?').get(clientId, bucket) as { at: number | null };
        refused = true;
        retryAfterMs = Math.max(retryAfterMs, (oldest.at ?? now) + windowMs - now);
      }
      if (refused) return { allowed: false, retryAfterMs };
      for (const { bucket } of buckets) {
        cachedStatement(db, 'INSERT INTO rate_hits (client_id, bucket, at) VALUES (?, ?, ?)').run(clientId, bucket, now);
        cachedStatement(db, 'INSERT INTO rate_counts (client_id, bucket, hits) VALUES (?, ?, 1) ON CONFLICT (client_id, bucket) DO UPDATE SET hits = hits + 1').run(clientId, bucket);
      }
      return { allowed: true, retryAfterMs: 0 };
    });
  }
}
