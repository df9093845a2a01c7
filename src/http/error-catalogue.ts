// The one error catalogue: every error code a service may raise, with its HTTP status, the envelope's
// error_code, the default detail and Retry-After. Routes throw ServiceError; nothing else picks a status.
// renderError is the only place that builds an error envelope: the error handler, the not-found handler
// and the router's frameworkErrors all send what it returns.

import { ServiceError } from '../domain/service-error.ts';
import type { ServiceErrorCode } from '../domain/service-error.ts';
import { PUBLICATION_RETRY_AFTER_SECONDS } from '../spec-limits.ts';
import { STORAGE_FULL_RETRY_AFTER_SECONDS, STORE_UNAVAILABLE_RETRY_AFTER_SECONDS } from '../domain/store-failure.ts';

export interface CatalogueEntry {
  status: number;
  /** The envelope's error_code (SPEC.md "Errors"). */
  errorCode: string;
  detail: string;
  retryAfterSeconds: number | null;
}


export const ERROR_CATALOGUE: Record<ServiceErrorCode, CatalogueEntry> = {
  auth_failed: { status: 401, errorCode: 'auth_failed', detail: 'Invalid API key', retryAfterSeconds: null },
  /** A runtime key without the scope its route needs (DESIGN.md "Clients and keys at runtime"); keys of API_KEY_CLIENTS have every scope. */
  forbidden: { status: 403, errorCode: 'forbidden', detail: 'This key may not use this route', retryAfterSeconds: null },
  /** POST /admin/clients for a Client that exists (created before, or named in API_KEY_CLIENTS). */
  client_exists: { status: 409, errorCode: 'client_exists', detail: 'The Client exists', retryAfterSeconds: null },
  not_found: { status: 404, errorCode: 'not_found', detail: 'Not found', retryAfterSeconds: null },
  document_not_found: { status: 404, errorCode: 'not_found', detail: 'Document not found', retryAfterSeconds: null },
  validation_error: { status: 422, errorCode: 'validation_error', detail: 'Request validation failed', retryAfterSeconds: null },
  invalid_filter: { status: 400, errorCode: 'invalid_filter', detail: 'Unsupported or invalid filter path', retryAfterSeconds: null },
  invalid_request: { status: 400, errorCode: 'invalid_request', detail: 'Invalid request', retryAfterSeconds: null },
  invalid_metadata_filter_json: { status: 400, errorCode: 'invalid_metadata_filter', detail: 'Invalid metadata_filter JSON', retryAfterSeconds: null },
  metadata_filter_not_object: { status: 400, errorCode: 'invalid_metadata_filter', detail: 'metadata_filter must be a JSON object', retryAfterSeconds: null },
  metadata_filter_invalid: { status: 400, errorCode: 'invalid_metadata_filter', detail: 'metadata_filter values must be scalar strings, booleans or integers', retryAfterSeconds: null },
  reserved_metadata_keys: { status: 400, errorCode: 'reserved_metadata_keys', detail: 'Metadata contains reserved or system keys', retryAfterSeconds: null },
  metadata_discovery_not_ready: {
    status: 409,
    errorCode: 'METADATA_DISCOVERY_NOT_READY',
    detail: 'Metadata Discovery is not ready for this Client',
    retryAfterSeconds: null,
  },
  publication_authority_inconsistent: {
    status: 503,
    errorCode: 'publication_authority_inconsistent',
    detail: 'Publication authority is inconsistent',
    retryAfterSeconds: PUBLICATION_RETRY_AFTER_SECONDS,
  },
  publication_busy: { status: 503, errorCode: 'publication_busy', detail: 'Publication is busy', retryAfterSeconds: PUBLICATION_RETRY_AFTER_SECONDS },
  // Contract, but never raised by this design: a read serves one immutable snapshot taken after its read guard,
  // so no snapshot can move, and no ACTIVATE begin or end, under a request (see the catalogue test).
  publication_snapshot_changed: {
    status: 503,
    errorCode: 'publication_snapshot_changed',
    detail: 'Publication snapshot changed during the request',
    retryAfterSeconds: PUBLICATION_RETRY_AFTER_SECONDS,
  },
  publication_unavailable: {
    status: 503,
    errorCode: 'publication_unavailable',
    detail: 'Publication is unavailable',
    retryAfterSeconds: PUBLICATION_RETRY_AFTER_SECONDS,
  },
  publication_purge_timeout: {
    status: 503,
    errorCode: 'publication_purge_timeout',
    detail: 'Hard-delete purge is incomplete; repeat the request to resume it',
    retryAfterSeconds: PUBLICATION_RETRY_AFTER_SECONDS,
  },
  /** A deployment setting, not a transient state: no Retry-After. */
  publication_disabled: { status: 503, errorCode: 'publication_disabled', detail: 'Publication is disabled', retryAfterSeconds: null },
  search_connection_dropped: {
    status: 503,
    errorCode: 'internal_error',
    detail: 'Search read failed after a retry',
    retryAfterSeconds: PUBLICATION_RETRY_AFTER_SECONDS,
  },
  stored_evidence_inconsistent: { status: 500, errorCode: 'stored_evidence_inconsistent', detail: 'Stored evidence is inconsistent', retryAfterSeconds: null },
  rate_limited: { status: 429, errorCode: 'rate_limited', detail: 'Rate limit exceeded', retryAfterSeconds: null },
  payload_too_large: { status: 413, errorCode: 'payload_too_large', detail: 'Request body is too large', retryAfterSeconds: null },
  /** A Client at its documents, chunks or text-bytes quota (docs/configuration.md "Limits"): retrying does not help, so no Retry-After. */
  client_quota_exceeded: { status: 403, errorCode: 'client_quota_exceeded', detail: 'Client quota exceeded', retryAfterSeconds: null },
  unsupported_media_type: { status: 415, errorCode: 'unsupported_media_type', detail: 'Unsupported Content-Type', retryAfterSeconds: null },
  /**
   * The durable store cannot be reached or read (PostgreSQL down, control.db not a database). None of SPEC.md's
   * 503 codes fits: publication_unavailable means missing readiness or incomplete evidence, publication_busy
   * contention, and both tell an operator to look at publication, while the fault is the store's; a code of
   * its own says where to look, and still fails closed with Retry-After as every 503 does. details.storage
   * names the store.
   */
  store_unavailable: { status: 503, errorCode: 'store_unavailable', detail: 'The durable store cannot be reached', retryAfterSeconds: STORE_UNAVAILABLE_RETRY_AFTER_SECONDS },
  /**
   * A write found no room (a full disk or quota, SQLite's SQLITE_FULL, PostgreSQL's disk_full): 507 Insufficient
   * Storage, whose meaning is exactly this, with Retry-After for when space has been freed; details.storage
   * names the storage. Nothing of the request was kept.
   */
  storage_full: { status: 507, errorCode: 'storage_full', detail: 'The storage is full', retryAfterSeconds: STORAGE_FULL_RETRY_AFTER_SECONDS },
  internal_error: { status: 500, errorCode: 'internal_error', detail: 'Internal server error', retryAfterSeconds: null },
};

/** SPEC.md "Errors": the envelope. Key order is the wire order. */
export interface ErrorEnvelope {
  detail: string;
  error_code: string;
  request_id: string;
  /** An object, or the array of entries for validation errors; absent when there is nothing to add. */
  details?: unknown;
}

/**
 * The JSON schema of the envelope for /openapi.json (routes' response schemas), optionally naming its error_code and
 * the schema of its details. Documentation only: envelopes are still built by renderError alone.
 */
export function envelopeSchema(description: string, errorCode?: ServiceErrorCode, details: object = {}): object {
  return {
    description,
    type: 'object',
    required: ['detail', 'error_code', 'request_id'],
    properties: {
      detail: { type: 'string' },
      error_code: errorCode ? { type: 'string', enum: [ERROR_CATALOGUE[errorCode].errorCode] } : { type: 'string' },
      request_id: { type: 'string' },
      details,
    },
  };
}

/**
 * A failure that did not arrive as a thrown ServiceError (validator, body parser, router, not-found
 * handler), named by its catalogue code. Unlike a ServiceError's message, `detail` is used verbatim.
 */
export interface ErrorDescriptor {
  code: ServiceErrorCode;
  /** The envelope's detail; the catalogue's when absent. */
  detail?: string;
  details?: unknown;
  /** Overrides the catalogue's Retry-After seconds. */
  retryAfterSeconds?: number;
  /**
   * A 4xx status reported by the framework itself (router or body parser, for example 414), kept as the
   * response status. Anything outside 400-499 is ignored and the catalogue's status applies.
   */
  status?: number;
}

export interface RenderedError {
  status: number;
  /** Headers the error itself calls for (Retry-After); X-Request-Id stays with the app's request-id hook. */
  headers: Record<string, string>;
  body: ErrorEnvelope;
}

/** The minimal shape of a validation detail entry that decides where it points ({type, loc, msg, input}). */
export interface ValidationDetailLike {
  loc: readonly (string | number)[];
  msg: string;
}

/**
 * SPEC.md: a 422 validation_error is for body parameters; when every failure is in the query string or
 * the path it is a bad request (400 invalid_request) carrying the same details.
 */
export function validationFailure(details: readonly ValidationDetailLike[]): ErrorDescriptor {
  if (details.length > 0 && details.every((detail) => detail.loc[0] === 'query' || detail.loc[0] === 'path')) {
    return {
      code: 'invalid_request',
      detail: `Invalid ${details.map((detail) => detail.loc.join('.')).join(', ')}: ${details[0].msg}`,
      details,
    };
  }
  return { code: 'validation_error', details };
}

/** A body that is not JSON: the 422 of SPEC.md with one json_invalid entry. */
export function jsonDecodeFailure(): ErrorDescriptor {
  return { code: 'validation_error', details: [{ type: 'json_invalid', loc: ['body'], msg: 'JSON decode error', input: null }] };
}

/** A ServiceError as a descriptor: its message is the detail below 500 (never for 401), else the catalogue's. */
function describeServiceError(error: ServiceError): ErrorDescriptor {
  const entry = ERROR_CATALOGUE[error.code];
  const ownMessage = error.message !== error.code;
  const detail = error.message && ownMessage && entry.status < 500 && entry.status !== 401 ? error.message : entry.detail;
  let details = error.details;
  // A 503 always says what failed, even when the service gave no details; its detail stays the catalogue's.
  if (details === undefined && entry.status >= 503) details = { code: entry.errorCode, message: ownMessage ? error.message : entry.detail };
  return { code: error.code, detail, details, retryAfterSeconds: error.retryAfterSeconds };
}

/** Renders the envelope, status and headers of an error; the caller only sends them. */
export function renderError(requestId: string, error: ServiceError | ErrorDescriptor): RenderedError {
  const described = error instanceof ServiceError ? describeServiceError(error) : error;
  const entry = ERROR_CATALOGUE[described.code];
  const status = described.status !== undefined && described.status >= 400 && described.status < 500 ? described.status : entry.status;
  const detail = described.detail ?? entry.detail;
  let details = described.details;
  if (details === undefined && entry.status >= 503) details = { code: entry.errorCode, message: detail };
  const headers: Record<string, string> = {};
  const retryAfter = described.retryAfterSeconds ?? entry.retryAfterSeconds;
  if (retryAfter !== null) headers['Retry-After'] = String(retryAfter);
  const body: ErrorEnvelope = { detail, error_code: entry.errorCode, request_id: requestId };
  if (details !== undefined) body.details = details;
  return { status, headers, body };
}
