// The one error type services throw for an expected, caller-visible failure, named by its catalogue code.
// Services never pick HTTP statuses; src/http/error-catalogue.ts maps each code to status, detail and headers.

export type ServiceErrorCode =
  | 'auth_failed'
  | 'forbidden'
  | 'client_exists'
  | 'not_found'
  | 'document_not_found'
  | 'validation_error'
  | 'invalid_filter'
  | 'invalid_request'
  | 'invalid_metadata_filter_json'
  | 'metadata_filter_not_object'
  | 'metadata_filter_invalid'
  | 'reserved_metadata_keys'
  | 'metadata_discovery_not_ready'
  | 'publication_authority_inconsistent'
  | 'publication_busy'
  | 'publication_snapshot_changed'
  | 'publication_unavailable'
  | 'publication_purge_timeout'
  | 'publication_disabled'
  | 'search_connection_dropped'
  | 'stored_evidence_inconsistent'
  | 'rate_limited'
  | 'payload_too_large'
  | 'client_quota_exceeded'
  | 'unsupported_media_type'
  | 'store_unavailable'
  | 'storage_full'
  | 'internal_error';

export class ServiceError extends Error {
  readonly code: ServiceErrorCode;
  readonly details: unknown;
  /** Overrides the catalogue's Retry-After seconds (rate limiting computes its own). */
  readonly retryAfterSeconds: number | undefined;
  constructor(code: ServiceErrorCode, message?: string, options: { details?: unknown; retryAfterSeconds?: number } = {}) {
    super(message ?? code);
    this.name = 'ServiceError';
    this.code = code;
    this.details = options.details;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}
