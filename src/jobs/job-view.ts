// Renders GET /status/{job_id}: the common fields plus those of the job's state, as SPEC.md tabulates them.
// Completed upload polls verify publication evidence by reading only the generation's manifest.

import type { JobRecord } from '../domain/jobs.ts';
import type { StoragePort } from '../storage/port.ts';
import type { ClientSnapshot } from '../serving/snapshot.ts';
import { manifestDigest, manifestIsValid } from '../publication/manifest.ts';
import { ServiceError } from '../domain/service-error.ts';
import { versionIdentity, versionIdFromKey } from '../domain/identity.ts';
import type { JsonObject } from '../domain/canonical-metadata.ts';
import { updatedFieldsView } from '../publication/update-service.ts';

/** SPEC.md "Successor verification attempts": at most 3. */
export const SUCCESSOR_VERIFICATION_ATTEMPTS = 3;

export interface JobViewDependencies {
  storage: StoragePort;
  /** PUBLICATION_ENABLED: completed uploads are then verified against their manifests. */
  publicationEnabled: boolean;
  /** This api process's snapshot of the job's Client, caught up by the caller (search_ready is process-local). */
  snapshot: ClientSnapshot;
  now?: () => number;
}

function common(job: JobRecord): JsonObject {
  return { job_id: job.jobId, document_id: job.documentId, status: job.status, operation: job.operation };
}

export async function renderJob(job: JobRecord, deps: JobViewDependencies): Promise<JsonObject> {
  const now = deps.now?.() ?? Date.now();
  const result = job.result ?? {};
  const view = common(job);
  if (job.operation !== 'metadata_backfill') view.version_id = job.versionKey === null ? null : versionIdFromKey(job.versionKey);
  if (job.operation === 'metadata_update') Object.assign(view, updatedFieldsView(job));
  switch (job.status) {
    case 'pending':
    case 'started':
    case 'processing':
      return { ...view, ...backfillProgress(job) };
    case 'retrying':
      return {
        ...view,
        ...backfillProgress(job),
        error: job.error,
        retry_count: job.attempts,
        max_retries: job.maxAttempts,
        next_retry_in_seconds: Math.max(0, Math.ceil((job.nextRunAt - now) / 1000)),
      };
    case 'failed':
      return { ...view, error: job.error ?? 'Processing failed', ...(job.errorDetails ? { error_details: job.errorDetails } : {}), ...operationFields(job, result) };
    case 'superseded':
      return {
        ...view,
        publication_status: result.publication_status ?? 'superseded',
        superseded_by_job_id: result.superseded_by_job_id || null,
        superseded_reason: result.superseded_reason ?? 'newer_upload',
        error: null,
      };
    case 'partial_failed':
      return {
        ...view,
        chunks_created: result.chunks_created ?? 0,
        entities_extracted: result.entities_extracted ?? {},
        error: job.error,
        ...searchReadiness(job, result, deps),
      };
    case 'completed':
      if (job.operation === 'embed') return { ...view, ...(await completedUpload(job, result, deps)) };
      return { ...view, ...operationFields(job, result) };
  }
}

/**
 * A running backfill's progress, once it has planned (counted its versions): readiness_state backfilling and
 * the counters so far. A job still planning shows none of them (SPEC.md backfill job).
 */
function backfillProgress(job: JobRecord): JsonObject {
  const progress = job.result;
  if (job.operation !== 'metadata_backfill' || !progress || typeof progress.versions_total !== 'number') return {};
  const { cursor: _cursor, violations, violations_total: total, ...counts } = progress;
  const shown = Array.isArray(violations) ? violations : [];
  return { ...counts, violations: shown, violations_total: total ?? 0, violations_truncated: typeof total === 'number' && total > shown.length };
}

/** Counters of a metadata update that ended before it counted anything. */
const EMPTY_UPDATE_COUNTS: JsonObject = { versions_total: 0, versions_completed: 0, versions_unchanged: 0, updated_chunks: 0, cleanup_tasks_scheduled: 0 };

function operationFields(job: JobRecord, result: JsonObject): JsonObject {
  if (job.operation === 'embed') return {};
  if (job.operation === 'metadata_update') return { ...EMPTY_UPDATE_COUNTS, ...result };
  return { ...result };
}

async function completedUpload(job: JobRecord, result: JsonObject, deps: JobViewDependencies): Promise<JsonObject> {
  if (deps.publicationEnabled) await verifyPublication(job, result, deps);
  const fields: JsonObject = {
    chunks_created: result.chunks_created ?? 0,
    categories: result.categories ?? [],
    classification_status: result.classification_status ?? 'disabled',
    entities_extracted: result.entities_extracted ?? {},
    created_at: job.createdAt,
    completed_at: job.completedAt,
    ...searchReadiness(job, result, deps),
  };
  if (deps.publicationEnabled) {
    const readiness = await deps.storage.jobs.readiness(job.clientId);
    fields.readiness_state = readiness.state;
    fields.metadata_ready = readiness.state === 'ready';
  }
  return fields;
}

function searchReadiness(job: JobRecord, result: JsonObject, deps: JobViewDependencies): JsonObject {
  const versionId = versionIdFromKey(job.versionKey ?? job.documentId);
  const served = deps.snapshot.versions.get(versionIdentity({ documentId: job.documentId, versionId }));
  const generation = typeof result.generation === 'number' ? result.generation : Number.POSITIVE_INFINITY;
  return {
    search_ready: served !== undefined && served.generation >= generation,
    snapshot_generation: served?.generation ?? null,
  };
}

/**
 * The job's generation must still carry the manifest it was published with; a retired generation is
 * accepted only when the same version advanced to a strictly newer generation with valid evidence.
 */
async function verifyPublication(job: JobRecord, result: JsonObject, deps: JobViewDependencies): Promise<void> {
  const store = deps.storage.client(job.clientId);
  const versionKey = job.versionKey ?? job.documentId;
  const versionId = versionIdFromKey(versionKey);
  const generation = result.generation;
  if (typeof generation !== 'number') throw new ServiceError('publication_unavailable', 'The job carries no publication evidence');
  const own = await store.manifest(generation);
  if (!own || own.documentId !== job.documentId || own.versionKey !== versionKey) {
    throw new ServiceError('publication_unavailable', 'The job generation has no manifest');
  }
  if (own.state === 'active') {
    if (!manifestIsValid(own.manifest, job.documentId, versionId) || manifestDigest(own.manifest) !== result.manifest_digest) {
      throw new ServiceError('publication_authority_inconsistent', 'The generation manifest does not match its publication record');
    }
    return;
  }
  for (let attempt = 0; attempt < SUCCESSOR_VERIFICATION_ATTEMPTS; attempt++) {
    const successor = await store.activeGeneration(job.documentId, versionKey);
    if (!successor || successor.generation <= generation) break;
    if (manifestIsValid(successor.manifest, job.documentId, versionId)) return;
  }
  throw new ServiceError('publication_unavailable', 'The generation was retired and no newer generation verifies');
}
