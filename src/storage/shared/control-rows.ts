// The deployment's shared records as both adapters store them (a Client's discovery readiness, the
// publication authority), read as the port's records with the rules that reading them carries: a backfill that
// ended without converging reads as blocked, an authority record that is missing or names no mode is unreadable.

import type { ReadinessState } from '../../domain/job-states.ts';
import type { DurableAuthorityMode } from '../../domain/publication-log.ts';
import { AuthorityUnreadable, DURABLE_AUTHORITY_MODES } from '../../domain/publication-log.ts';
import type { AuthorityRecord, RecordedReadiness } from '../port.ts';

/** A readiness row joined with the status of the backfill job it names (null when that job is gone). */
export interface ReadinessRow {
  state: string;
  backfill_job_id: string | null;
  updated_at: string;
  job_status: string | null;
}

/**
 * The Client's readiness from its row. Every version this service writes indexes its metadata leaves inline,
 * so a Client without a recorded state has no pre-discovery data and has converged to ready.
 */
export function toRecordedReadiness(row: ReadinessRow | undefined): RecordedReadiness {
  if (!row) return { state: 'ready', backfillJobId: null, updatedAt: null };
  // Readiness never sticks at backfilling: a backfill that ended without converging (it failed, or its job
  // is gone) leaves the Client blocked until an operator runs another.
  const stuck = row.state === 'backfilling' && (row.job_status === null || row.job_status === 'failed');
  return { state: stuck ? 'blocked' : (row.state as ReadinessState), backfillJobId: row.backfill_job_id, updatedAt: row.updated_at };
}

export interface AuthorityRow {
  mode: string;
  authority_id: string;
  changed_at: string;
}

/** The authority record from its row; AuthorityUnreadable when the row is missing or its mode is none SPEC.md names. */
export function toAuthorityRecord(row: AuthorityRow | undefined): AuthorityRecord {
  if (!row) throw new AuthorityUnreadable('the record is missing');
  if (!(DURABLE_AUTHORITY_MODES as readonly string[]).includes(row.mode)) throw new AuthorityUnreadable(`unknown mode ${JSON.stringify(row.mode)}`);
  return { mode: row.mode as DurableAuthorityMode, authorityId: row.authority_id, changedAt: row.changed_at };
}
