// Runs one upload job: ingest the bytes, stage a generation, activate it atomically and publish it.
// An older job never overwrites a newer upload of the same Document Version: it ends superseded instead.

import type { Storage } from '../storage/storage.ts';
import type { JobRecord } from '../storage/job-store.ts';
import type { GenerationInput, GenerationRecord, LoadedGeneration } from '../storage/client-store.ts';
import type { PublicationAuthority } from '../publication/authority.ts';
import { computeManifest, manifestDigest } from '../publication/manifest.ts';
import { runIngest } from '../ingest/pipeline.ts';
import type { IngestDependencies, IngestSource } from '../ingest/pipeline.ts';
import { IngestError } from '../ingest/parsed-document.ts';
import { metadataLeaves } from '../domain/metadata-leaves.ts';
import { versionIdFromKey } from '../domain/identity.ts';
import type { JsonObject } from '../domain/canonical-metadata.ts';
import { isJsonObject } from '../domain/canonical-metadata.ts';
import { RetryableJobError } from './worker.ts';
import type { JobContext, JobHandler, JobOutcome } from './worker.ts';

export interface EmbedJobRequest {
  source: 'text' | 'file';
  text?: string;
  upload?: string;
  filename: string | null;
  metadata: JsonObject;
}

export interface EmbedJobDependencies {
  storage: Storage;
  authority: PublicationAuthority;
  ingest: Omit<IngestDependencies, 'onStage'>;
  chunkerName: string;
  stageDelayMs: number;
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

async function sourceOf(job: JobRecord, request: EmbedJobRequest, storage: Storage): Promise<IngestSource> {
  if (request.source === 'text') return { kind: 'text', text: request.text ?? '', filename: request.filename };
  const bytes = request.upload ? storage.readUpload(request.upload) : null;
  if (!bytes) throw new IngestError('upload_missing', `The uploaded file of job ${job.jobId} is no longer available`);
  return { kind: 'file', bytes, filename: request.filename ?? 'upload' };
}

export function createEmbedJobHandler(deps: EmbedJobDependencies): JobHandler {
  return async (job: JobRecord, context: JobContext): Promise<JobOutcome> => {
    const request = job.request as unknown as EmbedJobRequest;
    const versionKey = job.versionKey ?? job.documentId;
    const store = deps.storage.client(job.clientId);

    // A crash after activation but before the outcome was recorded: the work is already published.
    const active = store.activeGeneration(job.documentId, versionKey);
    if (active?.jobId === job.jobId) return finishWith(deps, request, { status: 'completed', result: completedResult(active, job, 0) });

    const newest = deps.storage.jobs.newestEmbedJob(job.clientId, job.documentId, versionKey);
    if (newest && newest.seq > job.seq) return finishWith(deps, request, supersededBy(newest.jobId));

    await context.heartbeat('processing');
    const onStage = async () => {
      if (deps.stageDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, deps.stageDelayMs));
      await context.heartbeat();
    };
    const source = await sourceOf(job, request, deps.storage);
    const output = await runIngest(source, isJsonObject(request.metadata) ? request.metadata : {}, { ...deps.ingest, onStage }, deps.chunkerName);
    if (output.chunks.length === 0) {
      return finishWith(deps, request, { status: 'failed', error: output.firstError ?? 'No chunk could be indexed' });
    }

    // Publication out of service (maintenance, recovery): keep the work queued, retry later.
    if (deps.authority.enabled && deps.authority.mode !== 'READY') throw new RetryableJobError('Publication is not ready');
    const versionId = versionIdFromKey(versionKey);
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
      manifest: computeManifest({ documentId: job.documentId, versionId, jobId: job.jobId }, output.chunks, leaves) as unknown as JsonObject,
    };

    let overtakenBy: string | null = null;
    const activation = store.stageAndActivate(input, (current) => {
      const newer = deps.storage.jobs.newestEmbedJob(job.clientId, job.documentId, versionKey);
      if (newer && newer.seq > job.seq) {
        overtakenBy = newer.jobId;
        return false;
      }
      if (current?.jobId && current.jobId !== job.jobId) {
        const owner = deps.storage.jobs.getById(current.jobId);
        if (owner && owner.operation === 'embed' && owner.seq > job.seq) {
          overtakenBy = owner.jobId;
          return false;
        }
      }
      return true;
    });
    if (!activation) return finishWith(deps, request, supersededBy(overtakenBy ?? ''));

    // Publish in the same tick as the commit so the snapshot order always equals the commit order.
    const generation = store.generation(activation.generation)!;
    const loaded: LoadedGeneration = { ...generation, chunks: output.chunks, leaves };
    deps.authority.publish(job.clientId, { activated: [loaded] });
    if (activation.previousGeneration !== null) store.cleanupRetired([activation.previousGeneration]);

    const result = completedResult(generation, job, output.failedChunks);
    if (output.failedChunks > 0) {
      return finishWith(deps, request, { status: 'partial_failed', result, error: output.firstError });
    }
    return finishWith(deps, request, { status: 'completed', result });
  };
}

function finishWith(deps: EmbedJobDependencies, request: EmbedJobRequest, outcome: JobOutcome): JobOutcome {
  if (request.upload) deps.storage.deleteUpload(request.upload);
  return outcome;
}
