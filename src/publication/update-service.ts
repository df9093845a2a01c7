// PATCH /update: validates and enqueues a metadata update (acceptance means queued). The job that merges the
// patch, checks the contract and publishes every changed version in one step is jobs/metadata-update-job.ts.

import { RequestValidationError } from '../domain/validation-error.ts';
import type { StoragePort } from '../storage/port.ts';
import type { AuthorityMode } from '../domain/publication-log.ts';
import { ServiceError } from '../domain/service-error.ts';
import { idProblem, versionKey as keyOf } from '../domain/identity.ts';
import type { JsonObject, JsonValue } from '../domain/canonical-metadata.ts';
import { RESERVED_KEYS, SYSTEM_METADATA_GROUPS } from '../domain/canonical-metadata.ts';
import { mergePatch } from '../domain/merge-patch.ts';
import { checkMetadataContract } from '../domain/metadata-contract.ts';
import { MAX_JOB_ATTEMPTS } from '../spec-limits.ts';
import { customPath } from '../domain/custom-path.ts';

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
      throw new RequestValidationError([{ type: 'metadata_contract', loc: ['body', 'metadata'], msg: `Custom metadata violates ${violation.code} whatever is stored`, input: violation }]);
    }
  }
}
