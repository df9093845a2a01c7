// The PostgreSQL publication log of one Client: appended inside the transactions that activate or remove
// versions, read by followers to replay what changed since their position.

import type pg from 'pg';
import { clientReadStatement, clientTransaction } from './database.ts';
import type { Sql } from './database.ts';
import { readServingGenerations } from './generation-reads.ts';
import { announcePublication } from './publication-notices.ts';
import type { PublicationChanges, PublicationLogRepository } from '../port.ts';
import type { PublicationLogEntry, PublicationLogKind } from '../../domain/publication-log.ts';
import type { ServingGeneration } from '../../domain/generation.ts';
import { PublicationPaused } from '../../domain/jobs.ts';
import { compactedPast, compactionCeiling, replaysNothing, toLogEntry } from '../shared/publication-log-rows.ts';
import type { LogRow } from '../shared/publication-log-rows.ts';

/** How a Client's log is appended to. */
export interface LogPolicy {
  /** Entries kept (followers further behind rebuild). */
  retained: number;
  /**
   * PUBLICATION_ENABLED: an append holds the authority row FOR SHARE and refuses unless the mode is READY, in
   * the transaction that activates or removes. An operator's mode change (an UPDATE of that row) waits for
   * the appends in flight and every later append sees it, so no entry commits after a fence has begun: the
   * log position at the fence is what every host serves while it lasts, whatever the hosts' clocks say.
   */
  fenced: boolean;
}

/**
 * Inside the caller's Client write transaction: checks the authority (LogPolicy.fenced), takes the Client's
 * next sequence number (the row lock on its head is held until commit, so entries commit in sequence order,
 * without gaps), appends the entry, announces it (delivered at commit), and drops entries older than the
 * retained window now and then (followers that far behind rebuild). Throws PublicationPaused when the authority is not READY: the transaction, and
 * the activation or removal with it, is rolled back.
 */
export async function appendLogEntry(
  sql: Sql,
  clientId: string,
  policy: LogPolicy,
  entry: { kind: PublicationLogKind; documentId: string; versionKey: string; generation: number | null },
): Promise<void> {
  if (policy.fenced) {
    const mode = (await sql.query<{ mode: string }>('SELECT mode FROM authority WHERE id = 1 FOR SHARE')).rows[0]?.mode;
    if (mode !== 'READY') throw new PublicationPaused(mode ?? 'unreadable');
  }
  const { rows } = await sql.query<{ seq: number }>(
    `WITH head AS (
       INSERT INTO publication_heads (client_id, seq) VALUES ($1, 1)
       ON CONFLICT (client_id) DO UPDATE SET seq = publication_heads.seq + 1 RETURNING seq
     )
     INSERT INTO publication_log (client_id, seq, kind, document_id, version_key, generation, at)
     SELECT $1, head.seq, $2, $3, $4, $5, db_now() FROM head RETURNING seq`,
    [clientId, entry.kind, entry.documentId, entry.versionKey, entry.generation],
  );
  const { seq } = rows[0];
  await announcePublication(sql, clientId);
  const ceiling = compactionCeiling(seq, policy.retained);
  if (ceiling !== null) await sql.query('DELETE FROM publication_log WHERE seq <= $1', [ceiling]);
}

/**
 * The newest entry. A fence pins reads by position here, not by time: no entry commits once a fence has begun
 * (LogPolicy.fenced), so the head read while it lasts is the fence's position, and the fence's start time
 * (`until`, by which the SQLite adapter finds the position it recorded for the fence) is not needed.
 */
const HEAD_STATEMENT = 'SELECT max(seq) AS head FROM publication_log';

async function readHead(sql: Sql): Promise<number> {
  const { rows } = await sql.query<{ head: number | null }>(HEAD_STATEMENT);
  return rows[0].head ?? 0;
}

export class PgPublicationLog implements PublicationLogRepository {
  private readonly pool: pg.Pool;
  private readonly clientId: string;

  constructor(pool: pg.Pool, clientId: string) {
    this.pool = pool;
    this.clientId = clientId;
  }

  /** Read at the start of every search (serving/read-guard.ts): in one round trip. */
  async head(): Promise<number> {
    const [row] = await clientReadStatement<{ head: number | null }>(this.pool, this.clientId, HEAD_STATEMENT);
    return row.head ?? 0;
  }

  /** `until` is not needed: no entry is appended once a fence has begun (see head). */
  async touchedSince(since: number, documentId: string, versionKey: string): Promise<boolean> {
    return clientTransaction(this.pool, this.clientId, 'consistent', async (sql) => {
      const floor = (await sql.query<{ floor: number | null }>('SELECT min(seq) AS floor FROM publication_log')).rows[0].floor ?? 0;
      if (compactedPast(floor, since)) return true;
      const { rows } = await sql.query('SELECT 1 FROM publication_log WHERE seq > $1 AND document_id = $2 AND version_key = $3 LIMIT 1', [since, documentId, versionKey]);
      return rows.length > 0;
    });
  }

  async changesSince(since: number, maxEntries: number): Promise<PublicationChanges> {
    return clientTransaction(this.pool, this.clientId, 'consistent', async (sql) => {
      const head = await readHead(sql);
      const floor = (await sql.query<{ floor: number | null }>('SELECT min(seq) AS floor FROM publication_log')).rows[0].floor ?? 0;
      const generations = new Map<number, ServingGeneration>();
      if (replaysNothing(head, floor, since, maxEntries)) return { head, floor, entries: [], generations };
      const { rows } = await sql.query<LogRow>('SELECT seq, kind, document_id, version_key, generation FROM publication_log WHERE seq > $1 AND seq <= $2 ORDER BY seq', [since, head]);
      const entries: PublicationLogEntry[] = rows.map(toLogEntry);
      const named = [...new Set(entries.flatMap((entry) => (entry.generation === null ? [] : [entry.generation])))];
      for (const loaded of await readServingGenerations(sql, named)) {
        if (loaded.state === 'active') generations.set(loaded.generation, loaded);
      }
      return { head, floor, entries, generations };
    });
  }
}
