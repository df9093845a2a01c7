// Metadata Discovery backfill (operation metadata_backfill, one job per Client): checks every active
// version's custom metadata against the contract, re-indexes stale metadata leaves, and converges the
// Client's readiness to ready, or to blocked with remediation entries that never carry a value.

import type { Storage } from '../storage/storage.ts';
import type { JobRecord } from '../storage/job-store.ts';
import type { PublicationAuthority } from './authority.ts';
import { successorOf } from './lifecycle-service.ts';
import { checkMetadataContract } from '../domain/metadata-contract.ts';
import { metadataLeaves } from '../domain/metadata-leaves.ts';
import { canonicalJson } from '../domain/merge-patch.ts';
import { versionIdFromKey } from '../domain/identity.ts';
import type { JsonObject, JsonValue } from '../domain/canonical-metadata.ts';
import { RetryableJobError } from '../jobs/worker.ts';
import type { JobHandler, JobOutcome } from '../jobs/worker.ts';

/** Remediation entries kept on the job; the total is always reported. */
export const MAX_BACKFILL_VIOLATIONS = 100;
export const BACKFILL_ALREADY_RUNNING = 'backfill_already_running';

export interface BackfillViolation {
  document_id: string;
  version_id: string | null;
  path: string[];
  cap: number;
}

/** Accepts a backfill for a Client (an operator action); the worker does the work. */
export function enqueueBackfill(storage: Storage, clientId: string, wake: () => void): JobRecord {
  const job = storage.jobs.enqueue({ clientId, operation: 'metadata_backfill', documentId: '', versionKey: null, request: {}, maxAttempts: 1 });
  wake();
  return job;
}

export function createBackfillHandler(deps: { storage: Storage; authority: PublicationAuthority; leaseMs: number }): JobHandler {
  return async (job): Promise<JobOutcome> => {
    const other = deps.storage.jobs.activeJobOf(job.clientId, 'metadata_backfill', job.jobId);
    if (other) {
      // Single writer: a second run while one is active is refused, with a retry hint bounded by the lease.
      const waitSeconds = Math.max(1, Math.ceil(((other.leaseExpiresAt ?? Date.now()) - Date.now()) / 1000));
      return {
        status: 'failed',
        error: 'A metadata backfill is already running for this Client',
        errorDetails: { code: BACKFILL_ALREADY_RUNNING, running_job_id: other.jobId },
        result: { readiness_state: deps.storage.jobs.readiness(job.clientId).state, next_retry_in_seconds: Math.min(waitSeconds, Math.ceil(deps.leaseMs / 1000)) },
      };
    }
    if (deps.authority.enabled && deps.authority.mode !== 'READY') throw new RetryableJobError('Publication is not ready');
    deps.storage.jobs.setReadiness(job.clientId, 'backfilling', job.jobId);
    const store = deps.storage.client(job.clientId);
    const versions = store.activeGenerations();
    const counts = { versions_total: 0, versions_completed: 0, versions_backfilled: 0, versions_pending: 0, versions_blocked: 0 };
    const violations: BackfillViolation[] = [];
    let violationsTotal = 0;
    for (const generation of versions) {
      counts.versions_total++;
      const violation = checkMetadataContract(generation.canonicalMetadata.custom as JsonValue);
      if (violation) {
        counts.versions_blocked++;
        violationsTotal++;
        if (violations.length < MAX_BACKFILL_VIOLATIONS) {
          violations.push({ document_id: generation.documentId, version_id: versionIdFromKey(generation.versionKey), path: violation.path, cap: violation.limit });
        }
        continue;
      }
      const leaves = metadataLeaves(generation.canonicalMetadata);
      const current = generation.leaves.map((leaf) => ({ path: leaf.path, value: leaf.value, valueType: leaf.valueType }));
      if (canonicalJson(leaves as unknown as JsonValue) !== canonicalJson(current as unknown as JsonValue)) {
        const activation = store.replaceGenerations([{ input: successorOf(generation, { leaves, jobId: generation.jobId }), expected: generation.generation }]);
        if (!activation) {
          counts.versions_pending++;
          continue;
        }
        const [{ generation: next, previousGeneration }] = activation;
        deps.authority.publish(job.clientId, { activated: [{ ...store.generation(next)!, chunks: generation.chunks, leaves }] });
        if (previousGeneration !== null) store.cleanupRetired([previousGeneration]);
        counts.versions_backfilled++;
      }
      counts.versions_completed++;
    }
    const readiness = counts.versions_blocked > 0 || counts.versions_pending > 0 ? 'blocked' : 'ready';
    deps.storage.jobs.setReadiness(job.clientId, readiness, job.jobId);
    const result: JsonObject = {
      readiness_state: readiness,
      ...counts,
      violations: violations as unknown as JsonValue,
      violations_total: violationsTotal,
      violations_truncated: violationsTotal > violations.length,
    };
    return { status: 'completed', result };
  };
}
