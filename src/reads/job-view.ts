// Renders GET /status/{job_id}: the common fields plus those of the job's state, as SPEC.md tabulates them.
// Completed upload polls verify publication evidence by reading only the generation's manifest.

import type { JobRecord, JobRecordOf } from '../domain/jobs.ts';
import { isJsonObject } from '../domain/canonical-metadata.ts';
import type { StoragePort } from '../storage/port.ts';
import { discoveryReadiness } from './discovery-readiness.ts';
import type { ClientSnapshot } from '../serving/snapshot.ts';
import type { SnapshotReads } from '../serving/read-guard.ts';
import { manifestDigest, manifestIsValid, recordIdOf } from '../codec/manifest.ts';
import type { Manifest } from '../codec/manifest.ts';
import type { ManifestRecord } from '../storage/port.ts';
import { ServiceError } from '../domain/service-error.ts';
import { versionIdentity, versionIdFromKey } from '../domain/identity.ts';
import type { JsonObject } from '../domain/canonical-metadata.ts';
import type { JobView } from '../domain/responses.ts';
import { MAX_STATUS_UPDATED_FIELDS, SUCCESSOR_VERIFICATION_ATTEMPTS } from '../spec-limits.ts';


export interface JobViewDependencies {
  storage: StoragePort;
  /** PUBLICATION_ENABLED: completed uploads are then verified against their manifests. */
  publicationEnabled: boolean;
  /** This api process's snapshot of the job's Client, caught up by the caller (search_ready is process-local). */
  snapshot: ClientSnapshot;
  now?: () => number;
}

/**
 * Status fields every metadata update job shows, whatever its state; never a custom value. SPEC.md lists the
 * patch's top-level keys here (the 202 answer gave their canonical stored paths): the metadata patch's keys in
 * its order, then `filename` for a rename unless a custom key of that name is listed already.
 */
function updatedFieldsView(job: JobRecordOf<'metadata_update'>): JsonObject {
  const patch = isJsonObject(job.request.metadata) ? Object.keys(job.request.metadata) : [];
  const renamed = typeof job.request.filename === 'string' && !patch.includes('filename');
  const fields = renamed ? [...patch, 'filename'] : patch;
  return {
    updated_fields: fields.slice(0, MAX_STATUS_UPDATED_FIELDS),
    updated_fields_count: fields.length,
    updated_fields_truncated: fields.length > MAX_STATUS_UPDATED_FIELDS,
  };
}

function common(job: JobRecord): JobView {
  return { job_id: job.jobId, document_id: job.documentId, status: job.status, operation: job.operation };
}

export async function renderJob(job: JobRecord, deps: JobViewDependencies): Promise<JobView> {
  const now = deps.now?.() ?? Date.now();
  // The result is read as the JSON it is stored as: what a state shows falls back to its default when a record of
  // an earlier release lacks a field.
  const result: JsonObject = job.result ?? {};
  const view = common(job);
  // SPEC.md lists version_id for metadata update jobs only; an upload's status has none beyond its state's fields.
  if (job.operation === 'metadata_update') Object.assign(view, { version_id: job.versionKey === null ? null : versionIdFromKey(job.versionKey) }, updatedFieldsView(job));
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
      return { ...view, error: job.error ?? 'Processing failed', ...(job.errorDetails ? { error_details: job.errorDetails } : {}), ...operationFields(job, result), ...(await currentReadiness(job, deps)) };
    case 'superseded':
      return {
        ...view,
        publication_status: result.publication_status ?? 'superseded',
        superseded_by_job_id: result.superseded_by_job_id || null,
        superseded_reason: result.superseded_reason ?? 'newer_upload',
        error: null,
      };
    case 'partial_failed':
      if (deps.publicationEnabled) await verifyPublication(job, result, deps);
      return {
        ...view,
        chunks_created: result.chunks_created ?? 0,
        entities_extracted: result.entities_extracted ?? {},
        error: job.error,
        ...searchReadiness(job, deps),
      };
    case 'completed':
      if (job.operation === 'embed') return { ...view, ...(await completedUpload(job, result, deps)) };
      // publication_status ready is shown only once the update's generations verify.
      if (job.operation === 'metadata_update' && deps.publicationEnabled) await verifyPublication(job, result, deps);
      return { ...view, ...operationFields(job, result), ...(await currentReadiness(job, deps)) };
  }
}

/**
 * A finished backfill job shows its Client's readiness as it is now (SPEC.md: the Client's durable state), not
 * as the job left it: a run refused while another was backfilling still says ready once that one converged.
 */
async function currentReadiness(job: JobRecord, deps: JobViewDependencies): Promise<JsonObject> {
  if (job.operation !== 'metadata_backfill') return {};
  return { readiness_state: (await discoveryReadiness(deps.storage, job.clientId)).state };
}

/**
 * A running backfill's progress, once it has planned (counted its versions): readiness_state backfilling and
 * the counters so far. A job still planning shows none of them (SPEC.md backfill job).
 */
function backfillProgress(job: JobRecord): JsonObject {
  const progress: JsonObject | null = job.result;
  if (job.operation !== 'metadata_backfill' || !progress || typeof progress.versions_total !== 'number') return {};
  const { cursor: _cursor, republishing: _republishing, violations, violations_total: total, ...counts } = progress;
  const shown = Array.isArray(violations) ? violations : [];
  return { ...counts, violations: shown, violations_total: total ?? 0, violations_truncated: typeof total === 'number' && total > shown.length };
}

/** Counters of a metadata update that ended before it counted anything. */
const EMPTY_UPDATE_COUNTS: JsonObject = { versions_total: 0, versions_completed: 0, versions_unchanged: 0, updated_chunks: 0, cleanup_tasks_scheduled: 0 };

function operationFields(job: JobRecord, result: JsonObject): JsonObject {
  if (job.operation === 'embed') return {};
  if (job.operation === 'metadata_update') {
    const { published: _published, ...shown } = result; // publication evidence, for verification only
    return { ...EMPTY_UPDATE_COUNTS, ...shown };
  }
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
    ...searchReadiness(job, deps),
  };
  if (deps.publicationEnabled) {
    const readiness = await discoveryReadiness(deps.storage, job.clientId);
    fields.readiness_state = readiness.state;
    fields.metadata_ready = readiness.state === 'ready';
  }
  return fields;
}

/** The job's version as the snapshot serves it, and whether that holds the job's generation or a newer one. */
function servedVersion(job: JobRecord, snapshot: ClientSnapshot): { generation: number | null; holdsJob: boolean } {
  const versionId = versionIdFromKey(job.versionKey ?? job.documentId);
  const served = snapshot.versions.get(versionIdentity({ documentId: job.documentId, versionId }));
  const result: JsonObject | null = job.result;
  const generation = typeof result?.generation === 'number' ? result.generation : Number.POSITIVE_INFINITY;
  return { generation: served?.generation ?? null, holdsJob: served !== undefined && served.generation >= generation };
}

function searchReadiness(job: JobRecord, deps: JobViewDependencies): JsonObject {
  const served = servedVersion(job, deps.snapshot);
  return { search_ready: served.holdsJob, snapshot_generation: served.generation };
}

/**
 * What rendering the job reads of the snapshot: an upload that published (completed or partial_failed) reads its
 * version there (search_ready and snapshot_generation); a job in flight, failed or superseded reads nothing.
 */
export function snapshotReadsOf(job: JobRecord): SnapshotReads {
  const readsVersion = job.status === 'partial_failed' || (job.status === 'completed' && job.operation === 'embed');
  if (!readsVersion) return 'nothing';
  return { documentId: job.documentId, versionKey: job.versionKey ?? job.documentId, served: (snapshot) => servedVersion(job, snapshot).holdsJob };
}

/**
 * A publication record verifies when its manifest is well-formed evidence of this Document Version: the
 * record id is the one its job published under, and the content count is the generation's chunk count.
 */
function manifestVerifies(record: ManifestRecord, documentId: string, versionId: string | null): boolean {
  const manifest = record.manifest;
  if (!manifestIsValid(manifest, documentId, versionId)) return false;
  const evidence = manifest as unknown as Manifest;
  return evidence.record_id === recordIdOf(documentId, versionId, record.jobId) && evidence.content.count === record.chunkCount;
}

/**
 * SPEC.md status rules, reading manifests only: the job's generation must still carry, unchanged, the
 * manifest it was published with. A retired one is accepted when the version's active successor verifies;
 * that takes at most three reads, and a read is retried only when a strictly newer generation appeared.
 */
async function verifyGeneration(job: JobRecord, published: { generation: number; manifestDigest: unknown; versionKey: string }, deps: JobViewDependencies): Promise<void> {
  const store = deps.storage.client(job.clientId);
  const versionId = versionIdFromKey(published.versionKey);
  const own = await store.generations.manifest(published.generation);
  if (!own || own.documentId !== job.documentId || own.versionKey !== published.versionKey) {
    throw new ServiceError('publication_unavailable', 'The job generation has no manifest');
  }
  if (own.state === 'active') {
    if (!manifestVerifies(own, job.documentId, versionId) || manifestDigest(own.manifest!) !== published.manifestDigest) {
      throw new ServiceError('publication_authority_inconsistent', 'The generation manifest does not match its publication record');
    }
    return;
  }
  let newest = published.generation;
  for (let attempt = 0; attempt < SUCCESSOR_VERIFICATION_ATTEMPTS; attempt++) {
    const successor = await store.generations.activeManifest(job.documentId, published.versionKey);
    if (!successor || successor.generation <= newest) break;
    if (manifestVerifies(successor, job.documentId, versionId)) return;
    newest = successor.generation;
  }
  throw new ServiceError('publication_unavailable', 'The generation was retired and no newer generation verifies');
}

/** The generations a job published, each with the manifest digest it recorded. */
function publishedBy(job: JobRecord, result: JsonObject): { generation: number; manifestDigest: unknown; versionKey: string }[] {
  if (job.operation === 'embed') {
    if (typeof result.generation !== 'number') throw new ServiceError('publication_unavailable', 'The job carries no publication evidence');
    return [{ generation: result.generation, manifestDigest: result.manifest_digest, versionKey: job.versionKey ?? job.documentId }];
  }
  const published = Array.isArray(result.published) ? (result.published as JsonObject[]) : [];
  return published.map((entry) => ({ generation: Number(entry.generation), manifestDigest: entry.manifest_digest, versionKey: String(entry.version_key) }));
}

async function verifyPublication(job: JobRecord, result: JsonObject, deps: JobViewDependencies): Promise<void> {
  for (const published of publishedBy(job, result)) await verifyGeneration(job, published, deps);
}
