// The SQLite publication log of one Client: appended inside the transactions that activate or remove
// versions, read by followers to replay what changed since their position.

import type { ClientDatabase } from './client-database.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { SQLITE_BUSY_TIMEOUT_MS, cachedStatement, readTransaction, transactionIfFree } from './database.ts';
import { readServingGeneration } from './generation-reads.ts';
import type { PublicationChanges, PublicationLogRepository } from '../port.ts';
import type { PublicationLogKind } from '../../domain/publication-log.ts';
import type { ServingGeneration } from '../../domain/generation.ts';
import { ServiceError } from '../../domain/service-error.ts';
import { PUBLICATION_RETRY_AFTER_SECONDS } from '../../spec-limits.ts';
import { storeFailureOf } from '../shared/store-failures.ts';
import { compactedPast, compactionCeiling, replaysNothing, toLogEntry } from '../shared/publication-log-rows.ts';
import type { LogRow } from '../shared/publication-log-rows.ts';

/** How often the first read in a fence tries again for the write lock that recording the fence's position takes. */
export const FENCE_POSITION_RETRY_MS = 5;

/** How a Client's log is appended to. */
export interface LogPolicy {
  /** Entries kept (followers further behind rebuild). */
  retained: number;
  /**
   * With PUBLICATION_ENABLED: throws PublicationPaused unless the authority is READY, read in the transaction
   * that appends, after it took the Client file's write lock. The authority lives in the control database, so
   * the check does not serialize with an operator's mode change the way the PostgreSQL adapter's row lock does:
   * a writer may read READY just before a fence and commit just after. Reads close that gap by the fence's
   * position (SqlitePublicationLog.fencePosition), which is taken under that same write lock.
   */
  assertReady: (() => void) | null;
}

/**
 * Inside the caller's write transaction: checks the authority (LogPolicy.assertReady), appends one entry, and
 * drops entries older than the retained window (followers that far behind rebuild).
 */
export function appendLogEntry(
  database: ClientDatabase,
  policy: LogPolicy,
  entry: { kind: PublicationLogKind; documentId: string; versionKey: string; generation: number | null },
): void {
  policy.assertReady?.();
  const db = database.db;
  const { seq } = cachedStatement(db, 'INSERT INTO publication_log (kind, document_id, version_key, generation, at) VALUES (?, ?, ?, ?, ?) RETURNING seq').get(
    entry.kind,
    entry.documentId,
    entry.versionKey,
    entry.generation,
    database.at(),
  ) as { seq: number };
  const ceiling = compactionCeiling(seq, policy.retained);
  if (ceiling !== null) cachedStatement(db, 'DELETE FROM publication_log WHERE seq <= ?').run(ceiling);
}

export class SqlitePublicationLog implements PublicationLogRepository {
  private readonly database: ClientDatabase;

  constructor(database: ClientDatabase) {
    this.database = database;
  }

  private headSync(): number {
    const row = cachedStatement(this.database.db, 'SELECT MAX(seq) AS head FROM publication_log').get() as { head: number | null };
    return row.head ?? 0;
  }

  /**
   * The position the fence begun at `fencedAt` pins this Client to: the log's head when the first read in that
   * fence recorded it, the same for every process. It is recorded in a write transaction of the Client's file,
   * so it waits for an append in flight (a writer that read READY just before the fence: its entry is a READY
   * publication, and is part of what the fence serves), and every append after it finds FENCING in the
   * authority, which had begun before this read, and is refused: nothing lands above the position while the
   * fence lasts, whatever the clocks say. A fence is named by its start, to the millisecond. The lock is waited
   * for between tries, not in SQLite's busy wait, which would stop every other request of the process; a
   * writer that holds it past SQLITE_BUSY_TIMEOUT_MS fails the read, as it would fail a write.
   */
  private async fencePosition(fencedAt: string): Promise<number> {
    const deadline = performance.now() + SQLITE_BUSY_TIMEOUT_MS;
    for (;;) {
      // The connection is read again after each wait: it may have been released and opened again meanwhile.
      const db = this.database.db;
      const pinned = () => cachedStatement(db, 'SELECT seq FROM fence_positions WHERE fenced_at = ?').get(fencedAt) as { seq: number } | undefined;
      const recorded = pinned();
      if (recorded) return recorded.seq;
      let attempt: ReturnType<typeof transactionIfFree<number>>;
      try {
        attempt = transactionIfFree(db, () => {
          const raced = pinned();
          if (raced) return raced.seq;
          const head = this.headSync();
          cachedStatement(db, 'INSERT INTO fence_positions (fenced_at, seq) VALUES (?, ?)').run(fencedAt, head);
          // Earlier fences are over (this one began after them); only a read still inside one would ask again.
          cachedStatement(db, 'DELETE FROM fence_positions WHERE fenced_at < ?').run(fencedAt);
          return head;
        });
      } catch (error) {
        // A full disk refuses the position's one row: the read cannot be pinned, so it fails closed as a read
        // (503 with Retry-After), not as the write it is underneath (507 is no status of the read routes).
        if (storeFailureOf(error, 'sqlite')?.kind !== 'full') throw error;
        throw new ServiceError('publication_unavailable', `the fence's position of Client ${this.database.clientId} could not be recorded: the disk is full`, { retryAfterSeconds: PUBLICATION_RETRY_AFTER_SECONDS });
      }
      if (attempt.done) return attempt.value;
      if (performance.now() >= deadline) {
        // A writer holding the Client's file is contention, retryable like any other (SPEC publication_busy).
        throw new ServiceError('publication_busy', `the database of Client ${this.database.clientId} stayed locked by a writer for ${SQLITE_BUSY_TIMEOUT_MS} ms: the fence's position could not be recorded`, { retryAfterSeconds: PUBLICATION_RETRY_AFTER_SECONDS });
      }
      await sleep(FENCE_POSITION_RETRY_MS);
    }
  }

  /** `until`: the start of the fence being served; the head is then the fence's position. */
  async head(until?: string): Promise<number> {
    return until === undefined ? this.headSync() : this.fencePosition(until);
  }

  async touchedSince(since: number, documentId: string, versionKey: string, until?: string): Promise<boolean> {
    const ceiling = until === undefined ? Number.MAX_SAFE_INTEGER : await this.fencePosition(until);
    const db = this.database.db;
    return readTransaction(db, () => {
      const floor = (cachedStatement(db, 'SELECT MIN(seq) AS floor FROM publication_log').get() as { floor: number | null }).floor ?? 0;
      if (compactedPast(floor, since)) return true;
      const named = cachedStatement(db, 'SELECT 1 FROM publication_log WHERE seq > ? AND seq <= ? AND document_id = ? AND version_key = ? LIMIT 1').get(since, ceiling, documentId, versionKey);
      return named !== undefined;
    });
  }

  async changesSince(since: number, maxEntries: number, until?: string): Promise<PublicationChanges> {
    // Recorded (or read) before the consistent read, which cannot take the write lock a first recording needs.
    const fenced = until === undefined ? null : await this.fencePosition(until);
    const db = this.database.db;
    return readTransaction(db, () => {
      const head = fenced ?? this.headSync();
      const floor = (cachedStatement(db, 'SELECT MIN(seq) AS floor FROM publication_log').get() as { floor: number | null }).floor ?? 0;
      const generations = new Map<number, ServingGeneration>();
      if (replaysNothing(head, floor, since, maxEntries)) return { head, floor, entries: [], generations };
      const rows = cachedStatement(db, 'SELECT seq, kind, document_id, version_key, generation FROM publication_log WHERE seq > ? AND seq <= ? ORDER BY seq').all(
        since,
        head,
      ) as unknown as LogRow[];
      const entries = rows.map(toLogEntry);
      for (const entry of entries) {
        if (entry.generation === null || generations.has(entry.generation)) continue;
        const loaded = readServingGeneration(db, entry.generation);
        if (loaded && loaded.state === 'active') generations.set(entry.generation, loaded);
      }
      return { head, floor, entries, generations };
    });
  }
}
