// The metadata_update job: merges the accepted patch onto every targeted version's custom metadata, checks the
// contract on what each would hold, and publishes every changed version in one step (a search sees all of the
// update or none of it). PATCH /update's accept, which records the job, is publication/update-service.ts.

import type { StoragePort } from '../storage/port.ts';
import type { GenerationInput, LoadedGeneration } from '../domain/generation.ts';
import { successorOf } from '../publication/successor.ts';
import type { Publisher } from '../publication/publisher.ts';
import { manifestDigest } from '../codec/manifest.ts';
import { versionIdFromKey } from '../domain/identity.ts';
import type { CanonicalMetadata, JsonObject, JsonValue } from '../domain/canonical-metadata.ts';
import { isJsonObject } from '../domain/canonical-metadata.ts';
import { mergePatch, canonicalJson } from '../domain/merge-patch.ts';
import { checkMetadataContract } from '../domain/metadata-contract.ts';
import { metadataLeaves } from '../domain/metadata-leaves.ts';
import { REPLACEMENT_OVERTAKEN } from '../domain/jobs.ts';
import type { JobHandler, JobOutcomeOf } from '../domain/jobs.ts';
import type { MetadataUpdateCounts, PublishedGeneration } from '../domain/job-payloads.ts';
import { faultPoint } from '../fault-points.ts';

/** SPEC.md: the error of a metadata update that failed, for every reason but a contract violation. */
export const METADATA_UPDATE_FAILED = 'Metadata update failed';
export const METADATA_UPDATE_VALIDATION_FAILED = 'Metadata update validation failed';

/** Custom metadata of nothing: what a stored patch that is not an object amounts to. */
const NO_PATCH: JsonObject = Object.freeze({}) as JsonObject;

export interface MetadataUpdateDependencies {
  storage: StoragePort;
  publisher: Publisher;
}

export function createMetadataUpdateHandler(deps: MetadataUpdateDependencies): JobHandler<'metadata_update'> {
  return async (job): Promise<JobOutcomeOf<'metadata_update'>> => {
    const store = deps.storage.client(job.clientId);
    // Guarded though typed: the record is JSON a store holds, and a patch that is not an object changes nothing.
    const patch = isJsonObject(job.request.metadata) ? job.request.metadata : NO_PATCH;
    const filename = typeof job.request.filename === 'string' ? job.request.filename : undefined;
    const all = await store.generations.activeGenerationsOf(job.documentId);
    const targets = job.versionKey === null ? all : all.filter((generation) => generation.versionKey === job.versionKey);
    const counts: MetadataUpdateCounts = { versions_total: targets.length, versions_completed: 0, versions_unchanged: 0, updated_chunks: 0, cleanup_tasks_scheduled: 0 };
    if (targets.length === 0) return { status: 'failed', error: METADATA_UPDATE_FAILED, result: counts };
    // Publication paused: wait (no attempt spent) before preparing anything; nothing expensive is redone.
    await deps.publisher.assertReady();

    const replacements: { loaded: LoadedGeneration; input: GenerationInput; expected: number }[] = [];
    for (const target of targets) {
      if (target.unreadable) {
        // Its stored metadata cannot be read, so no patch of it can be: replace the version by a new upload.
        return { status: 'failed', error: METADATA_UPDATE_FAILED, errorDetails: { code: 'stored_generation_unreadable', version_id: versionIdFromKey(target.versionKey), parts: target.unreadable }, result: counts };
      }
      const merged = mergePatch(target.canonicalMetadata.custom, patch) as JsonValue;
      const violation = checkMetadataContract(merged);
      if (violation) {
        return { status: 'failed', error: METADATA_UPDATE_VALIDATION_FAILED, errorDetails: violation, result: counts };
      }
      // A soft-deleted version keeps its previous filename and stays deleted.
      const source = filename !== undefined && !target.deletion.deleted ? { ...target.canonicalMetadata.source, filename } : target.canonicalMetadata.source;
      const canonicalMetadata: CanonicalMetadata = { ...target.canonicalMetadata, source, custom: merged as JsonObject };
      if (canonicalJson(canonicalMetadata as unknown as JsonValue) === canonicalJson(target.canonicalMetadata as unknown as JsonValue)) {
        counts.versions_unchanged++;
        continue;
      }
      const loaded = await store.generations.loadGeneration(target.generation);
      if (!loaded || loaded.state !== 'active') return REPLACEMENT_OVERTAKEN;
      replacements.push({ loaded, input: successorOf(loaded, { canonicalMetadata, leaves: metadataLeaves(canonicalMetadata), jobId: job.jobId }), expected: target.generation });
    }
    let published: PublishedGeneration[] = [];
    if (replacements.length > 0) {
      await faultPoint('job-stage');
      // One transaction for every version of the update: a search sees all of it or none of it. A version
      // that moved since it was read makes the whole update superseded, never merged onto the newer state.
      const activations = await deps.publisher.replace(job.clientId, replacements.map(({ input, expected }) => ({ input, expected })));
      if (!activations) return REPLACEMENT_OVERTAKEN;
      counts.cleanup_tasks_scheduled = activations.filter(({ previousGeneration }) => previousGeneration !== null).length;
      counts.updated_chunks = replacements.reduce((sum, { loaded }) => sum + loaded.chunks.length, 0);
      // Publication evidence for status polls, which verify these manifests before saying ready.
      published = activations.map(({ generation }, index) => ({
        generation,
        version_key: replacements[index].input.versionKey,
        manifest_digest: manifestDigest(replacements[index].input.manifest),
      }));
    }
    counts.versions_completed = targets.length;
    return {
      status: 'completed',
      result: { ...counts, publication_status: 'ready', version_id: job.versionKey === null ? null : versionIdFromKey(job.versionKey), published },
    };
  };
}
