// Runs one upload job: ingest the bytes, stage a generation, then activate it through the publisher.
// While publication is paused the staged generation waits with the job, so the document is never parsed or
// embedded twice. An older job never overwrites a newer upload of the same Document Version: it ends superseded.

import type { StoragePort } from '../storage/port.ts';
import type { GenerationInput, GenerationRecord } from '../domain/generation.ts';
import type { Publisher } from '../publication/publisher.ts';
import { computeManifest, manifestDigest } from '../publication/manifest.ts';
import { runIngest } from '../ingest/pipeline.ts';
import type { IngestDependencies, IngestSource } from '../ingest/pipeline.ts';
import { IngestError } from '../ingest/parsed-document.ts';
import { metadataLeaves } from '../domain/metadata-leaves.ts';
import { versionIdFromKey } from '../domain/identity.ts';
import type { JsonObject } from '../domain/canonical-metadata.ts';
import { isJsonObject } from '../domain/canonical-metadata.ts';
import type { EmbedJobRequest } from '../domain/upload.ts';
import { REPLACEMENT_OVERTAKEN } from '../domain/jobs.ts';
import type { JobContext, JobHandler, JobOutcome, JobRecord } from '../domain/jobs.ts';

export interface EmbedJobDependencies {
  storage: StoragePort;
  publisher: Publisher;
  ingest: Omit<IngestDependencies, 'onStage'>;
  chunkerName: string;
  stageDelayMs: number;
  /** Called once per ingest run (parse, chunk, enrich, embed) of a job: logs and metrics. */
  onIngest?: (job: JobRecord) => void;
}

/** What a job remembers about its staged generation while it waits for publication. */
interface StagedProgress {
  staged_generation: number;
  /** The version's active generation when this job staged (null: none); a different one at activation means overtaken. */
  source_generation: number | null;
  failed_chunks: number;
  first_error: string | null;
}

function completedResult(generation: GenerationRecord, job: JobRecord, failedChunks: number): JsonObject {
  const classification = generation.canonicalMetadata.classification;
  return {
    generation: generation.generation,
    manifest_digest: manifestDigest(generation.manifest),
    chunks_created: generation.chunkCount,
    failed_chunks: failedChunks,
    categories: classification.categories,
    classification_status: classification.status,
    entities_extracted: generation.entities as unknown as JsonObject,
    created_at: job.createdAt,
  };
}

function supersededBy(jobId: string): JobOutcome {
  return {
    status: 'superseded',
    result: { publication_status: 'superseded', superseded_by_job_id: jobId, superseded_reason: 'newer_upload' },
    error: null,
  };
}

async function sourceOf(job: JobRecord, request: EmbedJobRequest, storage: StoragePort): Promise<IngestSource> {
  if (request.source === 'text') return { kind: 'text', text: request.text ?? '', filename: request.filename };
  const bytes = request.upload ? await storage.readUpload(request.upload) : null;
  if (!bytes) throw new IngestError('upload_missing', `The uploaded file of job ${job.jobId} is no longer available`);
  return { kind: 'file', bytes, filename: request.filename ?? 'upload' };
}

function stagedProgressOf(job: JobRecord): StagedProgress | null {
  const progress = job.result;
  return progress && typeof progress.staged_generation === 'number' ? (progress as unknown as StagedProgress) : null;
}

export function createEmbedJobHandler(deps: EmbedJobDependencies): JobHandler {
  return async (job: JobRecord, context: JobContext): Promise<JobOutcome> => {
    const request = job.request as unknown as EmbedJobRequest;
    const versionKey = job.versionKey ?? job.documentId;
    const store = deps.storage.client(job.clientId);

    // A crash after activation but before the outcome was recorded: the work is already published.
    const active = await store.activeGeneration(job.documentId, versionKey);
    if (active?.jobId === job.jobId) return finishWith(deps, request, { status: 'completed', result: completedResult(active, job, stagedProgressOf(job)?.failed_chunks ?? 0) });

    const staged = stagedProgressOf(job);
    const newest = await deps.storage.jobs.newestEmbedJob(job.clientId, job.documentId, versionKey);
    if (newest && newest.seq > job.seq) {
      if (staged) await deps.publisher.discard(job.clientId, staged.staged_generation);
      return finishWith(deps, request, supersededBy(newest.jobId));
    }

    // Resume a generation staged by an earlier attempt that waited for publication, or ingest and stage now.
    const progress = staged && (await store.generation(staged.staged_generation))?.state === 'staged' ? staged : await ingestAndStage(job, request, context, deps);
    if ('status' in progress) return finishWith(deps, request, progress);

    // Ingest took time: a newer upload accepted meanwhile owns the version now.
    const newer = await deps.storage.jobs.newestEmbedJob(job.clientId, job.documentId, versionKey);
    if (newer && newer.seq > job.seq) {
      await deps.publisher.discard(job.clientId, progress.staged_generation);
      return finishWith(deps, request, supersededBy(newer.jobId));
    }
    let outcome: JobOutcome | null = null;
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
    const generation = (await store.generation(activation.generation))!;
    const result = completedResult(generation, job, progress.failed_chunks);
    if (progress.failed_chunks > 0) return finishWith(deps, request, { status: 'partial_failed', result, error: progress.first_error });
    return finishWith(deps, request, { status: 'completed', result });
  };
}

/** Parses, chunks, enriches and embeds the upload, then stages its generation; a failed outcome when nothing indexed. */
async function ingestAndStage(job: JobRecord, request: EmbedJobRequest, context: JobContext, deps: EmbedJobDependencies): Promise<StagedProgress | JobOutcome> {
  await context.heartbeat('processing');
  deps.onIngest?.(job);
  const onStage = async () => {
    if (deps.stageDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, deps.stageDelayMs));
    await context.heartbeat();
  };
  const source = await sourceOf(job, request, deps.storage);
  const output = await runIngest(source, isJsonObject(request.metadata) ? request.metadata : {}, { ...deps.ingest, onStage }, deps.chunkerName);
  if (output.chunks.length === 0) return { status: 'failed', error: output.firstError ?? 'No chunk could be indexed' };
  const versionKey = job.versionKey ?? job.documentId;
  const leaves = metadataLeaves(output.canonicalMetadata);
  const input: GenerationInput = {
    documentId: job.documentId,
    versionKey,
    jobId: job.jobId,
    createdAt: job.createdAt,
    canonicalMetadata: output.canonicalMetadata,
    entities: output.entities,
    embedding: output.embedding,
    deletion: { deleted: false, deletedAt: null, deletedBy: null },
    chunks: output.chunks,
    leaves,
    manifest: computeManifest({ documentId: job.documentId, versionId: versionIdFromKey(versionKey), jobId: job.jobId }, output.chunks, leaves) as unknown as JsonObject,
  };
  const replaced = await deps.storage.client(job.clientId).activeGeneration(job.documentId, versionKey);
  const progress: StagedProgress = {
    source_generation: replaced?.generation ?? null,
    staged_generation: await deps.publisher.stage(job.clientId, input),
    failed_chunks: output.failedChunks,
    first_error: output.firstError,
  };
  await context.recordProgress(progress as unknown as JsonObject);
  await onStage(); // fault injection: the same pause between staging and activation
  return progress;
}

async function finishWith(deps: EmbedJobDependencies, request: EmbedJobRequest, outcome: JobOutcome): Promise<JobOutcome> {
  if (request.upload) await deps.storage.deleteUpload(request.upload);
  return outcome;
}
