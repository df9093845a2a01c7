// The one error catalogue: every error code a service may raise, with its HTTP status, the envelope's
// error_code, the default detail and Retry-After. Routes throw ServiceError; nothing else picks a status.

import type { ServiceErrorCode } from '../domain/service-error.ts';

export interface CatalogueEntry {
  status: number;
  /** The envelope's error_code (SPEC.md "Errors"). */
  errorCode: string;
  detail: string;
  retryAfterSeconds: number | null;
}

/** SPEC.md "Retry-After for publication 503": 1. */
export const PUBLICATION_RETRY_AFTER_SECONDS = 1;

export const ERROR_CATALOGUE: Record<ServiceErrorCode, CatalogueEntry> = {
  auth_failed: { status: 401, errorCode: 'auth_failed', detail: 'Invalid API key', retryAfterSeconds: null },
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
  unsupported_media_type: { status: 415, errorCode: 'unsupported_media_type', detail: 'Unsupported Content-Type', retryAfterSeconds: null },
  internal_error: { status: 500, errorCode: 'internal_error', detail: 'Internal server error', retryAfterSeconds: null },
};
