// Runs one upload job: ingest the bytes, stage a generation, then activate it through the publisher.
// While publication is paused the staged generation waits with the job, so the document is never parsed or
// embedded twice. An older job never overwrites a newer upload of the same Document Version: it ends superseded.
//
// Per-Client quotas (docs/configuration.md "Limits") are checked three times, each before the next cost is paid: before parsing (the
// Client is already at a quota), before staging (this document's chunks and text bytes would take it over) and
// before activating (other jobs may have activated meanwhile). A breach fails the job legibly, with error_details, and
// leaves nothing staged or indexed. Jobs activating at the same moment on different workers can each pass the last
// check, so a quota may be overshot by at most the documents activating concurrently (WORKER_PROCESSES x
// WORKER_CONCURRENCY - 1); no further upload is accepted after that.

import { createHash } from 'node:crypto';
import type { StoragePort } from '../storage/port.ts';
import type { GenerationInput, GenerationRecord } from '../domain/generation.ts';
import type { Publisher } from '../publication/publisher.ts';

import { manifestDigest } from '../codec/manifest.ts';
import { inlineLanesBuilder } from './threaded-lanes.ts';
import type { LanesBuilder } from './threaded-lanes.ts';
import { runIngest } from '../ingest/pipeline.ts';
import type { IngestDependencies, IngestSource } from '../ingest/pipeline.ts';
import { IngestError } from '../ingest/parsed-document.ts';
import { metadataLeaves } from '../domain/metadata-leaves.ts';
import { versionIdFromKey } from '../domain/identity.ts';
import { isJsonObject } from '../domain/canonical-metadata.ts';
import type { EmbedJobRequest, EmbedResult, StagedProgress } from '../domain/job-payloads.ts';
import { importedCanonical } from '../domain/client-export.ts';
import type { DeletionMarkers } from '../domain/generation.ts';
import { REPLACEMENT_OVERTAKEN } from '../domain/jobs.ts';
import type { JobContext, JobHandler, JobOutcomeOf, JobRecordOf } from '../domain/jobs.ts';
import type { ClientQuotas, QuotaBreach, Truncation } from '../domain/limits.ts';
import { chunkTextBytes, projectedBreach, quotaMessage, uploadRefusal } from '../domain/limits.ts';
import { faultPoint } from '../fault-points.ts';

type EmbedJob = JobRecordOf<'embed'>;
type EmbedOutcome = JobOutcomeOf<'embed'>;

export interface EmbedJobDependencies {
  storage: StoragePort;
  publisher: Publisher;
  ingest: Omit<IngestDependencies, 'onStage'>;
  chunkerName: string;
  /** Per-Client quotas (CLIENT_MAX_DOCUMENTS, CLIENT_MAX_CHUNKS, CLIENT_MAX_TEXT_BYTES). */
  quotas: ClientQuotas;
  /** Called once per ingest run (parse, chunk, enrich, embed) of a job: logs and metrics. */
  onIngest?: (job: EmbedJob) => void;
  /** Builds the lane data and manifest of a staged generation (a worker process does it on its lanes thread). */
  lanes?: LanesBuilder;
}

function quotaFailure(found: QuotaBreach, when: 'upload' | 'job'): EmbedOutcome {
  return { status: 'failed', error: quotaMessage(found, when), errorDetails: found };
}

/** The job's error when limits cut the document short: which limits, and where the caller can see it. */
export function truncationMessage(truncations: readonly Truncation[]): string {
  const limits = truncations.map((truncation) => `${truncation.limit} ${truncation.max}`).join(', ');
  return `The document exceeds the per-document limits (${limits}): only its beginning was indexed; metadata.quality.warnings says what was left out.`;
}

/** Why a job that activated ends partial_failed, or null when it completed whole. */
function partialError(progress: StagedProgress): string | null {
  const errors: string[] = [];
  if (progress.truncations && progress.truncations.length > 0) errors.push(truncationMessage(progress.truncations));
  if (progress.failed_chunks > 0) errors.push(progress.first_error ?? `${progress.failed_chunks} chunks could not be embedded`);
  return errors.length > 0 ? errors.join(' ') : null;
}

function completedResult(generation: GenerationRecord, failedChunks: number): EmbedResult {
  const classification = generation.canonicalMetadata.classification;
  return {
    generation: generation.generation,
    manifest_digest: manifestDigest(generation.manifest),
    chunks_created: generation.chunkCount,
    failed_chunks: failedChunks,
    categories: classification.categories,
    classification_status: classification.status,
    entities_extracted: generation.entities,
    created_at: generation.createdAt,
  };
}

/** When the version's content was created: an imported version keeps the instant it was exported with. */
function versionCreatedAt(job: EmbedJob, request: EmbedJobRequest): string {
  return request.source === 'import' && request.imported ? request.imported.created_at : job.createdAt;
}

/** An imported version keeps its deletion markers (a soft-deleted one is imported soft-deleted); an upload has none. */
function deletionOf(request: EmbedJobRequest): DeletionMarkers {
  const imported = request.source === 'import' ? request.imported : undefined;
  return imported ? { deleted: imported.deleted, deletedAt: imported.deleted_at, deletedBy: imported.deleted_by } : { deleted: false, deletedAt: null, deletedBy: null };
}

function supersededBy(jobId: string): EmbedOutcome {
  return {
    status: 'superseded',
    result: { publication_status: 'superseded', superseded_by_job_id: jobId, superseded_reason: 'newer_upload' },
    error: null,
  };
}

/** Whether the stored file is the one accepted: its size and SHA-256 as recorded with the job (when recorded). */
export function uploadIsWhole(request: EmbedJobRequest, bytes: Uint8Array): boolean {
  if (request.uploadBytes !== undefined && bytes.byteLength !== request.uploadBytes) return false;
  return request.uploadSha256 === undefined || createHash('sha256').update(bytes).digest('hex') === request.uploadSha256;
}

async function sourceOf(job: EmbedJob, request: EmbedJobRequest, storage: StoragePort): Promise<IngestSource> {
  if (request.source === 'text') return { kind: 'text', text: request.text ?? '', filename: request.filename };
  if (request.source === 'import' && request.imported) {
    const { imported } = request;
    const chunks = imported.chunks.map((chunk) => ({ chunkIndex: chunk.index, page: chunk.page, pageLabel: chunk.page_label, text: chunk.text, rows: chunk.rows ?? null }));
    return { kind: 'chunks', chunks, canonical: importedCanonical(imported), filename: imported.filename };
  }
  const bytes = request.upload ? await storage.uploads.read(request.upload) : null;
  if (!bytes) throw new IngestError('upload_missing', `The uploaded file of job ${job.jobId} is no longer available`);
  if (!uploadIsWhole(request, bytes)) {
    // Never parsed: text cut short would be indexed and completed as if it were the document.
    throw new IngestError('upload_damaged', `The uploaded file of job ${job.jobId} is not the file accepted (its size or SHA-256 differs); upload it again`, { transient: false });
  }
  return { kind: 'file', bytes, filename: request.filename ?? 'upload' };
}

/** The generation an earlier attempt staged, when the job's result is that progress (not yet a published result). */
function stagedProgressOf(job: EmbedJob): StagedProgress | null {
  const progress = job.result;
  return progress !== null && 'staged_generation' in progress && typeof progress.staged_generation === 'number' ? progress : null;
}

export function createEmbedJobHandler(deps: EmbedJobDependencies): JobHandler<'embed'> {
  return async (job, context): Promise<EmbedOutcome> => {
    const request = job.request;
    const versionKey = job.versionKey ?? job.documentId;
    const store = deps.storage.client(job.clientId);

    // A crash after activation but before the outcome was recorded: the work is already published.
    const active = await store.generations.activeGeneration(job.documentId, versionKey);
    if (active?.jobId === job.jobId) return finishWith(deps, request, { status: 'completed', result: completedResult(active, stagedProgressOf(job)?.failed_chunks ?? 0) });

    const staged = stagedProgressOf(job);
    const newest = await deps.storage.jobs.newestEmbedJob(job.clientId, job.documentId, versionKey);
    if (newest && newest.seq > job.seq) {
      if (staged) await deps.publisher.discard(job.clientId, staged.staged_generation);
      return finishWith(deps, request, supersededBy(newest.jobId));
    }

    // Resume a generation staged by an earlier attempt that waited for publication, or ingest and stage now.
    const progress = staged && (await store.generations.generation(staged.staged_generation))?.state === 'staged' ? staged : await ingestAndStage(job, request, context, deps);
    if ('status' in progress) return finishWith(deps, request, progress);

    // Ingest took time: a newer upload accepted meanwhile owns the version now.
    const newer = await deps.storage.jobs.newestEmbedJob(job.clientId, job.documentId, versionKey);
    if (newer && newer.seq > job.seq) {
      await deps.publisher.discard(job.clientId, progress.staged_generation);
      return finishWith(deps, request, supersededBy(newer.jobId));
    }
    // Other jobs of the Client may have activated since this one staged: the quota is checked against now.
    if (progress.chunks !== undefined && progress.text_bytes !== undefined) {
      const found = projectedBreach(await store.generations.usage({ documentId: job.documentId, versionKey }), { chunks: progress.chunks, textBytes: progress.text_bytes }, deps.quotas);
      if (found) {
        await deps.publisher.discard(job.clientId, progress.staged_generation);
        return finishWith(deps, request, quotaFailure(found, 'job'));
      }
    }
    let outcome: EmbedOutcome | null = null;
    // Throws PublicationPaused while the authority is not READY: the worker keeps the job (and the staged
    // generation) waiting, without spending an attempt. Inside the activating transaction: a version whose
    // content came from a later upload is never moved back to this one (newer_upload), and a version that any
    // other publication changed since this job staged is not overwritten (replacement_overtaken).
    const activation = await deps.publisher.activateStaged(job.clientId, progress.staged_generation, (current) => {
      if (current?.jobId && current.jobId !== job.jobId && current.createdAt > job.createdAt) {
        outcome = supersededBy(current.jobId);
        return false;
      }
      if (progress.source_generation !== undefined && (current?.generation ?? null) !== progress.source_generation) {
        outcome = REPLACEMENT_OVERTAKEN;
        return false;
      }
      return true;
    });
    if (!activation) {
      await deps.publisher.discard(job.clientId, progress.staged_generation);
      return finishWith(deps, request, outcome ?? supersededBy(''));
    }
    const generation = (await store.generations.generation(activation.generation))!;
    const result = completedResult(generation, progress.failed_chunks);
    const partial = partialError(progress);
    if (partial) return finishWith(deps, request, { status: 'partial_failed', result, error: partial });
    return finishWith(deps, request, { status: 'completed', result });
  };
}

/** Parses, chunks, enriches and embeds the upload, then stages its generation; a failed outcome when nothing indexed. */
async function ingestAndStage(job: EmbedJob, request: EmbedJobRequest, context: JobContext<'embed'>, deps: EmbedJobDependencies): Promise<StagedProgress | EmbedOutcome> {
  const versionKey = job.versionKey ?? job.documentId;
  const store = deps.storage.client(job.clientId);
  // A Client already at a quota gets nothing parsed (the upload was accepted before it got there).
  const refused = uploadRefusal(await store.generations.usage({ documentId: job.documentId, versionKey }), deps.quotas);
  if (refused) return quotaFailure(refused, 'upload');
  await context.heartbeat('processing');
  deps.onIngest?.(job);
  const onStage = async () => {
    await faultPoint('job-stage');
    await context.heartbeat();
  };
  const source = await sourceOf(job, request, deps.storage);
  const output = await runIngest(source, isJsonObject(request.metadata) ? request.metadata : {}, { ...deps.ingest, onStage }, deps.chunkerName);
  if (output.chunks.length === 0) return { status: 'failed', error: output.firstError ?? 'No chunk could be indexed' };
  const textBytes = chunkTextBytes(output.chunks);
  const found = projectedBreach(await store.generations.usage({ documentId: job.documentId, versionKey }), { chunks: output.chunks.length, textBytes }, deps.quotas);
  if (found) return quotaFailure(found, 'job');
  const leaves = metadataLeaves(output.canonicalMetadata);
  const ref = { documentId: job.documentId, versionId: versionIdFromKey(versionKey), jobId: job.jobId };
  const { lanes, manifest } = await (deps.lanes ?? inlineLanesBuilder)(ref, output.chunks, leaves, output.canonicalMetadata.extracted.title ?? null);
  const input: GenerationInput = {
    documentId: job.documentId,
    versionKey,
    jobId: job.jobId,
    createdAt: versionCreatedAt(job, request),
    canonicalMetadata: output.canonicalMetadata,
    entities: output.entities,
    embedding: output.embedding,
    deletion: deletionOf(request),
    chunks: output.chunks,
    leaves,
    manifest,
    lanes,
  };
  const replaced = await deps.storage.client(job.clientId).generations.activeGeneration(job.documentId, versionKey);
  const progress: StagedProgress = {
    source_generation: replaced?.generation ?? null,
    staged_generation: await deps.publisher.stage(job.clientId, input),
    failed_chunks: output.failedChunks,
    first_error: output.firstError,
    chunks: output.chunks.length,
    text_bytes: textBytes,
    truncations: output.truncations,
  };
  await context.recordProgress(progress);
  await onStage(); // fault injection: the same pause between staging and activation
  return progress;
}

async function finishWith(deps: EmbedJobDependencies, request: EmbedJobRequest, outcome: EmbedOutcome): Promise<EmbedOutcome> {
  if (request.upload) await deps.storage.uploads.delete(request.upload);
  return outcome;
}
