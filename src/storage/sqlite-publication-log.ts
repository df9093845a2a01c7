// The SQLite publication log of one Client: appended inside the transactions that activate or remove
// versions, read by followers to replay what changed since their position.

import type { ClientDatabase } from './client-database.ts';
import { cachedStatement, readTransaction } from './sqlite.ts';
import { readServingGeneration } from './generation-rows.ts';
import type { PublicationChanges, PublicationLogRepository } from './port.ts';
import type { PublicationLogKind } from '../domain/publication-log.ts';
import type { ServingGeneration } from '../domain/generation.ts';

/** The log is compacted on every this-many-th append (a cheap indexed delete). */
export const PUBLICATION_LOG_COMPACTION_EVERY = 64;

interface LogRow {
  seq: number;
  kind: PublicationLogKind;
  document_id: string;
  version_key: string;
  generation: number | null;
}

/** How a Client's log is appended to. */
export interface LogPolicy {
  /** Entries kept (followers further behind rebuild). */
  retained: number;
  /**
   * With PUBLICATION_ENABLED: throws PublicationPaused unless the authority is READY, read in the transaction
   * that appends. The authority lives in the control database, so this does not serialize with an operator's
   * mode change the way the PostgreSQL adapter's row lock does: a writer may read READY just before a fence
   * and commit just after. Reads close that gap by pinning a fence by time (head's `until`), which holds
   * because every process of a SQLite deployment reads one machine's clock.
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
  if (seq % PUBLICATION_LOG_COMPACTION_EVERY === 0) cachedStatement(db, 'DELETE FROM publication_log WHERE seq <= ?').run(seq - policy.retained);
}

export class SqlitePublicationLog implements PublicationLogRepository {
  private readonly database: ClientDatabase;

  constructor(database: ClientDatabase) {
    this.database = database;
  }

  private headSync(until?: string): number {
    const db = this.database.db;
    const row = (until === undefined
      ? cachedStatement(db, 'SELECT MAX(seq) AS head FROM publication_log').get()
      : cachedStatement(db, 'SELECT MAX(seq) AS head FROM publication_log WHERE at <= ?').get(until)) as { head: number | null };
    return row.head ?? 0;
  }

  async head(until?: string): Promise<number> {
    return this.headSync(until);
  }

  async touchedSince(since: number, documentId: string, versionKey: string, until?: string): Promise<boolean> {
    const db = this.database.db;
    return readTransaction(db, () => {
      const floor = (cachedStatement(db, 'SELECT MIN(seq) AS floor FROM publication_log').get() as { floor: number | null }).floor ?? 0;
      if (floor > since + 1) return true;
      const named = until === undefined
        ? cachedStatement(db, 'SELECT 1 FROM publication_log WHERE seq > ? AND document_id = ? AND version_key = ? LIMIT 1').get(since, documentId, versionKey)
        : cachedStatement(db, 'SELECT 1 FROM publication_log WHERE seq > ? AND document_id = ? AND version_key = ? AND at <= ? LIMIT 1').get(since, documentId, versionKey, until);
      return named !== undefined;
    });
  }

  async changesSince(since: number, maxEntries: number, until?: string): Promise<PublicationChanges> {
    const db = this.database.db;
    return readTransaction(db, () => {
      const head = this.headSync(until);
      const floor = (cachedStatement(db, 'SELECT MIN(seq) AS floor FROM publication_log').get() as { floor: number | null }).floor ?? 0;
      const generations = new Map<number, ServingGeneration>();
      if (head <= since || head - since > maxEntries || floor > since + 1) return { head, floor, entries: [], generations };
      const rows = cachedStatement(db, 'SELECT seq, kind, document_id, version_key, generation FROM publication_log WHERE seq > ? AND seq <= ? ORDER BY seq').all(
        since,
        head,
      ) as unknown as LogRow[];
      const entries = rows.map((row) => ({ seq: row.seq, kind: row.kind, documentId: row.document_id, versionKey: row.version_key, generation: row.generation }));
      for (const entry of entries) {
        if (entry.generation === null || generations.has(entry.generation)) continue;
        const loaded = readServingGeneration(db, entry.generation);
        if (loaded && loaded.state === 'active') generations.set(entry.generation, loaded);
      }
      return { head, floor, entries, generations };
    });
  }
}
