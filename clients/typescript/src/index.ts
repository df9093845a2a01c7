// The typed client: the types generated from /openapi.json (schema.ts) over the platform's fetch, plus the helpers a
// caller needs every time: upload a file or a text, wait for a job within the rate-limit budget, search, walk the
// documents page by page, update, delete and restore. It has no runtime dependencies, so a project installs it
// from a tarball or a registry and runs it with plain node (the package holds the built JavaScript in dist/).
//
//   const client = createSearchClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: 'dev-key' });
//   const job = await client.uploadText({ documentId: 'memo-1', text: 'Minutes of the board meeting' });
//   await client.waitForJob(job.job_id);
//   const { results } = await client.search({ query: 'board meeting' });

// '.js', unlike the rest of the repository: tsc keeps a type-only import's specifier as written in the package's
// declarations, and dist/ holds schema.d.ts, not schema.ts. (The import is erased before anything runs.)
import type { paths } from './schema.js';
import { RequestBudget } from './request-budget.ts';
import { pollHoldMs, serviceBudgetOf } from './service-budget.ts';
import type { ServiceBudget } from './service-budget.ts';
import { sleep } from './sleep.ts';

export { POLL_HEADROOM_SHARE, pollHoldMs, serviceBudgetOf } from './service-budget.ts';
export type { ServiceBudget } from './service-budget.ts';

type Json<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;

export type SearchRequest = NonNullable<paths['/search']['post']['requestBody']>['content']['application/json'];
export type SearchResponse = Json<paths['/search']['post']['responses'][200]>;
export type SearchHit = SearchResponse['results'][number];
/** One item of a hit's content evidence: a chunk's text, its page, and its highlights when asked for. */
export type ContentEvidenceItem = SearchHit['content_evidence']['items'][number];
/** One item of a hit's metadata evidence: the leaf's path and value, how it matched, and its highlights. */
export type MetadataEvidenceItem = SearchHit['metadata_evidence']['items'][number];
export type SimilarRequest = NonNullable<paths['/similar']['post']['requestBody']>['content']['application/json'];
/** The Evidence Result page of POST /search: the versions most like the given one. */
export type SimilarResponse = Json<paths['/similar']['post']['responses'][200]>;
/** The Client's synonym set: multi-way sets {terms} and one-way rules {input, synonyms}. */
export type SynonymSettings = NonNullable<paths['/settings/synonyms']['put']['requestBody']>['content']['application/json'];
export type SynonymRule = SynonymSettings['synonyms'][number];
export type AcceptedJob = Json<paths['/embed']['post']['responses'][202]>;
export type AcceptedUpdate = Json<paths['/update']['patch']['responses'][202]>;
export type UpdateRequest = NonNullable<paths['/update']['patch']['requestBody']>['content']['application/json'];
export type JobStatus = Json<paths['/status/{job_id}']['get']['responses'][200]>;
export type DocumentPage = Json<paths['/documents']['get']['responses'][200]>;
export type DocumentSummary = DocumentPage['documents'][number];
/** The counts of one facet (meta.facets of a search, facets of a document page). */
export type FacetCounts = NonNullable<SearchResponse['meta']['facets']>[string];
/** A sort key of POST /search, and of GET /documents through ListOptions.sort. */
export type SortKey = NonNullable<SearchRequest['sort']>[number];
export type DocumentText = Json<paths['/document/{document_id}/text']['get']['responses'][200]>;
export type DeleteResult = Json<paths['/document/{document_id}']['delete']['responses'][200]>;
export type RestoreResult = Json<paths['/document/{document_id}/restore']['post']['responses'][200]>;
export type Health = Json<paths['/health']['get']['responses'][200]>;
export type Readiness = Json<paths['/discovery/readiness']['get']['responses'][200]>;
export type ImportAccepted = Json<paths['/admin/clients/{client_id}/import']['post']['responses'][202]>;
/** Operator routes (an operator key as apiKey): Clients and keys at runtime. */
export type RuntimeClient = Json<paths['/admin/clients/{client_id}']['patch']['responses'][200]>;
export type ClientChanges = NonNullable<paths['/admin/clients/{client_id}']['patch']['requestBody']>['content']['application/json'];
export type KeyRequest = NonNullable<paths['/admin/clients/{client_id}/keys']['post']['requestBody']>['content']['application/json'];
export type NewKey = Json<paths['/admin/clients/{client_id}/keys']['post']['responses'][201]>;
export type IssuedKey = Json<paths['/admin/clients/{client_id}/keys']['get']['responses'][200]>['keys'][number];
export type WebhookRegistration = NonNullable<paths['/webhooks']['post']['requestBody']>['content']['application/json'];
export type Webhook = Json<paths['/webhooks']['post']['responses'][201]>;
export type WebhookList = Json<paths['/webhooks']['get']['responses'][200]>;
export type WebhookRemoval = Json<paths['/webhooks/{webhook_id}']['delete']['responses'][200]>;
export type WebhookDeliveries = Json<paths['/webhooks/{webhook_id}/deliveries']['get']['responses'][200]>;
export type WebhookDelivery = WebhookDeliveries['deliveries'][number];
/** Every route of the OpenAPI document, as `request` takes it. */
export type RoutePath = keyof paths;
export type { paths };

/** A job status that will not change again. */
export const TERMINAL_JOB_STATES: ReadonlySet<string> = new Set(['completed', 'failed', 'partial_failed', 'superseded']);
/** Documents a page of GET /documents holds at most (SPEC.md). */
export const MAX_DOCUMENTS_PAGE = 1000;
/** Where the service listens when nothing else is set (HOST 127.0.0.1, PORT 8080). */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';
/** Repeats of a request refused with Retry-After before it throws. */
export const DEFAULT_RETRIES = 5;
/**
 * The longest Retry-After waited for by default. The rate limit's window is a minute (SPEC.md), so a 429 never asks
 * for more than 60 s and is always waited for; a caller that would rather fail fast sets a lower cap.
 */
export const DEFAULT_MAX_RETRY_AFTER_SECONDS = 60;
/** The first wait between two polls of a job. */
export const FIRST_POLL_INTERVAL_MS = 1000;
/** Each wait between polls is this many times the one before, up to the longest. */
export const POLL_BACKOFF_FACTOR = 2;
/**
 * The longest wait between two polls. One wait then spends 9 requests in its first minute (polls at 0, 1, 3, 7, 15,
 * 25, 35, 45 and 55 s) and 6 a minute after: under a third of the default budget of 30 a minute, so a caller that
 * uploads and waits for a few jobs at a time stays within it.
 */
export const MAX_POLL_INTERVAL_MS = 10_000;
/** How long waitForJob waits for a job by default. */
export const DEFAULT_WAIT_TIMEOUT_MS = 600_000;
/** The window of the service's rate limit (SPEC.md: requests per minute, sliding). */
export const RATE_LIMIT_WINDOW_MS = 60_000;
/** The most characters of a non-validation `details` object the error message repeats. */
const MAX_DETAILS_IN_MESSAGE = 300;

/**
 * The envelope's `details` in words: a validation failure's entries as `field: message`, a 503's own message, any
 * other object as compact JSON (cut short). Null when there is nothing the detail does not already say.
 */
export function describeDetails(details: unknown, detail = ''): string | null {
  if (details === undefined || details === null) return null;
  if (Array.isArray(details)) {
    const entries = details.map((entry) => {
      const item = (typeof entry === 'object' && entry !== null ? entry : {}) as Record<string, unknown>;
      const loc = Array.isArray(item.loc) ? item.loc.map(String) : [];
      // Body fields are named as the caller wrote them; query and path parameters keep their place in front.
      const field = (loc[0] === 'body' ? loc.slice(1) : loc).join('.');
      const message = typeof item.msg === 'string' ? item.msg : JSON.stringify(entry);
      return field === '' ? message : `${field}: ${message}`;
    });
    return entries.length === 0 ? null : entries.join('; ');
  }
  if (typeof details === 'object') {
    const message = (details as Record<string, unknown>).message;
    if (typeof message === 'string') return message === detail ? null : message;
    const text = JSON.stringify(details);
    return text === '{}' ? null : text.length > MAX_DETAILS_IN_MESSAGE ? `${text.slice(0, MAX_DETAILS_IN_MESSAGE)}…` : text;
  }
  return String(details);
}

/** The error envelope of a refused request, with the status and the Retry-After the service sent. */
export class SearchServiceError extends Error {
  readonly status: number;
  /** error_code of the envelope (auth_failed, rate_limited, publication_unavailable, ...). */
  readonly code: string;
  readonly detail: string;
  /** The envelope's details as sent (an array of {type, loc, msg, input} for a validation failure). */
  readonly details: unknown;
  readonly requestId: string | null;
  /** Seconds the service asked to wait before repeating the request; null when it did not ask. */
  readonly retryAfterSeconds: number | null;

  constructor(status: number, body: unknown, retryAfter: string | null) {
    const envelope = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    const detail = typeof envelope.detail === 'string' ? envelope.detail : `HTTP ${status}`;
    const code = typeof envelope.error_code === 'string' ? envelope.error_code : '';
    const said = describeDetails(envelope.details, detail);
    super(`${status} ${code || 'error'}: ${detail}${said === null ? '' : ` (${said})`}`);
    this.name = 'SearchServiceError';
    this.status = status;
    this.code = code;
    this.detail = detail;
    this.details = envelope.details;
    this.requestId = typeof envelope.request_id === 'string' ? envelope.request_id : null;
    const seconds = retryAfter === null ? Number.NaN : Number(retryAfter);
    this.retryAfterSeconds = Number.isFinite(seconds) && seconds >= 0 ? seconds : null;
  }

  /** Whether repeating the same request later may succeed (the service sent Retry-After with a 429 or 503). */
  get retryable(): boolean {
    return (this.status === 429 || this.status === 503) && this.retryAfterSeconds !== null;
  }
}

/**
 * Why the client waits before sending a request: `rate_limited`, a 429's Retry-After; `unavailable`, a 503's
 * Retry-After (the service cannot answer yet); `budget`, the client's own requestsPerMinute is spent.
 */
export type WaitReason = 'rate_limited' | 'unavailable' | 'budget';

/** A wait the client is about to make, e.g. to show "waiting 23 s for the rate limit". */
export interface WaitNotice {
  reason: WaitReason;
  method: string;
  /** The route, as in the OpenAPI document (`/status/{job_id}`). */
  path: string;
  /** How long the client waits before sending the request (again). */
  seconds: number;
  /** The refusal being waited out; null for a wait of the client's own budget. */
  error: SearchServiceError | null;
  /** Times this request was refused so far (0 before it was first sent). */
  attempt: number;
}

export interface ClientOptions {
  /** The service's address (default http://127.0.0.1:8080). */
  baseUrl?: string;
  /** A Client key (X-API-Key). */
  apiKey: string;
  /** How many times a request refused with Retry-After (429, or 503 on a read) is repeated before it throws (default 5). */
  retries?: number;
  /** The longest wait for one Retry-After, in seconds (a longer one throws instead of waiting; default 60). */
  maxRetryAfterSeconds?: number;
  /**
   * The Client's rate limit, when the caller knows it (the deployment's RATE_LIMIT_PER_MINUTE, 30 by default): this
   * client then spaces its own requests so that no minute holds more, and waits instead of being refused. Other
   * users of the Client's keys spend the same budget; a refusal their requests cause is waited out by Retry-After.
   * Once the service tells its budget (RateLimit-* headers) the client keeps to the limit it told instead, and
   * sends nothing while it says no room is left. Unset, requests are sent at once (waitForJob's polls still keep
   * to what the service told).
   */
  requestsPerMinute?: number;
  /** Called with the budget each answer tells (RateLimit-* headers), e.g. for a tool to show or pace on it. */
  onBudget?: (budget: ServiceBudget) => void;
  /** Called before every wait (a Retry-After, or the client's own budget), e.g. to show "waiting 23 s for the rate limit". */
  onWait?: (notice: WaitNotice) => void;
  fetch?: typeof fetch;
}

export interface UploadOptions {
  documentId: string;
  versionId?: string;
  filename?: string;
  /** Stored under metadata.custom. */
  metadata?: Record<string, unknown>;
  signal?: AbortSignal;
}

export interface WaitOptions {
  /** Gives up with an Error after this long (default 10 minutes). */
  timeoutMs?: number;
  /** The first wait between polls (default 1 s); each later one is twice the one before, up to maxIntervalMs. */
  intervalMs?: number;
  /** The longest wait between polls (default 10 s). */
  maxIntervalMs?: number;
  /** Ends the wait when this holds instead of at a terminal state (e.g. `(job) => job.search_ready === true`). */
  until?: (job: JobStatus) => boolean;
  /** Called with each status read, e.g. to show progress. */
  onPoll?: (job: JobStatus) => void;
  /** Called before each wait of this wait's polls (besides the client's own onWait). */
  onWait?: (notice: WaitNotice) => void;
  signal?: AbortSignal;
}

export interface ListOptions {
  /** Documents per request, 1 to 1000 (default 100). */
  pageSize?: number;
  /** Conditions ANDed over metadata, e.g. { 'metadata.custom.branch': 'KL' }. */
  metadataFilter?: Record<string, string | number | boolean>;
  includeDeleted?: boolean;
  /** Paths to count the listed versions by (`path` or `path:day|month|year`), answered as the page's `facets`. */
  facets?: string[];
  /** Values each facet lists, 1 to 100 (default 10). */
  facetLimit?: number;
  /** Up to three keys the rows are ordered by before paging. */
  sort?: SortKey[];
  signal?: AbortSignal;
}

/** What `request` sends: path parameters by name, query parameters, and a JSON or multipart body. */
export interface RequestParts {
  path?: Record<string, string>;
  query?: Record<string, string | number | boolean | undefined>;
  json?: unknown;
  /** Built again for every attempt: a FormData body is read once. */
  form?: () => FormData;
  /** An NDJSON body (POST /admin/clients/{client_id}/import). */
  ndjson?: string;
  /** The answer of a success is text, not JSON (GET /admin/clients/{client_id}/export). */
  textAnswer?: boolean;
  signal?: AbortSignal;
}

/** When `send` repeats a refused request. */
interface RepeatPolicy {
  /** A refused read changed nothing, so repeating it on 503 is safe; writes repeat only on 429 (refused before any work). */
  repeatOn503: boolean;
  retries: number;
  /** No wait may end after this (epoch ms). */
  deadline?: number;
  onWait?: (notice: WaitNotice) => void;
}

/** A `key=value` value as filters and custom metadata take it: true/false and integers typed, anything else a string. */
export function typedValue(text: string): string | number | boolean {
  if (text === 'true' || text === 'false') return text === 'true';
  if (/^-?\d{1,15}$/.test(text)) return Number(text);
  return text;
}

/** Search filters from key=value pairs: values typed, a repeated key gathered into a list (entity keys take lists). */
export function filtersFromPairs(pairs: readonly (readonly [string, string])[]): Record<string, unknown> {
  const filters: Record<string, unknown> = {};
  for (const [key, text] of pairs) {
    const value = typedValue(text);
    const previous = filters[key];
    filters[key] = previous === undefined ? value : Array.isArray(previous) ? [...previous, value] : [previous, value];
  }
  return filters;
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export class SearchClient {
  readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly fetch: typeof fetch;
  private readonly retries: number;
  private readonly maxRetryAfterSeconds: number;
  private readonly onWait?: (notice: WaitNotice) => void;
  private readonly budget: RequestBudget | null;
  private readonly onBudget?: (budget: ServiceBudget) => void;
  /** The budget the last answer told, and when it came (epoch ms); null before any answer told one. */
  private told: { budget: ServiceBudget; at: number } | null = null;

  constructor(options: ClientOptions) {
    this.baseUrl = (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
    this.apiKey = options.apiKey;
    this.fetch = options.fetch ?? globalThis.fetch;
    this.budget = options.requestsPerMinute === undefined ? null : new RequestBudget(options.requestsPerMinute, RATE_LIMIT_WINDOW_MS);
    this.retries = options.retries ?? DEFAULT_RETRIES;
    this.maxRetryAfterSeconds = options.maxRetryAfterSeconds ?? DEFAULT_MAX_RETRY_AFTER_SECONDS;
    this.onWait = options.onWait;
    this.onBudget = options.onBudget;
  }

  /** The budget the service told on its last answer that told one (null before). */
  get serviceBudget(): ServiceBudget | null {
    return this.told?.budget ?? null;
  }

  /** One exchange: the answer's status, headers and parsed body, whatever the status. */
  private async exchange(method: string, route: string, parts: RequestParts): Promise<{ response: Response; body: unknown }> {
    const path = route.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = parts.path?.[name];
      if (value === undefined) throw new TypeError(`${route} needs the path parameter ${name}`);
      return encodeURIComponent(value);
    });
    const url = new URL(this.baseUrl + path);
    for (const [name, value] of Object.entries(parts.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = { 'X-API-Key': this.apiKey, Accept: 'application/json' };
    let body: string | FormData | undefined;
    if (parts.json !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(parts.json);
    } else if (parts.form !== undefined) {
      body = parts.form();
    } else if (parts.ndjson !== undefined) {
      headers['Content-Type'] = 'application/x-ndjson';
      body = parts.ndjson;
    }
    // Called on globalThis: a browser's fetch refuses to run as a method of anything else.
    const response = await this.fetch.call(globalThis, url, { method, headers, body, signal: parts.signal });
    const told = serviceBudgetOf(response.headers);
    if (told !== null) {
      const at = Date.now();
      this.told = { budget: told, at };
      // The service's own figures replace the caller's guess. Without one the client paces only waitForJob's polls
      // on them: a tool that paces its requests itself (the CLI, the console) is not held a second time, unseen.
      this.budget?.learn(told, at);
      this.onBudget?.(told);
    }
    return { response, body: parts.textAnswer && response.ok ? await response.text() : await readBody(response) };
  }

  /**
   * Sends a request until it is answered without a Retry-After refusal, at most `retries` times more, waiting as the
   * service asks (never longer than maxRetryAfterSeconds, never past the deadline).
   */
  private async send<T>(method: string, route: string, parts: RequestParts, policy: RepeatPolicy): Promise<T> {
    const tell = (notice: WaitNotice) => {
      this.onWait?.(notice);
      policy.onWait?.(notice);
    };
    for (let attempt = 1; ; attempt++) {
      const release = this.budget === null ? null : await this.budget.take(parts.signal, (ms) => tell({ reason: 'budget', method, path: route, seconds: ms / 1000, error: null, attempt: attempt - 1 }));
      let answer: { response: Response; body: unknown };
      try {
        answer = await this.exchange(method, route, parts);
      } finally {
        release?.();
      }
      const { response, body } = answer;
      if (response.ok) return body as T;
      const refusal = new SearchServiceError(response.status, body, response.headers.get('retry-after'));
      const repeatable = refusal.status === 429 || (policy.repeatOn503 && refusal.status === 503);
      if (!repeatable || !refusal.retryable || attempt > policy.retries) throw refusal;
      const seconds = refusal.retryAfterSeconds!;
      if (seconds > this.maxRetryAfterSeconds) throw refusal;
      if (policy.deadline !== undefined && Date.now() + seconds * 1000 > policy.deadline) throw refusal;
      tell({ reason: refusal.status === 429 ? 'rate_limited' : 'unavailable', method, path: route, seconds, error: refusal, attempt });
      await sleep(seconds * 1000, parts.signal);
    }
  }

  /**
   * Any route of the document, for what the helpers below do not cover: the answer's body on a 2xx, a
   * SearchServiceError otherwise. A 429 with Retry-After is repeated as the helpers repeat it; a 503 only when
   * `repeatOn503` says the request is a read.
   */
  request<T = unknown>(method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', path: RoutePath, parts: RequestParts & { repeatOn503?: boolean } = {}): Promise<T> {
    return this.send<T>(method, path, parts, { repeatOn503: parts.repeatOn503 ?? method === 'GET', retries: this.retries });
  }

  private read<T>(route: RoutePath, parts: RequestParts, method = 'GET'): Promise<T> {
    return this.send<T>(method, route, parts, { repeatOn503: true, retries: this.retries });
  }

  private write<T>(method: string, route: RoutePath, parts: RequestParts): Promise<T> {
    return this.send<T>(method, route, parts, { repeatOn503: false, retries: this.retries });
  }

  /** Queues a plain-text document (POST /embed, JSON). */
  uploadText(input: UploadOptions & { text: string }): Promise<AcceptedJob> {
    const json = { document_id: input.documentId, text: input.text, ...(input.versionId !== undefined && { version_id: input.versionId }), ...(input.filename !== undefined && { filename: input.filename }), ...(input.metadata !== undefined && { metadata: input.metadata }) };
    return this.write('POST', '/embed', { json, signal: input.signal });
  }

  /** Queues a file (POST /embed, multipart): its name's extension and its bytes tell the service its format. */
  uploadFile(input: UploadOptions & { file: Blob | Uint8Array; filename: string }): Promise<AcceptedJob> {
    const form = () => {
      const data = new FormData();
      data.set('document_id', input.documentId);
      if (input.versionId !== undefined) data.set('version_id', input.versionId);
      if (input.metadata !== undefined) data.set('metadata', JSON.stringify(input.metadata));
      data.set('file', input.file instanceof Blob ? input.file : new Blob([input.file as Uint8Array<ArrayBuffer>]), input.filename);
      return data;
    };
    return this.write('POST', '/embed', { form, signal: input.signal });
  }

  /** GET /status/{job_id}. */
  status(jobId: string, signal?: AbortSignal): Promise<JobStatus> {
    return this.read('/status/{job_id}', { path: { job_id: jobId }, signal });
  }

  /**
   * Polls a job until it is terminal (or `until` holds). The waits between polls grow (1 s, 2 s, 4 s, ... up to
   * 10 s by default), a retrying job is not polled before its next attempt is due, and a poll refused with
   * Retry-After (429 or 503) is repeated after the wait the service asked for, as often as the timeout allows.
   */
  async waitForJob(jobId: string, options: WaitOptions = {}): Promise<JobStatus> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
    const deadline = Date.now() + timeoutMs;
    const longest = options.maxIntervalMs ?? MAX_POLL_INTERVAL_MS;
    const done = options.until ?? ((job: JobStatus) => TERMINAL_JOB_STATES.has(job.status));
    // A status read changes nothing: repeating it is bounded by the deadline, not by a count.
    const policy: RepeatPolicy = { repeatOn503: true, retries: Number.POSITIVE_INFINITY, deadline, onWait: options.onWait };
    let interval = Math.min(options.intervalMs ?? FIRST_POLL_INTERVAL_MS, longest);
    for (;;) {
      const job = await this.send<JobStatus>('GET', '/status/{job_id}', { path: { job_id: jobId }, signal: options.signal }, policy);
      options.onPoll?.(job);
      if (done(job)) return job;
      const dueIn = job.status === 'retrying' && typeof job.next_retry_in_seconds === 'number' ? Math.min(job.next_retry_in_seconds * 1000, longest) : 0;
      // Polls leave the last quarter of the window the service tells to the caller's other requests.
      const hold = this.told === null ? 0 : pollHoldMs(this.told.budget, Date.now() - this.told.at);
      const next = Math.max(interval, dueIn, hold);
      if (Date.now() + next > deadline) throw new Error(`job ${jobId} is still ${job.status} after ${timeoutMs} ms`);
      if (hold > Math.max(interval, dueIn)) {
        const notice: WaitNotice = { reason: 'budget', method: 'GET', path: '/status/{job_id}', seconds: hold / 1000, error: null, attempt: 0 };
        this.onWait?.(notice);
        options.onWait?.(notice);
      }
      await sleep(next, options.signal);
      interval = Math.min(interval * POLL_BACKOFF_FACTOR, longest);
    }
  }

  /** POST /search: `query` plus any of scope, alpha, limit, offset, filters, rerank, top_k_rerank, include_deleted, highlight, facets, facet_limit, sort. */
  search(request: SearchRequest, signal?: AbortSignal): Promise<SearchResponse> {
    return this.read('/search', { json: request, signal }, 'POST');
  }

  /** POST /similar: the versions most like `document_id` (its latest version, or `version_id`), with filters. */
  similar(request: SimilarRequest, signal?: AbortSignal): Promise<SimilarResponse> {
    return this.read('/similar', { json: request, signal }, 'POST');
  }

  /** GET /settings/synonyms: the Client's synonym set (`{synonyms: []}` when none). */
  synonyms(signal?: AbortSignal): Promise<SynonymSettings> {
    return this.read('/settings/synonyms', { signal });
  }

  /** PUT /settings/synonyms: replaces the whole set; it holds for every search that starts after this resolves. */
  setSynonyms(rules: SynonymRule[], signal?: AbortSignal): Promise<SynonymSettings> {
    return this.write('PUT', '/settings/synonyms', { json: { synonyms: rules }, signal });
  }

  /** One page of GET /documents. */
  documentPage(options: ListOptions & { offset?: number } = {}): Promise<DocumentPage> {
    const query = {
      limit: options.pageSize ?? 100,
      offset: options.offset ?? 0,
      metadata_filter: options.metadataFilter && JSON.stringify(options.metadataFilter),
      include_deleted: options.includeDeleted,
      facets: options.facets?.join(','),
      facet_limit: options.facetLimit,
      sort: options.sort?.map((key) => `${key.field}:${key.order}`).join(','),
    };
    return this.read('/documents', { query, signal: options.signal });
  }

  /**
   * Every document summary, page after page, each version once. Paging is by offset: a version published while the
   * walk runs can shift later rows back (the repeat is dropped here), and one deleted meanwhile can shift a row
   * forward past the walk, as with any offset paging.
   */
  async *documents(options: ListOptions = {}): AsyncGenerator<DocumentSummary> {
    const yielded = new Set<string>();
    for (let offset = 0; ; ) {
      const page = await this.documentPage({ ...options, offset });
      for (const summary of page.documents) {
        const key = JSON.stringify([summary.document_id, summary.version_id]);
        if (yielded.has(key)) continue;
        yielded.add(key);
        yield summary;
      }
      if (!page.has_more || page.documents.length === 0) return;
      offset += page.documents.length;
    }
  }

  /** GET /document/{document_id}/text: the latest version's chunks in order (a page of them for a long one). */
  text(documentId: string, options: { includeDeleted?: boolean; chunkOffset?: number; signal?: AbortSignal } = {}): Promise<DocumentText> {
    return this.read('/document/{document_id}/text', { path: { document_id: documentId }, query: { include_deleted: options.includeDeleted, chunk_offset: options.chunkOffset }, signal: options.signal });
  }

  /** PATCH /update: queues a metadata update (poll it with waitForJob). */
  update(request: UpdateRequest, signal?: AbortSignal): Promise<AcceptedUpdate> {
    return this.write('PATCH', '/update', { json: request, signal });
  }

  /**
   * DELETE /document/{document_id}: soft (restorable) unless mode is hard; one version with versionId. A 503 is
   * thrown, not repeated: SPEC.md asks the caller to check that the document is still there before repeating.
   */
  delete(documentId: string, options: { versionId?: string; mode?: 'soft' | 'hard'; signal?: AbortSignal } = {}): Promise<DeleteResult> {
    return this.write('DELETE', '/document/{document_id}', { path: { document_id: documentId }, query: { version_id: options.versionId, mode: options.mode }, signal: options.signal });
  }

  /** POST /document/{document_id}/restore: every soft-deleted version, or one with versionId. */
  restore(documentId: string, options: { versionId?: string; signal?: AbortSignal } = {}): Promise<RestoreResult> {
    return this.write('POST', '/document/{document_id}/restore', { path: { document_id: documentId }, query: { version_id: options.versionId }, signal: options.signal });
  }

  /** GET /discovery/readiness: whether the metadata lane serves this Client. */
  readiness(signal?: AbortSignal): Promise<Readiness> {
    return this.read('/discovery/readiness', { signal });
  }

  /**
   * Operator (a client made with an operator key): GET /admin/clients/{client_id}/export, the Client's versions as
   * hds-export/1 NDJSON text (a header line, then one line per Document Version).
   */
  exportClient(clientId: string, signal?: AbortSignal): Promise<string> {
    return this.read('/admin/clients/{client_id}/export', { path: { client_id: clientId }, textAnswer: true, signal });
  }

  /**
   * Operator: POST /admin/clients/{client_id}/import of an export's NDJSON text. Every line is checked before
   * anything is queued; one embed job is queued per version the Client does not hold (poll them with waitForJob
   * and a key of that Client).
   */
  importClient(clientId: string, ndjson: string, signal?: AbortSignal): Promise<ImportAccepted> {
    return this.write('POST', '/admin/clients/{client_id}/import', { path: { client_id: clientId }, ndjson, signal });
  }

  /** Operator: POST /admin/clients. A Client that exists (API_KEY_CLIENTS names it, or it was created) is a 409. */
  createClient(clientId: string, signal?: AbortSignal): Promise<{ client_id: string; created_at: string }> {
    return this.write('POST', '/admin/clients', { json: { client_id: clientId }, signal });
  }

  /** Operator: GET /admin/clients, every Client with what it holds. */
  async listClients(signal?: AbortSignal): Promise<RuntimeClient[]> {
    return (await this.read<{ clients: RuntimeClient[] }>('/admin/clients', { signal })).clients;
  }

  /** Operator: PATCH /admin/clients/{client_id}: disable or enable it, set its own rate limits (null: the deployment's). */
  changeClient(clientId: string, changes: ClientChanges, signal?: AbortSignal): Promise<RuntimeClient> {
    return this.write('PATCH', '/admin/clients/{client_id}', { path: { client_id: clientId }, json: changes, signal });
  }

  /** Operator: POST /admin/clients/{client_id}/keys. The answer's `key` is the secret, shown this once. */
  issueKey(clientId: string, request: KeyRequest = {}, signal?: AbortSignal): Promise<NewKey> {
    return this.write('POST', '/admin/clients/{client_id}/keys', { path: { client_id: clientId }, json: request, signal });
  }

  /** Operator: GET /admin/clients/{client_id}/keys, without secrets. */
  async listKeys(clientId: string, signal?: AbortSignal): Promise<IssuedKey[]> {
    return (await this.read<{ keys: IssuedKey[] }>('/admin/clients/{client_id}/keys', { path: { client_id: clientId }, signal })).keys;
  }

  /** Operator: DELETE /admin/keys/{key_id}: the key answers 401 on every api process within 1 s. */
  async revokeKey(keyId: string, signal?: AbortSignal): Promise<void> {
    await this.write('DELETE', '/admin/keys/{key_id}', { path: { key_id: keyId }, signal });
  }

  /** POST /webhooks: job outcomes of `events` are POSTed to `url`, signed with `secret` (X-Webhook-Signature). */
  createWebhook(registration: WebhookRegistration, signal?: AbortSignal): Promise<Webhook> {
    return this.write('POST', '/webhooks', { json: registration, signal });
  }

  /** GET /webhooks: the Client's webhooks, oldest first (never their secrets). */
  webhooks(signal?: AbortSignal): Promise<WebhookList> {
    return this.read('/webhooks', { signal });
  }

  /** DELETE /webhooks/{webhook_id}: the webhook and its deliveries. */
  deleteWebhook(webhookId: string, signal?: AbortSignal): Promise<WebhookRemoval> {
    return this.write('DELETE', '/webhooks/{webhook_id}', { path: { webhook_id: webhookId }, signal });
  }

  /** GET /webhooks/{webhook_id}/deliveries: the newest 100 deliveries, newest first. */
  webhookDeliveries(webhookId: string, signal?: AbortSignal): Promise<WebhookDeliveries> {
    return this.read('/webhooks/{webhook_id}/deliveries', { path: { webhook_id: webhookId }, signal });
  }

  /** GET /health (no key needed): the answer, whether it is 200 or 503. */
  async health(signal?: AbortSignal): Promise<{ status: number; body: Health }> {
    const { response, body } = await this.exchange('GET', '/health', { signal });
    return { status: response.status, body: body as Health };
  }
}

export function createSearchClient(options: ClientOptions): SearchClient {
  return new SearchClient(options);
}
