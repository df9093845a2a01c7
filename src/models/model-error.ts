// The one error type model providers throw (bad model files, unreachable or failing endpoints, missing
// optional packages). It carries whether a retry could help; it never carries API keys or request bodies.

export type ModelErrorCode =
  | 'model_file_invalid'
  | 'tokenizer_unsupported'
  | 'provider_unavailable'
  /** The connection carrying a request was dropped before an answer (reset, closed by the other side). */
  | 'provider_connection_dropped'
  | 'provider_rejected'
  | 'provider_response_invalid'
  | 'optional_module_missing'
  | 'settings_invalid';

export class ModelProviderError extends Error {
  readonly code: ModelErrorCode;
  /** True when the same call may succeed later (timeouts, 429, 5xx, network errors). */
  readonly retryable: boolean;
  /** HTTP status of the provider's answer, when there was one. */
  readonly status: number | null;
  /** How long the provider asked us to wait (Retry-After), when it said. */
  readonly retryAfterMs: number | null;

  constructor(code: ModelErrorCode, message: string, options: { retryable?: boolean; status?: number | null; retryAfterMs?: number | null; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ModelProviderError';
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.status = options.status ?? null;
    this.retryAfterMs = options.retryAfterMs ?? null;
  }
}
