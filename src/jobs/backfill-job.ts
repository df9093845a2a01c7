// The Metadata Discovery backfill job (operation metadata_backfill, one per Client): checks every active
// version's custom metadata against the contract, re-indexes stale metadata leaves, and converges the
// Client's readiness to ready, or to blocked with remediation entries that never carry a value. The operator's
// POST /admin/backfill, which records the job, is publication/backfill-service.ts.

import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { GenerationRepository, StoragePort } from '../storage/port.ts';
import type { Publisher } from '../publication/publisher.ts';
import { successorOf } from '../publication/successor.ts';
import { verifyEvidence } from '../codec/evidence.ts';
import { discoveryReadiness } from '../reads/discovery-readiness.ts';
import { checkMetadataContract } from '../domain/metadata-contract.ts';
import { metadataLeaves } from '../domain/metadata-leaves.ts';
import { canonicalJson } from '../domain/merge-patch.ts';
import { versionIdFromKey } from '../domain/identity.ts';
import type { JsonValue } from '../domain/canonical-metadata.ts';
import type { JobContext, JobHandler, JobOutcomeOf, JobRecordOf } from '../domain/jobs.ts';
import type { BackfillProgress, BackfillReport } from '../domain/job-payloads.ts';
import type { LoadedGeneration } from '../domain/generation.ts';
import { faultPoint } from '../fault-points.ts';

/** Remediation entries kept on the job; the total is always reported. */
export const MAX_BACKFILL_VIOLATIONS = 100;
export const BACKFILL_ALREADY_RUNNING = 'backfill_already_running';
/** Versions handled between two progress records (what a crashed run may have to redo). */
export const BACKFILL_BATCH_VERSIONS = 100;

type BackfillJob = JobRecordOf<'metadata_backfill'>;
type BackfillContext = JobContext<'metadata_backfill'>;
type BackfillOutcome = JobOutcomeOf<'metadata_backfill'>;

export function backfillLockName(clientId: string): string {
  return `backfill:${clientId}`;
}

export interface BackfillDependencies {
  storage: StoragePort;
  publisher: Publisher;
  leaseMs: number;
}

export function createBackfillHandler(deps: BackfillDependencies): JobHandler<'metadata_backfill'> {
  return async (job, context): Promise<BackfillOutcome> => {
    // Single writer: the Client's backfill lock is a lease in the store, so it holds across worker processes.
    const lock = backfillLockName(job.clientId);
    if (!(await deps.storage.authority.acquireLease(lock, job.jobId, deps.leaseMs))) {
      const holder = await deps.storage.authority.leaseHolder(lock);
      const waitSeconds = Math.max(1, Math.ceil(((holder?.expiresAt ?? Date.now()) - Date.now()) / 1000));
      return {
        status: 'failed',
        error: 'A metadata backfill is already running for this Client',
        errorDetails: { code: BACKFILL_ALREADY_RUNNING, running_job_id: holder?.owner ?? null },
        result: { readiness_state: (await discoveryReadiness(deps.storage, job.clientId)).state, next_retry_in_seconds: Math.min(waitSeconds, Math.ceil(deps.leaseMs / 1000)) },
      };
    }
    const renew = setInterval(() => void deps.storage.authority.renewLease(lock, job.jobId, deps.leaseMs).catch(() => {}), deps.leaseMs / 3);
    try {
      return await backfill(job, context, deps);
    } finally {
      clearInterval(renew);
      await deps.storage.authority.releaseLease(lock, job.jobId);
    }
  };
}

/**
 * What a backfill that ended reports: its counters and the readiness it left, without the fields of the progress
 * that only the job itself reads (its cursor, what it was republishing). The fields keep the progress's order.
 */
function reportOf(progress: BackfillProgress, readiness: BackfillReport['readiness_state']): BackfillReport {
  const { cursor: _cursor, republishing: _republishing, readiness_state: _state, violations, ...counts } = progress;
  return { readiness_state: readiness, ...counts, violations, violations_truncated: progress.violations_total > violations.length };
}

/**
 * Settles a republication a previous run recorded but did not see through: if the version's active generation
 * moved on from the one it replaced, the publication committed and is counted now, exactly once.
 */
async function settleRepublishing(generations: GenerationRepository, progress: BackfillProgress): Promise<void> {
  const pending = progress.republishing;
  if (!pending) return;
  const current = await generations.activeGeneration(pending.document_id, pending.version_key);
  if (current && current.generation !== pending.generation) {
    progress.versions_backfilled++;
    progress.versions_completed++;
    progress.cursor = { document_id: pending.document_id, version_key: pending.version_key };
  }
  progress.republishing = null;
}

/** The progress an earlier run recorded, when the job's result is that (not the report of a run that ended). */
function progressOf(job: BackfillJob): BackfillProgress | null {
  const recorded = job.result;
  return recorded !== null && recorded.readiness_state === 'backfilling' && 'versions_total' in recorded && typeof recorded.versions_total === 'number' ? recorded : null;
}

async function backfill(job: BackfillJob, context: BackfillContext, deps: BackfillDependencies): Promise<BackfillOutcome> {
  // Publication paused: the job waits for READY (no attempt spent), then continues where it stopped.
  await deps.publisher.assertReady();
  await deps.storage.discovery.setReadiness(job.clientId, 'backfilling', job.jobId);
  await context.heartbeat('processing');
  const store = deps.storage.client(job.clientId);
  // Planning counts the versions; a run that crashed resumes from its recorded progress instead.
  const progress: BackfillProgress = progressOf(job) ?? {
    readiness_state: 'backfilling',
    versions_total: await store.generations.activeVersionCount(),
    versions_completed: 0,
    versions_backfilled: 0,
    versions_pending: 0,
    versions_blocked: 0,
    violations: [],
    violations_total: 0,
    cursor: null,
  };
  await settleRepublishing(store.generations, progress);
  await context.recordProgress(progress);
  for (;;) {
    const cursor = progress.cursor ? { documentId: progress.cursor.document_id, versionKey: progress.cursor.version_key } : null;
    const batch = await store.generations.activeGenerationsAfter(cursor, BACKFILL_BATCH_VERSIONS);
    if (batch.length === 0) break;
    for (const generation of batch) {
      // SPEC.md: a backfill on a Client whose authority needs repair says so; it is not an empty corpus.
      const evidence = verifyEvidence(generation);
      if (evidence.state !== 'verified') {
        await deps.storage.discovery.setReadiness(job.clientId, 'blocked', job.jobId);
        return {
          status: 'failed',
          error: 'The publication authority of this Client needs repair',
          errorDetails: { code: 'publication_authority_inconsistent', document_id: generation.documentId, version_id: versionIdFromKey(generation.versionKey) },
          result: reportOf(progress, 'blocked'),
        };
      }
      await backfillVersion(job.clientId, generation, progress, deps.publisher, context);
      progress.cursor = { document_id: generation.documentId, version_key: generation.versionKey };
    }
    await context.recordProgress(progress);
    // The store answers without real I/O: yield, so the job's lease heartbeat keeps running.
    await yieldToEventLoop();
    await faultPoint('job-stage');
  }
  const readiness = progress.versions_blocked > 0 || progress.versions_pending > 0 ? 'blocked' : 'ready';
  await deps.storage.discovery.setReadiness(job.clientId, readiness, job.jobId);
  return { status: 'completed', result: reportOf(progress, readiness) };
}

/**
 * Checks one version against the contract and re-indexes its leaves when they are stale. A republication is
 * recorded before it is made and after (settleRepublishing), so that a run dying in between counts it once.
 */
async function backfillVersion(clientId: string, generation: LoadedGeneration, progress: BackfillProgress, publisher: Publisher, context: BackfillContext): Promise<void> {
  const violation = checkMetadataContract(generation.canonicalMetadata.custom as JsonValue);
  if (violation) {
    progress.versions_blocked++;
    progress.violations_total++;
    if (progress.violations.length < MAX_BACKFILL_VIOLATIONS) {
      progress.violations.push({ document_id: generation.documentId, version_id: versionIdFromKey(generation.versionKey), path: violation.path, cap: violation.limit });
    }
    return;
  }
  const leaves = metadataLeaves(generation.canonicalMetadata);
  const current = generation.leaves.map((leaf) => ({ path: leaf.path, value: leaf.value, valueType: leaf.valueType }));
  if (canonicalJson(leaves as unknown as JsonValue) !== canonicalJson(current as unknown as JsonValue)) {
    progress.republishing = { document_id: generation.documentId, version_key: generation.versionKey, generation: generation.generation };
    await context.recordProgress(progress);
    const activation = await publisher.replace(clientId, [{ input: successorOf(generation, { leaves, jobId: generation.jobId }), expected: generation.generation }]);
    progress.republishing = null;
    if (!activation) {
      progress.versions_pending++;
      await context.recordProgress(progress);
      return;
    }
    progress.versions_backfilled++;
    progress.versions_completed++;
    progress.cursor = { document_id: generation.documentId, version_key: generation.versionKey };
    await context.recordProgress(progress);
    return;
  }
  progress.versions_completed++;
}
