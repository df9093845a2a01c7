// Accepts uploads (POST /embed): validates identity and metadata, stores the bytes durably, enqueues the
// job and wakes the worker. Acceptance means queued; nothing is parsed on the request path.

import { randomUUID } from 'node:crypto';
import type { StoragePort } from '../storage/port.ts';
import { idProblem, versionKey } from '../domain/identity.ts';
import type { JsonObject } from '../domain/canonical-metadata.ts';
import { isJsonObject } from '../domain/canonical-metadata.ts';
import { MAX_JOB_ATTEMPTS } from '../spec-limits.ts';
import { checkMetadataContract } from '../domain/metadata-contract.ts';
import { RequestValidationError } from '../domain/validation-error.ts';
import type { ValidationDetail } from '../domain/validation-error.ts';
import type { EmbedJobRequest } from '../domain/upload.ts';
import type { ExportedVersion } from '../domain/client-export.ts';
import type { ClientQuotas } from '../domain/limits.ts';
import { quotaMessage, uploadRefusal } from '../domain/limits.ts';
import { ServiceError } from '../domain/service-error.ts';

export interface UploadAccepted {
  job_id: string;
  status: 'pending';
  document_id: string;
  version_id: string | null;
}

export interface UploadFields {
  documentId: unknown;
  versionId: unknown;
  filename: unknown;
  metadata: unknown;
}

export interface ValidUpload {
  documentId: string;
  versionId: string;
  filename: string | null;
  metadata: JsonObject;
}

function detail(field: string, msg: string, input: unknown, type = 'value_error'): ValidationDetail {
  return { type, loc: ['body', field], msg, input };
}

/** Validates the identity fields shared by the JSON and multipart forms; metadata may arrive as a JSON string. */
export function validateUploadFields(fields: UploadFields): ValidUpload {
  const problems: ValidationDetail[] = [];
  const { documentId, versionId, filename } = fields;
  if (documentId === undefined) problems.push(detail('document_id', 'Field required', null, 'missing'));
  else if (typeof documentId !== 'string') problems.push(detail('document_id', 'Input should be a valid string', documentId, 'string_type'));
  else {
    const problem = idProblem('document_id', documentId);
    if (problem) problems.push(detail('document_id', problem, documentId));
  }
  if (versionId !== undefined && versionId !== null) {
    if (typeof versionId !== 'string') problems.push(detail('version_id', 'Input should be a valid string', versionId, 'string_type'));
    else {
      const problem = idProblem('version_id', versionId);
      if (problem) problems.push(detail('version_id', problem, versionId));
    }
  }
  if (filename !== undefined && filename !== null) {
    if (typeof filename !== 'string' || filename.trim() === '' || /[\u0000-\u001f\u007f]/.test(filename)) {
      problems.push(detail('filename', 'filename must be a non-empty string without control characters', filename));
    } else if (!filename.isWellFormed()) {
      problems.push(detail('filename', 'filename must be well-formed Unicode (it holds a lone surrogate)', filename, 'string_unicode'));
    }
  }
  let metadata: JsonObject = {};
  if (fields.metadata !== undefined && fields.metadata !== null && fields.metadata !== '') {
    let parsed: unknown = fields.metadata;
    if (typeof parsed === 'string') {
      try {
        parsed = JSON.parse(parsed);
      } catch {
        parsed = undefined;
      }
    }
    if (!isJsonObject(parsed)) problems.push(detail('metadata', 'metadata must be a JSON object', fields.metadata, 'dict_type'));
    else {
      // Uploads index their metadata leaves inline, so they obey the Metadata Discovery contract too.
      const violation = checkMetadataContract(parsed);
      if (violation) problems.push({ type: 'metadata_contract', loc: ['body', 'metadata'], msg: `Custom metadata violates ${violation.code}`, input: violation });
      else metadata = parsed;
    }
  }
  if (problems.length > 0) throw new RequestValidationError(problems);
  const id = documentId as string;
  return {
    documentId: id,
    versionId: typeof versionId === 'string' ? versionId : id,
    filename: typeof filename === 'string' ? filename.trim() : null,
    metadata,
  };
}

export class UploadService {
  private readonly storage: StoragePort;
  private readonly wake: () => void;
  private readonly maxAttempts: number;
  private readonly quotas: ClientQuotas;

  constructor(storage: StoragePort, wake: () => void, maxAttempts: number = MAX_JOB_ATTEMPTS, quotas: ClientQuotas) {
    this.storage = storage;
    this.wake = wake;
    this.maxAttempts = maxAttempts;
    this.quotas = quotas;
  }

  /**
   * Refuses (403 client_quota_exceeded) an upload the Client has no room for: without the version it would replace,
   * the Client is already at its documents (for a new document), chunks or text-bytes quota. Counted from the
   * Client's store before anything is written or queued; the job checks again once the document's size is known.
   */
  async checkQuota(clientId: string, upload: ValidUpload): Promise<void> {
    const usage = await this.storage.client(clientId).generations.usage({ documentId: upload.documentId, versionKey: versionKey(upload.versionId) });
    const found = uploadRefusal(usage, this.quotas);
    if (found) throw new ServiceError('client_quota_exceeded', quotaMessage(found, 'upload'), { details: found });
  }

  async acceptText(clientId: string, upload: ValidUpload, text: string): Promise<UploadAccepted> {
    await this.checkQuota(clientId, upload);
    return this.enqueue(clientId, upload, { source: 'text', text, filename: upload.filename, metadata: upload.metadata });
  }

  /**
   * Queues a version of an export (POST /admin/clients/{client_id}/import) as POST /embed queues a text: one embed
   * job, whose request carries the version as exported (its chunks, metadata, created_at, deletion markers).
   * Checked whole before (domain/client-export.ts); quotas are checked by the job, as for any upload.
   */
  async acceptImported(clientId: string, version: ExportedVersion): Promise<UploadAccepted> {
    const upload: ValidUpload = { documentId: version.document_id, versionId: version.version_id ?? '', filename: version.filename, metadata: version.custom_metadata };
    const accepted = await this.enqueue(clientId, upload, { source: 'import', filename: version.filename, metadata: version.custom_metadata, imported: version });
    return { ...accepted, version_id: version.version_id };
  }

  async acceptFile(clientId: string, upload: ValidUpload, bytes: Buffer): Promise<UploadAccepted> {
    await this.checkQuota(clientId, upload);
    const name = `${randomUUID()}.upload`;
    // WebCrypto hashes on the thread pool: a 50 MiB upload does not hold the event loop for its digest.
    const digest = Buffer.from(await crypto.subtle.digest('SHA-256', bytes)).toString('hex');
    await this.storage.uploads.save(name, bytes);
    try {
      return await this.enqueue(clientId, upload, { source: 'file', upload: name, uploadBytes: bytes.byteLength, uploadSha256: digest, filename: upload.filename, metadata: upload.metadata });
    } catch (error) {
      await this.storage.uploads.delete(name);
      throw error;
    }
  }

  private async enqueue(clientId: string, upload: ValidUpload, request: EmbedJobRequest): Promise<UploadAccepted> {
    const job = await this.storage.jobs.enqueue({
      clientId,
      operation: 'embed',
      documentId: upload.documentId,
      versionKey: versionKey(upload.versionId),
      request,
      maxAttempts: this.maxAttempts,
    });
    this.wake();
    return { job_id: job.jobId, status: 'pending', document_id: upload.documentId, version_id: upload.versionId };
  }
}
