// PATCH /update: validates and enqueues a metadata update (acceptance means queued), and the worker
// handler that merges the patch, checks the contract and publishes every changed version in one step.

import { RequestValidationError } from '../domain/validation-error.ts';
import type { StoragePort } from '../storage/port.ts';
import type { GenerationInput, LoadedGeneration } from '../domain/generation.ts';
import type { AuthorityMode } from '../domain/publication-log.ts';
import { successorOf } from './successor.ts';
import { manifestDigest } from '../serving/manifest.ts';
import type { Publisher } from './publisher.ts';
import { ServiceError } from '../domain/service-error.ts';
import { idProblem, versionKey as keyOf, versionIdFromKey } from '../domain/identity.ts';
import type { CanonicalMetadata, JsonObject, JsonValue } from '../domain/canonical-metadata.ts';
import { RESERVED_KEYS, SYSTEM_METADATA_GROUPS, isJsonObject } from '../domain/canonical-metadata.ts';
import { mergePatch, canonicalJson } from '../domain/merge-patch.ts';
import { checkMetadataContract } from '../domain/metadata-contract.ts';
import { metadataLeaves } from '../domain/metadata-leaves.ts';
import { REPLACEMENT_OVERTAKEN } from '../domain/jobs.ts';
import type { JobHandler, JobOutcome, JobRecord } from '../domain/jobs.ts';
import { MAX_JOB_ATTEMPTS, MAX_STATUS_UPDATED_FIELDS } from '../spec-limits.ts';
import { customPath } from '../domain/custom-path.ts';
import { faultPoint } from '../fault-points.ts';

export const METADATA_UPDATE_FAILED = 'Metadata update failed';
export const METADATA_UPDATE_VALIDATION_FAILED = 'Metadata update validation failed';
export const FILENAME_PATH = 'metadata.source.filename';
/** Legacy flat keys of pre-v2 records; read-only, so an update naming them is rejected. */
export const LEGACY_UPDATE_KEYS = ['processing', 'page_number', 'schema_version'] as const;

export interface UpdateRequest {
  document_id: string;
  version_id?: string;
  metadata?: JsonObject;
  filename?: string;
}

export interface UpdateAccepted {
  job_id: string;
  status: 'pending';
  document_id: string;
  version_id: string | null;
  updated_fields: string[];
}

/** Why a top-level patch key addresses reserved, system or legacy state, or null when it is a custom key. */
function reservedKeyProblem(key: string): string | null {
  const root = key.split('.')[0];
  if ((RESERVED_KEYS as readonly string[]).includes(root)) return `${key} is reserved system state`;
  if (key.startsWith('metadata.') || key.startsWith('custom.')) return `${key} addresses a metadata path, not a custom key`;
  if ((SYSTEM_METADATA_GROUPS as readonly string[]).includes(root)) return `${key} addresses the system group ${root}`;
  if ((LEGACY_UPDATE_KEYS as readonly string[]).includes(root)) return `${key} addresses a legacy metadata path`;
  return null;
}

/** Custom metadata of a version that holds none: what a patch alone amounts to. */
const EMPTY_CUSTOM: JsonObject = Object.freeze({}) as JsonObject;

// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;

export interface UpdateServiceOptions {
  /** PUBLICATION_ENABLED (SPEC.md PATCH /update rule 5). */
  enabled: boolean;
  /** The authority mode as this process reports it (RECOVERING is per api process). */
  mode: () => Promise<AuthorityMode>;
  /** Tells the workers that a job is waiting. */
  wake: () => void;
}

export class UpdateService {
  private readonly storage: StoragePort;
  private readonly options: UpdateServiceOptions;

  constructor(storage: StoragePort, options: UpdateServiceOptions) {
    this.storage = storage;
    this.options = options;
  }

  async accept(clientId: string, request: UpdateRequest): Promise<UpdateAccepted> {
    if (!this.options.enabled) throw new ServiceError('publication_disabled', 'Metadata updates require PUBLICATION_ENABLED=true');
    const idIssue = idProblem('document_id', request.document_id) ?? (request.version_id !== undefined ? idProblem('version_id', request.version_id) : null);
    if (idIssue) throw new ServiceError('invalid_request', idIssue);
    let filename: string | undefined;
    if (request.filename !== undefined) {
      filename = request.filename.trim();
      if (filename === '') throw new ServiceError('invalid_request', 'filename must not be empty');
      if (CONTROL_CHARACTERS.test(filename)) throw new ServiceError('invalid_request', 'filename must not contain control characters');
    }
    const patch = request.metadata ?? {};
    const problems = Object.keys(patch).map(reservedKeyProblem).filter((problem) => problem !== null);
    if (problems.length > 0) throw new ServiceError('reserved_metadata_keys', `Metadata contains reserved or system keys: ${problems.join('; ')}`);
    this.refuseSelfViolation(patch);
    if ((await this.options.mode()) === 'RECOVERING') throw new ServiceError('publication_unavailable', 'Publication authority is recovering');
    const versionKey = request.version_id === undefined ? null : keyOf(request.version_id);

    const updatedFields = [...Object.keys(patch).map(customPath), ...(filename !== undefined ? [FILENAME_PATH] : [])];
    const job = await this.storage.jobs.enqueue({
      clientId,
      operation: 'metadata_update',
      documentId: request.document_id,
      versionKey,
      request: { metadata: patch, ...(filename !== undefined ? { filename } : {}), updated_fields: updatedFields },
      maxAttempts: MAX_JOB_ATTEMPTS,
    });
    this.options.wake();
    return { job_id: job.jobId, status: 'pending', document_id: request.document_id, version_id: request.version_id ?? null, updated_fields: updatedFields };
  }

  /**
   * A patch that breaks the metadata contract on its own is refused at once (422): merged onto any stored custom
   * metadata it keeps every member it sets (null members only delete), so the merge is at least as large, as deep,
   * as many-leaved and as long-keyed as the patch merged onto nothing, and can never comply. Whether the merge onto
   * what a version holds complies is the worker's to decide (SPEC.md PATCH rules 1 and 2): the endpoint accepts
   * before resolving the document, and a merged violation is a failed job with error_details.
   */
  private refuseSelfViolation(patch: JsonObject): void {
    const violation = checkMetadataContract(mergePatch(EMPTY_CUSTOM, patch) as JsonValue);
    if (violation) {
      throw new RequestValidationError([{ type: 'metadata_contract', loc: ['body', 'metadata'], msg: `Custom metadata violates ${violation.code} whatever is stored`, input: violation as unknown as JsonValue }]);
    }
  }
}

/**
 * Status fields every metadata update job shows, whatever its state; never a custom value. SPEC.md lists the
 * patch's top-level keys here (the 202 answer gave their canonical stored paths): the metadata patch's keys in
 * its order, then `filename` for a rename unless a custom key of that name is listed already.
 */
export function updatedFieldsView(job: JobRecord): JsonObject {
  const patch = isJsonObject(job.request.metadata) ? Object.keys(job.request.metadata) : [];
  const renamed = typeof job.request.filename === 'string' && !patch.includes('filename');
  const fields = renamed ? [...patch, 'filename'] : patch;
  return {
    updated_fields: fields.slice(0, MAX_STATUS_UPDATED_FIELDS),
    updated_fields_count: fields.length,
    updated_fields_truncated: fields.length > MAX_STATUS_UPDATED_FIELDS,
  };
}

export interface MetadataUpdateDependencies {
  storage: StoragePort;
  publisher: Publisher;
}

export function createMetadataUpdateHandler(deps: MetadataUpdateDependencies): JobHandler {
  return async (job): Promise<JobOutcome> => {
    const store = deps.storage.client(job.clientId);
    const patch = (isJsonObject(job.request.metadata) ? job.request.metadata : {}) as JsonObject;
    const filename = typeof job.request.filename === 'string' ? job.request.filename : undefined;
    const all = await store.generations.activeGenerationsOf(job.documentId);
    const targets = job.versionKey === null ? all : all.filter((generation) => generation.versionKey === job.versionKey);
    const counts = { versions_total: targets.length, versions_completed: 0, versions_unchanged: 0, updated_chunks: 0, cleanup_tasks_scheduled: 0 };
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
        return { status: 'failed', error: METADATA_UPDATE_VALIDATION_FAILED, errorDetails: violation as unknown as JsonObject, result: counts };
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
    let published: JsonObject[] = [];
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
      result: { ...counts, publication_status: 'ready', version_id: job.versionKey === null ? null : versionIdFromKey(job.versionKey), published: published as unknown as JsonValue },
    };
  };
}
