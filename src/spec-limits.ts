// The limits of SPEC.md ("Limits"), each once, by name: the code that applies a limit imports it from here.
// SPEC_LIMITS renders every row of that table from these constants in the table's own words, and a test reads
// SPEC.md and fails when a row there and here differ, or when one is missing on either side.

/** POST /search `limit`. */
export const SEARCH_LIMIT = { min: 1, max: 100, default: 10 } as const;
/** POST /search: offset + limit at most this, else 422. */
export const RETRIEVAL_WINDOW = 200;
/** POST /search `alpha` (the default is HYBRID_ALPHA's). */
export const ALPHA = { min: 0, max: 1, default: 0.5 } as const;
/** POST /search `top_k_rerank`. */
export const TOP_K_RERANK = { min: 1, max: 200, default: 20 } as const;
/** The reranked prefix, max(top_k_rerank, offset + limit), is capped at this. */
export const RERANK_PREFIX_CAP = 50;
/** Content lane: a fuzzy typo correction needs a Client-vocabulary candidate at least this similar. */
export const FUZZY_MIN_SIMILARITY = 0.6;
/** Metadata lane: semantic matches need at least this similarity; callers cannot change it. */
export const SEMANTIC_METADATA_FLOOR = 0.75;
/** Search rule 12: retries of an idempotent read whose connection dropped. */
export const SEARCH_READ_RETRIES = 1;
/** Protected routes: requests per minute per resolved Client (RATE_LIMIT_PER_MINUTE's default). */
export const RATE_LIMIT_PER_MINUTE = 30;
/** Metadata update job status: updated_fields shows at most this many entries. */
export const MAX_STATUS_UPDATED_FIELDS = 64;
/** Merged custom metadata: canonical JSON of at most this many UTF-8 bytes. */
export const METADATA_MAX_CANONICAL_BYTES = 65_536;
/** GET /documents `limit`. */
export const LIST_LIMIT = { min: 1, max: 1000, default: 100 } as const;
/** POST /web-search `limit`. */
export const WEB_SEARCH_LIMIT = { min: 1, max: 5, default: 5 } as const;
/** POST /web-search `query`, in characters, not blank. */
export const WEB_SEARCH_QUERY_CHARS = { min: 1, max: 500 } as const;
/** DELETE and restore: PUBLICATION_LIFECYCLE_FENCE_WAIT_SECONDS's default. */
export const LIFECYCLE_FENCE_WAIT_SECONDS = 5;
/** Retry-After of every retryable publication 503, in seconds. */
export const PUBLICATION_RETRY_AFTER_SECONDS = 1;
/** Indexing jobs: attempts at most (JOB_MAX_ATTEMPTS may lower it). */
export const MAX_JOB_ATTEMPTS = 3;
/** GET /status: reads of a retired generation's successor at most. */
export const SUCCESSOR_VERIFICATION_ATTEMPTS = 3;
/** GET /health: each readiness or diagnostic read's deadline. */
export const HEALTH_PROBE_DEADLINE_MS = 2_000;
/** GET /health: the oldest schema evidence served from cache. */
export const SCHEMA_CACHE_MAX_AGE_MS = 5 * 60_000;

const NUMBER_WORDS = ['no', 'one', 'two', 'three'];

/** Each row of SPEC.md's Limits table, its Value column rendered from the constants above (null: no value of ours). */
export const SPEC_LIMITS: Readonly<Record<string, string | null>> = {
  'Search limit': `${SEARCH_LIMIT.min} to ${SEARCH_LIMIT.max}, default ${SEARCH_LIMIT.default}`,
  'Retrieval window': `offset + limit at most ${RETRIEVAL_WINDOW}, else 422`,
  alpha: `${ALPHA.min.toFixed(1)} to ${ALPHA.max.toFixed(1)}, default ${ALPHA.default}`,
  top_k_rerank: `${TOP_K_RERANK.min} to ${TOP_K_RERANK.max} accepted, default ${TOP_K_RERANK.default}`,
  'Reranked prefix': `max(top_k_rerank, offset + limit), capped at ${RERANK_PREFIX_CAP}`,
  'Fuzzy typo-correction similarity': `at least ${FUZZY_MIN_SIMILARITY}`,
  'Semantic metadata floor': `${SEMANTIC_METADATA_FLOOR}, not overridable`,
  'Search connection-drop retry': `${NUMBER_WORDS[SEARCH_READ_RETRIES]} retry for idempotent reads`,
  'Rate limit': `${RATE_LIMIT_PER_MINUTE} requests per minute per resolved Client for protected routes, sliding window; keys mapped to one Client share it`,
  // SPEC.md shows no value for it: SEARCH_RATE_LIMIT_PER_MINUTE is a setting.
  'Search-specific counter': null,
  'updated_fields in status': `capped at ${MAX_STATUS_UPDATED_FIELDS} entries`,
  'Merged custom metadata canonical size': `example limit value ${METADATA_MAX_CANONICAL_BYTES} UTF-8 bytes reported in error_details (code metadata_canonical_json_bytes_limit, unit utf8_bytes); other contract limits: see Resources`,
  'List limit': `${LIST_LIMIT.min} to ${LIST_LIMIT.max}, default ${LIST_LIMIT.default}`,
  'Web search limit': `${WEB_SEARCH_LIMIT.min} to ${WEB_SEARCH_LIMIT.max}, default ${WEB_SEARCH_LIMIT.default}`,
  'Web search query length': `${WEB_SEARCH_QUERY_CHARS.min} to ${WEB_SEARCH_QUERY_CHARS.max} characters, not blank`,
  'Lifecycle fence wait': `publication_lifecycle_fence_wait_seconds, default ${LIFECYCLE_FENCE_WAIT_SECONDS} s`,
  'Retry-After for publication 503': `${PUBLICATION_RETRY_AFTER_SECONDS}`,
  'Job retries': `up to ${MAX_JOB_ATTEMPTS} attempts`,
  'Successor verification attempts': `at most ${SUCCESSOR_VERIFICATION_ATTEMPTS}`,
  'Health probe deadline': `${HEALTH_PROBE_DEADLINE_MS / 1000} seconds per readiness or diagnostic read; ${SCHEMA_CACHE_MAX_AGE_MS / 60_000} minute maximum cache age for schema data`,
};
