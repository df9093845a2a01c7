// The SQLite discovery repository, in the control database: each Client's durable Metadata Discovery
// readiness and the backfill job that owns it.

import type { Database } from './database.ts';
import { cachedStatement } from './database.ts';
import type { ReadinessState } from '../../domain/job-states.ts';
import type { DiscoveryRepository, RecordedReadiness } from '../port.ts';
import { toRecordedReadiness } from '../shared/control-rows.ts';
import type { ReadinessRow } from '../shared/control-rows.ts';

export class SqliteDiscoveryRepository implements DiscoveryRepository {
  private readonly db: Database;
  private readonly now: () => number;

  constructor(db: Database, now: () => number = Date.now) {
    this.db = db;
    this.now = now;
  }

  /** The Client's durable discovery readiness (toRecordedReadiness: ready when none was recorded). */
  async readiness(clientId: string): Promise<RecordedReadiness> {
    const row = cachedStatement(
        this.db,
        `SELECT r.state, r.backfill_job_id, r.updated_at, j.status AS job_status FROM readiness r
         LEFT JOIN jobs j ON j.job_id = r.backfill_job_id WHERE r.client_id = ?`,
      )
      .get(clientId) as ReadinessRow | undefined;
    return toRecordedReadiness(row);
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
