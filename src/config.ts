// Every setting of the service, typed, parsed once from the environment with defaults and validation.
// Nothing else in the project reads settings from process.env (src/env-file.ts only adds a `.env` file's to it
// first); a bad value stops start-up naming the setting. docs/configuration.md lists every one with its default.

import { availableParallelism } from 'node:os';
import { ALPHA, LIFECYCLE_FENCE_WAIT_SECONDS, MAX_JOB_ATTEMPTS, RATE_LIMIT_PER_MINUTE } from './spec-limits.ts';

/** Jobs one worker process runs at once (at most PARSES_AT_ONCE of them parse files at a time). */
export const DEFAULT_WORKER_CONCURRENCY = 4;

export class ConfigError extends Error {
  readonly setting: string;
  constructor(setting: string, message: string) {
    super(`Invalid setting ${setting}: ${message}`);
    this.name = 'ConfigError';
    this.setting = setting;
  }
}

export const DEFAULT_ALLOWED_CATEGORIES = [
  'bank_statement',
  'invoice',
  'receipt',
  'letter',
  'form',
  'contract',
  'notice',
  'report',
] as const;

/** LOG_LEVEL: the least severe level a process writes (pino's names); silent writes nothing. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
/**
 * REQUEST_LOG_LEVEL: the level of a request's line. Below LOG_LEVEL the lines are dropped, so `debug` keeps job
 * outcomes and audit events in an info log without a line per search; above warn a request would pass for a fault.
 */
export const REQUEST_LOG_LEVELS = ['warn', 'info', 'debug', 'trace', 'silent'] as const;

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  /** The durable store: `sqlite` (files under DATA_DIR, one machine) or `postgres` (DATABASE_URL, several machines). */
  store: 'sqlite' | 'postgres';
  /** PostgreSQL connection URL; required when STORE=postgres, unused otherwise. */
  databaseUrl: string | null;
  /** Connections each process keeps to PostgreSQL. */
  databasePoolMax: number;
  logLevel: string;
  /** The level of each answered request's one log line (whatever it is, a 503 logs at warn, another 5xx at error); silent: none. */
  requestLogLevel: string;
  /** key -> client_id; empty when API_KEY_CLIENTS is missing or invalid (every protected route then answers 401). */
  apiKeyClients: ReadonlyMap<string, string>;
  apiKeyClientsProblem: string | null;
  operatorApiKeys: ReadonlySet<string>;
  rateLimitPerMinute: number;
  searchRateLimitPerMinute: number;
  maxUploadBytes: number;
  hybridAlpha: number;
  /** Bounded scan cap per content lane; past it totals are lower bounds. */
  searchCandidateCap: number;
  publicationEnabled: boolean;
  publicationLifecycleFenceWaitSeconds: number;
  /** How long an accepted job may wait for publication to return to READY (keeping its staged generation). */
  publicationWaitSeconds: number;
  /** api processes started by the supervisor (`npm start`); default: the CPU count. */
  apiProcesses: number;
  /** worker processes started by the supervisor. */
  workerProcesses: number;
  /** How often an api process's follower looks for new publication-log entries. */
  followerPollMs: number;
  /** How long a read may wait for its snapshot to catch up with the log before failing with 503. */
  readCatchUpTimeoutMs: number;
  /** Memory an api process may hold in all (start-up size, segment thread reserve, young generation, served Clients) before it evicts the least recently used Clients. */
  servingMemoryBudgetMb: number;
  clientConnectionsMax: number;
  /** Disk the HNSW graph cache (DATA_DIR/graphs) may hold before its least recently used graphs are removed. */
  graphCacheMb: number;
  /** Disk the segment cache (DATA_DIR/segments) may use; 0 turns it off (every load merges lane data). */
  segmentCacheMb: number;
  /**
   * glibc's mmap threshold (bytes) for the workers the supervisor starts: allocations at least this large are
   * mapped on their own and returned to the system when freed (glibc's adaptive default keeps a large document's
   * buffers resident). Lower, a worker pays a system call for many of SQLite's and the indexer's buffers.
   */
  mallocMmapThreshold: string;
  /**
   * The same for api processes, lower: loading a Client passes many buffers of 16-32 KiB through malloc (a lane
   * data buffer per small generation among them), and from the brk heap, freed among live allocations, they
   * stayed resident. Loading 104,000 chunks of 9,861 generations, an api process held 87 MiB of heap at 32 KiB
   * (RSS 393-401 MiB) and 14 MiB at 16 or 8 KiB (RSS 325 MiB). Search throughput is the same (bench/http-load);
   * in bulk ingest an api process spends about 5% more CPU at 16 KiB, about 20% more at 8 KiB.
   */
  apiMallocMmapThreshold: string;
  /**
   * V8's largest semi-space (MiB) in the processes the supervisor starts, given whole from the start to api
   * processes. Left to V8 on a machine with much memory, the young generation of a busy api process grows to
   * 128 MiB and stays committed; its garbage is short-lived, so a small young generation costs little more
   * collection time. Grown on demand, it would be resident memory rising minutes after start-up in whichever api
   * process is busiest. 8 rather than 16: an api process serving 100,000 chunks held 322-331 MiB after
   * bench/http-load against 353-363 MiB (over the 350 MiB it should stay under), for about 7% fewer searches a
   * second on the same cores (3 interleaved pairs) and no clear change in bulk ingest.
   */
  v8MaxSemiSpaceMb: number;
  classificationEnabled: boolean;
  allowedCategories: readonly string[];
  classifierModelFile: string | null;
  embeddingProvider: string;
  embeddingModel: string | null;
  /** null when unset: hashing then uses its default, file and remote models report their own. */
  embeddingDimensions: number | null;
  embeddingUrl: string | null;
  embeddingApiKey: string | null;
  embeddingTimeoutMs: number;
  embeddingMaxRetries: number;
  embeddingBatchSize: number | null;
  rerankerProvider: string;
  rerankerModel: string | null;
  rerankerUrl: string | null;
  rerankerApiKey: string | null;
  rerankerTimeoutMs: number;
  chunkTargetChars: number;
  chunkOverlapChars: number;
  ocrEnabled: boolean;
  tesseractPath: string;
  ocrLanguages: string;
  pdftoppmPath: string;
  ocrMaxPages: number;
  ocrPageTimeoutMs: number;
  ocrTotalTimeoutMs: number;
  ocrPdfDpi: number;
  parseTimeoutMs: number;
  parseMaxHeapMb: number;
  /** Per-document limits (issue 9): a document over one is indexed truncated, with a quality warning. */
  documentMaxChars: number;
  documentMaxChunks: number;
  documentMaxPages: number;
  documentMaxSheets: number;
  documentMaxCells: number;
  /** Per-Client quotas over active generations: uploads are refused, jobs fail, once a Client would exceed one. */
  clientMaxDocuments: number;
  clientMaxChunks: number;
  clientMaxTextBytes: number;
  /** Bound on one GET /document/{id}/text answer (more chunks are read with chunk_offset). */
  textReadMaxChunks: number;
  textReadMaxChars: number;
  workerConcurrency: number;
  workerPollMs: number;
  jobLeaseSeconds: number;
  jobMaxAttempts: number;
  jobRetryBaseSeconds: number;
  /** Deadline of a hard-delete request's purge; past it the purge stops with 503 publication_purge_timeout. */
  purgeDeadlineMs: number;
  /** Key of the publication_unavailable event's query fingerprint; unset: a secret created once per deployment. */
  auditFingerprintSecret: string | null;
  webSearchEnabled: boolean;
  webSearchProvider: string | null;
  webSearchUrl: string | null;
  webSearchApiKey: string | null;
  webSearchTimeoutMs: number;
  /** How long a webhook receiver has to answer one delivery before the attempt counts as failed (retried). */
  webhookTimeoutMs: number;
  /** The first retry's delay of a failed delivery; it doubles at each attempt (capped), for about an hour. */
  webhookRetryBaseMs: number;
  /** Whether webhooks may point at private, loopback and link-local addresses (refused by default). */
  webhookAllowPrivateNetworks: boolean;
}

type Env = Record<string, string | undefined>;

function raw(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function str(env: Env, name: string, fallback: string): string {
  return raw(env, name) ?? fallback;
}

function optionalStr(env: Env, name: string): string | null {
  return raw(env, name) ?? null;
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  if (!/^-?\d+$/.test(value)) throw new ConfigError(name, `expected an integer, got "${value}"`);
  const parsed = Number(value);
  if (parsed < min || parsed > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${parsed}`);
  return parsed;
}

function float(env: Env, name: string, fallback: number, min: number, max: number): number {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed)) throw new ConfigError(name, `expected a number, got "${value}"`);
  if (parsed < min || parsed > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${parsed}`);
  return parsed;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const value = raw(env, name);
  if (value === undefined) return fallback;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new ConfigError(name, `expected true or false, got "${value}"`);
}

function oneOf(env: Env, name: string, fallback: string, allowed: readonly string[]): string {
  const value = str(env, name, fallback);
  if (!allowed.includes(value)) throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got "${value}"`);
  return value;
}

function stringArray(env: Env, name: string, fallback: readonly string[]): string[] {
  const value = raw(env, name);
  if (value === undefined) return [...fallback];
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new ConfigError(name, 'expected a JSON array of strings');
  }
  if (!Array.isArray(parsed) || !parsed.every((item) => typeof item === 'string' && item.trim() !== '')) {
    throw new ConfigError(name, 'expected a JSON array of non-empty strings');
  }
  return parsed;
}

/**
 * API_KEY_CLIENTS is the one setting that does not stop start-up when invalid: SPEC.md requires an empty or
 * invalid mapping to fail closed with 401 on every protected route, so the problem is kept and logged.
 */
function apiKeyClients(env: Env): { map: Map<string, string>; problem: string | null } {
  const value = raw(env, 'API_KEY_CLIENTS');
  if (value === undefined) return { map: new Map(), problem: 'API_KEY_CLIENTS is not set' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return { map: new Map(), problem: 'API_KEY_CLIENTS is not valid JSON' };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return { map: new Map(), problem: 'API_KEY_CLIENTS must be a JSON object {"<key>": "<client_id>"}' };
  }
  const map = new Map<string, string>();
  for (const [key, clientId] of Object.entries(parsed)) {
    if (key === '' || typeof clientId !== 'string' || clientId.trim() === '') {
      return { map: new Map(), problem: 'API_KEY_CLIENTS must map non-empty keys to non-empty client ids' };
    }
    map.set(key, clientId);
  }
  return { map, problem: map.size === 0 ? 'API_KEY_CLIENTS is empty' : null };
}

const MIB = 1024 * 1024;

/** Where the durable store is: what opening it needs (storage/open-storage.ts). */
export type StoreSettings = Pick<Config, 'store' | 'dataDir' | 'databaseUrl' | 'databasePoolMax' | 'clientConnectionsMax' | 'publicationEnabled'>;

function storeSettings(env: Env): Pick<Config, 'store' | 'databaseUrl' | 'databasePoolMax'> {
  const store = oneOf(env, 'STORE', 'sqlite', ['sqlite', 'postgres']) as Config['store'];
  const databaseUrl = optionalStr(env, 'DATABASE_URL');
  if (store === 'postgres') {
    if (databaseUrl === null) throw new ConfigError('DATABASE_URL', 'is required when STORE=postgres');
    if (!/^postgres(ql)?:\/\//.test(databaseUrl)) throw new ConfigError('DATABASE_URL', 'expected a postgres:// or postgresql:// URL');
  }
  return { store, databaseUrl, databasePoolMax: int(env, 'DATABASE_POOL_MAX', 10, 1, 1000) };
}

export function loadConfig(env: Env = process.env): Config {
  const keys = apiKeyClients(env);
  const chunkTargetChars = int(env, 'CHUNK_TARGET_CHARS', 2000, 100, 20_000);
  const chunkOverlapChars = int(env, 'CHUNK_OVERLAP_CHARS', 200, 0, 10_000);
  if (chunkOverlapChars >= chunkTargetChars) {
    throw new ConfigError('CHUNK_OVERLAP_CHARS', 'must be smaller than CHUNK_TARGET_CHARS');
  }
  const webSearchProvider = raw(env, 'WEB_SEARCH_PROVIDER') === undefined
    ? null
    : oneOf(env, 'WEB_SEARCH_PROVIDER', 'searxng', ['searxng', 'brave']);
  return {
    host: str(env, 'HOST', '127.0.0.1'),
    port: int(env, 'PORT', 8080, 0, 65_535),
    dataDir: str(env, 'DATA_DIR', './data'),
    ...storeSettings(env),
    logLevel: oneOf(env, 'LOG_LEVEL', 'info', LOG_LEVELS),
    requestLogLevel: oneOf(env, 'REQUEST_LOG_LEVEL', 'info', REQUEST_LOG_LEVELS),
    apiKeyClients: keys.map,
    apiKeyClientsProblem: keys.problem,
    operatorApiKeys: new Set(stringArray(env, 'OPERATOR_API_KEYS', [])),
    rateLimitPerMinute: int(env, 'RATE_LIMIT_PER_MINUTE', RATE_LIMIT_PER_MINUTE, 1, 1_000_000),
    searchRateLimitPerMinute: int(env, 'SEARCH_RATE_LIMIT_PER_MINUTE', RATE_LIMIT_PER_MINUTE, 1, 1_000_000),
    maxUploadBytes: int(env, 'MAX_UPLOAD_BYTES', 50 * MIB, 1024, 2048 * MIB),
    hybridAlpha: float(env, 'HYBRID_ALPHA', ALPHA.default, ALPHA.min, ALPHA.max),
    searchCandidateCap: int(env, 'SEARCH_CANDIDATE_CAP', 1000, 1, 100_000),
    publicationEnabled: bool(env, 'PUBLICATION_ENABLED', true),
    publicationLifecycleFenceWaitSeconds: float(env, 'PUBLICATION_LIFECYCLE_FENCE_WAIT_SECONDS', LIFECYCLE_FENCE_WAIT_SECONDS, 0, 300),
    publicationWaitSeconds: int(env, 'PUBLICATION_WAIT_SECONDS', 3600, 1, 7 * 86_400),
    apiProcesses: int(env, 'API_PROCESSES', availableParallelism(), 1, 256),
    workerProcesses: int(env, 'WORKER_PROCESSES', 1, 0, 256),
    followerPollMs: int(env, 'FOLLOWER_POLL_MS', 100, 5, 60_000),
    readCatchUpTimeoutMs: int(env, 'READ_CATCH_UP_TIMEOUT_MS', 5_000, 10, 600_000),
    servingMemoryBudgetMb: int(env, 'SERVING_MEMORY_BUDGET_MB', 2560, 1, 1_048_576),
    clientConnectionsMax: int(env, 'CLIENT_CONNECTIONS_MAX', 64, 1, 100_000),
    graphCacheMb: int(env, 'GRAPH_CACHE_MB', 4096, 1, 16_777_216),
    segmentCacheMb: int(env, 'SEGMENT_CACHE_MB', 8192, 0, 16_777_216),
    mallocMmapThreshold: String(int(env, 'MALLOC_MMAP_THRESHOLD_', 32_768, 4096, 33_554_432)),
    apiMallocMmapThreshold: String(int(env, 'API_MALLOC_MMAP_THRESHOLD', 16_384, 4096, 33_554_432)),
    v8MaxSemiSpaceMb: int(env, 'V8_MAX_SEMI_SPACE_MB', 8, 1, 1024),
    classificationEnabled: bool(env, 'CLASSIFICATION_ENABLED', true),
    allowedCategories: stringArray(env, 'ALLOWED_CATEGORIES', DEFAULT_ALLOWED_CATEGORIES),
    classifierModelFile: optionalStr(env, 'CLASSIFIER_MODEL_FILE'),
    embeddingProvider: oneOf(env, 'EMBEDDING_PROVIDER', 'hashing', ['hashing', 'model2vec', 'transformers', 'openai']),
    embeddingModel: optionalStr(env, 'EMBEDDING_MODEL'),
    embeddingDimensions: raw(env, 'EMBEDDING_DIMENSIONS') === undefined ? null : int(env, 'EMBEDDING_DIMENSIONS', 384, 8, 8192),
    embeddingUrl: optionalStr(env, 'EMBEDDING_URL'),
    embeddingApiKey: optionalStr(env, 'EMBEDDING_API_KEY'),
    embeddingTimeoutMs: int(env, 'EMBEDDING_TIMEOUT_MS', 30_000, 100, 600_000),
    embeddingMaxRetries: int(env, 'EMBEDDING_MAX_RETRIES', 3, 0, 10),
    embeddingBatchSize: raw(env, 'EMBEDDING_BATCH_SIZE') === undefined ? null : int(env, 'EMBEDDING_BATCH_SIZE', 32, 1, 2048),
    rerankerProvider: oneOf(env, 'RERANKER_PROVIDER', 'lexical', ['lexical', 'transformers', 'http']),
    rerankerModel: optionalStr(env, 'RERANKER_MODEL'),
    rerankerUrl: optionalStr(env, 'RERANKER_URL'),
    rerankerApiKey: optionalStr(env, 'RERANKER_API_KEY'),
    rerankerTimeoutMs: int(env, 'RERANKER_TIMEOUT_MS', 10_000, 100, 600_000),
    chunkTargetChars,
    chunkOverlapChars,
    ocrEnabled: bool(env, 'OCR_ENABLED', true),
    tesseractPath: str(env, 'TESSERACT_PATH', 'tesseract'),
    ocrLanguages: str(env, 'OCR_LANGUAGES', 'eng+msa'),
    pdftoppmPath: str(env, 'PDFTOPPM_PATH', 'pdftoppm'),
    ocrMaxPages: int(env, 'OCR_MAX_PAGES', 20, 0, 10_000),
    ocrPageTimeoutMs: int(env, 'OCR_PAGE_TIMEOUT_MS', 30_000, 1_000, 600_000),
    ocrTotalTimeoutMs: int(env, 'OCR_TOTAL_TIMEOUT_MS', 90_000, 1_000, 3_600_000),
    ocrPdfDpi: int(env, 'OCR_PDF_DPI', 300, 50, 1200),
    parseTimeoutMs: int(env, 'PARSE_TIMEOUT_MS', 120_000, 1_000, 3_600_000),
    parseMaxHeapMb: int(env, 'PARSE_MAX_HEAP_MB', 768, 64, 16_384),
    // Limits (docs/configuration.md "Limits"): twice the largest real document of the test corpus (a 1 MB CSV, 588 chunks).
    documentMaxChars: int(env, 'DOCUMENT_MAX_CHARS', 2_000_000, 1_000, 100_000_000),
    documentMaxChunks: int(env, 'DOCUMENT_MAX_CHUNKS', 2_000, 1, 1_000_000),
    documentMaxPages: int(env, 'DOCUMENT_MAX_PAGES', 2_000, 1, 1_000_000),
    documentMaxSheets: int(env, 'DOCUMENT_MAX_SHEETS', 256, 1, 100_000),
    documentMaxCells: int(env, 'DOCUMENT_MAX_CELLS', 1_000_000, 1, 100_000_000),
    clientMaxDocuments: int(env, 'CLIENT_MAX_DOCUMENTS', 100_000, 1, 1_000_000_000),
    // 100,000 chunks: the scale of the search benchmarks; every api process holds them (~16 KiB each, measured).
    clientMaxChunks: int(env, 'CLIENT_MAX_CHUNKS', 1_000_000, 1, 1_000_000_000),
    clientMaxTextBytes: int(env, 'CLIENT_MAX_TEXT_BYTES', 2048 * MIB, 1, 1024 * 1024 * MIB),
    textReadMaxChunks: int(env, 'TEXT_READ_MAX_CHUNKS', 500, 1, 100_000),
    textReadMaxChars: int(env, 'TEXT_READ_MAX_CHARS', 1_000_000, 1_000, 100_000_000),
    workerConcurrency: int(env, 'WORKER_CONCURRENCY', DEFAULT_WORKER_CONCURRENCY, 0, 64),
    workerPollMs: int(env, 'WORKER_POLL_MS', 250, 10, 60_000),
    // Short: a running job renews its lease every third of it, so only a dead worker's jobs wait it out.
    jobLeaseSeconds: int(env, 'JOB_LEASE_SECONDS', 10, 1, 86_400),
    jobMaxAttempts: int(env, 'JOB_MAX_ATTEMPTS', MAX_JOB_ATTEMPTS, 1, MAX_JOB_ATTEMPTS),
    jobRetryBaseSeconds: float(env, 'JOB_RETRY_BASE_SECONDS', 2, 0, 3600),
    purgeDeadlineMs: int(env, 'PURGE_DEADLINE_MS', 20_000, 1, 600_000),
    auditFingerprintSecret: optionalStr(env, 'AUDIT_FINGERPRINT_SECRET'),
    webSearchEnabled: bool(env, 'WEB_SEARCH_ENABLED', false),
    webSearchProvider,
    webSearchUrl: optionalStr(env, 'WEB_SEARCH_URL'),
    webSearchApiKey: optionalStr(env, 'WEB_SEARCH_API_KEY'),
    webSearchTimeoutMs: int(env, 'WEB_SEARCH_TIMEOUT_MS', 5_000, 100, 60_000),
    webhookTimeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    webhookRetryBaseMs: int(env, 'WEBHOOK_RETRY_BASE_MS', 10_000, 10, 600_000),
    webhookAllowPrivateNetworks: bool(env, 'WEBHOOK_ALLOW_PRIVATE_NETWORKS', false),
  };
}
