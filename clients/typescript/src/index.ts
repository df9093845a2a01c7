// The typed client: openapi-fetch over the types generated from /openapi.json (schema.ts), plus the helpers a
// caller needs every time: upload a file or a text, wait for a job (honouring Retry-After), search, walk the
// documents page by page, update, delete and restore. `raw` is the generated client for anything else.
//
//   const client = createSearchClient({ baseUrl: 'http://127.0.0.1:8000', apiKey: 'dev-key' });
//   const job = await client.uploadText({ documentId: 'memo-1', text: 'Minutes of the board meeting' });
//   await client.waitForJob(job.job_id);
//   const { results } = await client.search({ query: 'board meeting' });

import createClient from 'openapi-fetch';
import type { paths } from './schema.ts';

type Json<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;

export type SearchRequest = NonNullable<paths['/search']['post']['requestBody']>['content']['application/json'];
export type SearchResponse = Json<paths['/search']['post']['responses'][200]>;
export type SearchHit = SearchResponse['results'][number];
/** One item of a hit's content evidence: a chunk's text, its page, and its highlights when asked for. */
export type ContentEvidenceItem = SearchHit['content_evidence']['items'][number];
/** One item of a hit's metadata evidence: the leaf's path and value, how it matched, and its highlights. */
export type MetadataEvidenceItem = SearchHit['metadata_evidence']['items'][number];
export type AcceptedJob = Json<paths['/embed']['post']['responses'][202]>;
export type AcceptedUpdate = Json<paths['/update']['patch']['responses'][202]>;
export type UpdateRequest = NonNullable<paths['/update']['patch']['requestBody']>['content']['application/json'];
export type JobStatus = Json<paths['/status/{job_id}']['get']['responses'][200]>;
export type DocumentPage = Json<paths['/documents']['get']['responses'][200]>;
export type DocumentSummary = DocumentPage['documents'][number];
export type DocumentText = Json<paths['/document/{document_id}/text']['get']['responses'][200]>;
export type DeleteResult = Json<paths['/document/{document_id}']['delete']['responses'][200]>;
export type RestoreResult = Json<paths['/document/{document_id}/restore']['post']['responses'][200]>;
export type Health = Json<paths['/health']['get']['responses'][200]>;
export type Readiness = Json<paths['/discovery/readiness']['get']['responses'][200]>;

/** A job status that will not change again. */
export const TERMINAL_JOB_STATES: ReadonlySet<string> = new Set(['completed', 'failed', 'partial_failed', 'superseded']);
/** Documents a page of GET /documents holds at most (SPEC.md). */
export const MAX_DOCUMENTS_PAGE = 1000;

/** The error envelope of a refused request, with the status and the Retry-After the service sent. */
export class SearchServiceError extends Error {
  readonly status: number;
  /** error_code of the envelope (auth_failed, rate_limited, publication_unavailable, ...). */
  readonly code: string;
  readonly detail: string;
  readonly details: unknown;
  readonly requestId: string | null;
  /** Seconds the service asked to wait before repeating the request; null when it did not ask. */
  readonly retryAfterSeconds: number | null;

  constructor(status: number, body: unknown, retryAfter: string | null) {
    const envelope = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    const detail = typeof envelope.detail === 'string' ? envelope.detail : `HTTP ${status}`;
    super(`${status} ${typeof envelope.error_code === 'string' ? envelope.error_code : 'error'}: ${detail}`);
    this.name = 'SearchServiceError';
    this.status = status;
    this.code = typeof envelope.error_code === 'string' ? envelope.error_code : '';
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

export interface ClientOptions {
  /** The service's address, e.g. http://127.0.0.1:8000. */
  baseUrl: string;
  /** A Client key (X-API-Key). */
  apiKey: string;
  /** How many times a request refused with Retry-After (429, or 503 on a read) is repeated before it throws. */
  retries?: number;
  /** The longest wait for one Retry-After, in seconds (a longer one throws instead of waiting). */
  maxRetryAfterSeconds?: number;
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
  /** Time between polls when the service does not say (default 500 ms). */
  intervalMs?: number;
  /** Ends the wait when this holds instead of at a terminal state (e.g. `(job) => job.search_ready === true`). */
  until?: (job: JobStatus) => boolean;
  /** Called with each status read, e.g. to show progress. */
  onPoll?: (job: JobStatus) => void;
  signal?: AbortSignal;
}

export interface ListOptions {
  /** Documents per request, 1 to 1000 (default 100). */
  pageSize?: number;
  /** Conditions ANDed over metadata, e.g. { 'metadata.custom.branch': 'KL' }. */
  metadataFilter?: Record<string, string | number | boolean>;
  includeDeleted?: boolean;
  signal?: AbortSignal;
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

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

type Outcome<T> = { data?: T; error?: unknown; response: Response };

export class SearchClient {
  /** The generated openapi-fetch client: every route of the document, typed. */
  readonly raw: ReturnType<typeof createClient<paths>>;
  private readonly retries: number;
  private readonly maxRetryAfterSeconds: number;

  constructor(options: ClientOptions) {
    this.raw = createClient<paths>({ baseUrl: options.baseUrl.replace(/\/+$/, ''), headers: { 'X-API-Key': options.apiKey }, fetch: options.fetch });
    this.retries = options.retries ?? 5;
    this.maxRetryAfterSeconds = options.maxRetryAfterSeconds ?? 60;
  }

  /**
   * Sends a request until it is answered without a Retry-After refusal, at most `retries` times more. `repeatOn503`:
   * a refused read changed nothing, so repeating it is safe; writes repeat only on 429 (refused before any work).
   */
  private async send<T>(call: () => Promise<Outcome<T>>, repeatOn503: boolean, signal?: AbortSignal): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const { data, error, response } = await call();
      if (response.ok) return data as T;
      const refusal = new SearchServiceError(response.status, error, response.headers.get('retry-after'));
      const repeatable = refusal.status === 429 || (repeatOn503 && refusal.status === 503);
      if (!repeatable || !refusal.retryable || attempt >= this.retries || refusal.retryAfterSeconds! > this.maxRetryAfterSeconds) throw refusal;
      await sleep(refusal.retryAfterSeconds! * 1000, signal);
    }
  }

  /** Queues a plain-text document (POST /embed, JSON). */
  uploadText(input: UploadOptions & { text: string }): Promise<AcceptedJob> {
    const body = { document_id: input.documentId, text: input.text, ...(input.versionId !== undefined && { version_id: input.versionId }), ...(input.filename !== undefined && { filename: input.filename }), ...(input.metadata !== undefined && { metadata: input.metadata }) };
    return this.send(() => this.raw.POST('/embed', { body, signal: input.signal }) as Promise<Outcome<AcceptedJob>>, false, input.signal);
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
    return this.send(
      () => this.raw.POST('/embed', { body: form() as never, bodySerializer: (body: unknown) => body as FormData, signal: input.signal }) as Promise<Outcome<AcceptedJob>>,
      false,
      input.signal,
    );
  }

  /** GET /status/{job_id}. */
  status(jobId: string, signal?: AbortSignal): Promise<JobStatus> {
    return this.send(() => this.raw.GET('/status/{job_id}', { params: { path: { job_id: jobId } }, signal }), true, signal);
  }

  /** Polls a job until it is terminal (or `until` holds), waiting as long as the service asks between polls. */
  async waitForJob(jobId: string, options: WaitOptions = {}): Promise<JobStatus> {
    const deadline = Date.now() + (options.timeoutMs ?? 600_000);
    const done = options.until ?? ((job: JobStatus) => TERMINAL_JOB_STATES.has(job.status));
    for (;;) {
      const job = await this.status(jobId, options.signal);
      options.onPoll?.(job);
      if (done(job)) return job;
      const next = job.status === 'retrying' && typeof job.next_retry_in_seconds === 'number' ? Math.max(options.intervalMs ?? 500, Math.min(job.next_retry_in_seconds * 1000, 5000)) : (options.intervalMs ?? 500);
      if (Date.now() + next > deadline) throw new Error(`job ${jobId} is still ${job.status} after ${options.timeoutMs ?? 600_000} ms`);
      await sleep(next, options.signal);
    }
  }

  /** POST /search: `query` plus any of scope, alpha, limit, offset, filters, rerank, top_k_rerank, include_deleted, highlight. */
  search(request: SearchRequest, signal?: AbortSignal): Promise<SearchResponse> {
    return this.send(() => this.raw.POST('/search', { body: request, signal }), true, signal);
  }

  /** One page of GET /documents. */
  documentPage(options: ListOptions & { offset?: number } = {}): Promise<DocumentPage> {
    const query = {
      limit: options.pageSize ?? 100,
      offset: options.offset ?? 0,
      ...(options.metadataFilter && { metadata_filter: JSON.stringify(options.metadataFilter) }),
      ...(options.includeDeleted !== undefined && { include_deleted: options.includeDeleted }),
    };
    return this.send(() => this.raw.GET('/documents', { params: { query }, signal: options.signal }), true, options.signal);
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
    const query = { ...(options.includeDeleted !== undefined && { include_deleted: options.includeDeleted }), ...(options.chunkOffset !== undefined && { chunk_offset: options.chunkOffset }) };
    return this.send(() => this.raw.GET('/document/{document_id}/text', { params: { path: { document_id: documentId }, query }, signal: options.signal }), true, options.signal);
  }

  /** PATCH /update: queues a metadata update (poll it with waitForJob). */
  update(request: UpdateRequest, signal?: AbortSignal): Promise<AcceptedUpdate> {
    return this.send(() => this.raw.PATCH('/update', { body: request, signal }) as Promise<Outcome<AcceptedUpdate>>, false, signal);
  }

  /**
   * DELETE /document/{document_id}: soft (restorable) unless mode is hard; one version with versionId. A 503 is
   * thrown, not repeated: SPEC.md asks the caller to check that the document is still there before repeating.
   */
  delete(documentId: string, options: { versionId?: string; mode?: 'soft' | 'hard'; signal?: AbortSignal } = {}): Promise<DeleteResult> {
    const query = { ...(options.versionId !== undefined && { version_id: options.versionId }), ...(options.mode !== undefined && { mode: options.mode }) };
    return this.send(() => this.raw.DELETE('/document/{document_id}', { params: { path: { document_id: documentId }, query }, signal: options.signal }), false, options.signal);
  }

  /** POST /document/{document_id}/restore: every soft-deleted version, or one with versionId. */
  restore(documentId: string, options: { versionId?: string; signal?: AbortSignal } = {}): Promise<RestoreResult> {
    const query = options.versionId !== undefined ? { version_id: options.versionId } : {};
    return this.send(() => this.raw.POST('/document/{document_id}/restore', { params: { path: { document_id: documentId }, query }, signal: options.signal }), false, options.signal);
  }

  /** GET /discovery/readiness: whether the metadata lane serves this Client. */
  readiness(signal?: AbortSignal): Promise<Readiness> {
    return this.send(() => this.raw.GET('/discovery/readiness', { signal }), true, signal);
  }

  /** GET /health (no key needed): the answer, whether it is 200 or 503. */
  async health(signal?: AbortSignal): Promise<{ status: number; body: Health }> {
    const { data, error, response } = await this.raw.GET('/health', { signal });
    return { status: response.status, body: (data ?? error) as Health };
  }
}

export function createSearchClient(options: ClientOptions): SearchClient {
  return new SearchClient(options);
}
