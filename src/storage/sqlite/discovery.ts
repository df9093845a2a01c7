// The SQLite discovery repository, in the control database: each Client's durable Metadata Discovery
// readiness and the backfill job that owns it.

import type { Database } from './database.ts';
import { cachedStatement } from './database.ts';
import type { ReadinessState } from '../../domain/job-states.ts';
import type { DiscoveryRepository, RecordedReadiness } from '../port.ts';

export class SqliteDiscoveryRepository implements DiscoveryRepository {
  private readonly db: Database;
  private readonly now: () => number;

  constructor(db: Database, now: () => number = Date.now) {
    this.db = db;
    this.now = now;
  }

  /**
   * The Client's durable discovery readiness. Every version this service writes indexes its metadata leaves
   * inline, so a Client without a recorded state has no pre-discovery data and has converged to ready.
   */
  async readiness(clientId: string): Promise<RecordedReadiness> {
    const row = cachedStatement(
        this.db,
        `SELECT r.state, r.backfill_job_id, r.updated_at, j.status AS job_status FROM readiness r
         LEFT JOIN jobs j ON j.job_id = r.backfill_job_id WHERE r.client_id = ?`,
      )
      .get(clientId) as { state: string; backfill_job_id: string | null; updated_at: string; job_status: string | null } | undefined;
    if (!row) return { state: 'ready', backfillJobId: null, updatedAt: null };
    // Readiness never sticks at backfilling: a backfill that ended without converging (it failed, or its
    // job is gone) leaves the Client blocked until an operator runs another.
    const stuck = row.state === 'backfilling' && (row.job_status === null || row.job_status === 'failed');
    return { state: stuck ? 'blocked' : (row.state as ReadinessState), backfillJobId: row.backfill_job_id, updatedAt: row.updated_at };
  }

  async setReadiness(clientId: string, state: ReadinessState, backfillJobId: string | null = null): Promise<void> {
    cachedStatement(
        this.db,
        `INSERT INTO readiness (client_id, state, backfill_job_id, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (client_id) DO UPDATE SET state = excluded.state, backfill_job_id = excluded.backfill_job_id, updated_at = excluded.updated_at`,
      )
      .run(clientId, state, backfillJobId, new Date(this.now()).toISOString());
  }
}
