// Metadata Discovery backfill (operation metadata_backfill, one job per Client): checks every active
// version's custom metadata against the contract, re-indexes stale metadata leaves, and converges the
// Client's readiness to ready, or to blocked with remediation entries that never carry a value.

import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { StoragePort } from '../storage/port.ts';
import type { Publisher } from './publisher.ts';
import { ServiceError } from '../domain/service-error.ts';
import { successorOf } from './successor.ts';
import { checkMetadataContract } from '../domain/metadata-contract.ts';
import { metadataLeaves } from '../domain/metadata-leaves.ts';
import { canonicalJson } from '../domain/merge-patch.ts';
import { versionIdFromKey } from '../domain/identity.ts';
import type { JsonObject, JsonValue } from '../domain/canonical-metadata.ts';
import type { JobHandler, JobOutcome, JobRecord } from '../domain/jobs.ts';

/** Remediation entries kept on the job; the total is always reported. */
export const MAX_BACKFILL_VIOLATIONS = 100;
export const BACKFILL_ALREADY_RUNNING = 'backfill_already_running';

export interface BackfillViolation {
  document_id: string;
  version_id: string | null;
  path: string[];
  cap: number;
}

export function backfillLockName(clientId: string): string {
  return `backfill:${clientId}`;
}

/**
 * Accepts a backfill for a Client (an operator action); the worker does the work. The Client must be known:
 * mapped by API_KEY_CLIENTS or holding data. An unknown one is refused and no storage is created for it.
 */
export async function enqueueBackfill(storage: StoragePort, clientId: string, wake: () => void, configuredClients: ReadonlySet<string>): Promise<JobRecord> {
  if (!configuredClients.has(clientId) && !(await storage.knownClientIds()).includes(clientId)) {
    throw new ServiceError('not_found', `Unknown client: ${clientId}`);
  }
  const job = await storage.jobs.enqueue({ clientId, operation: 'metadata_backfill', documentId: '', versionKey: null, request: {}, maxAttempts: 1 });
  wake();
  return job;
}

export function createBackfillHandler(deps: { storage: StoragePort; publisher: Publisher; leaseMs: number }): JobHandler {
  return async (job): Promise<JobOutcome> => {
    // Single writer: the Client's backfill lock is a lease in the store, so it holds across worker processes.
    const lock = backfillLockName(job.clientId);
    if (!(await deps.storage.control.acquireLease(lock, job.jobId, deps.leaseMs))) {
      const holder = await deps.storage.control.leaseHolder(lock);
      const waitSeconds = Math.max(1, Math.ceil(((holder?.expiresAt ?? Date.now()) - Date.now()) / 1000));
      return {
        status: 'failed',
        error: 'A metadata backfill is already running for this Client',
        errorDetails: { code: BACKFILL_ALREADY_RUNNING, running_job_id: holder?.owner ?? null },
        result: { readiness_state: (await deps.storage.jobs.readiness(job.clientId)).state, next_retry_in_seconds: Math.min(waitSeconds, Math.ceil(deps.leaseMs / 1000)) },
      };
    }
    const renew = setInterval(() => void deps.storage.control.renewLease(lock, job.jobId, deps.leaseMs).catch(() => {}), deps.leaseMs / 3);
    try {
      return await backfill(job, deps);
    } finally {
      clearInterval(renew);
      await deps.storage.control.releaseLease(lock, job.jobId);
    }
  };
}

async function backfill(job: JobRecord, deps: { storage: StoragePort; publisher: Publisher }): Promise<JobOutcome> {
  // Publication paused: the job waits for READY (no attempt spent) and starts over; done versions are skipped.
  await deps.publisher.assertReady();
  await deps.storage.jobs.setReadiness(job.clientId, 'backfilling', job.jobId);
  const store = deps.storage.client(job.clientId);
  const versions = store.activeGenerations();
  const counts = { versions_total: 0, versions_completed: 0, versions_backfilled: 0, versions_pending: 0, versions_blocked: 0 };
  const violations: BackfillViolation[] = [];
  let violationsTotal = 0;
  for await (const generation of versions) {
    // The store answers without real I/O: yield, so the job's lease heartbeat keeps running.
    await yieldToEventLoop();
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
      const activation = await deps.publisher.replace(job.clientId, [{ input: successorOf(generation, { leaves, jobId: generation.jobId }), expected: generation.generation }]);
      if (!activation) {
        counts.versions_pending++;
        continue;
      }
      counts.versions_backfilled++;
    }
    counts.versions_completed++;
  }
  const readiness = counts.versions_blocked > 0 || counts.versions_pending > 0 ? 'blocked' : 'ready';
  await deps.storage.jobs.setReadiness(job.clientId, readiness, job.jobId);
  const result: JsonObject = {
    readiness_state: readiness,
    ...counts,
    violations: violations as unknown as JsonValue,
    violations_total: violationsTotal,
    violations_truncated: violationsTotal > violations.length,
  };
  return { status: 'completed', result };
}
