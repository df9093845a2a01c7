// POSTs JSON to a model provider endpoint with a timeout and a response size cap, and turns every failure
// into a ModelProviderError that says whether retrying can help. It never logs or echoes API keys.

import { ModelProviderError } from './model-error.ts';

/** Responses above this size are refused: no embedding or rerank answer is legitimately that large. */
export const HTTP_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
/** Provider error texts are quoted in our errors up to this many characters. */
export const HTTP_ERROR_DETAIL_CHARS = 300;

export interface JsonPost {
  url: string;
  body: unknown;
  headers?: Record<string, string>;
  timeoutMs: number;
  /** Names the provider in error messages, e.g. "openai embeddings". */
  what: string;
}

export interface JsonAnswer {
  status: number;
  body: unknown;
  /** Retry-After in milliseconds when the server sent one. */
  retryAfterMs: number | null;
}

/** True for absolute http(s) URLs; "localhost:8080/x" parses as a URL with scheme "localhost:", so check. */
export function isHttpUrl(value: string): boolean {
  try {
    const protocol = new URL(value).protocol;
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

function retryAfterMs(header: string | null): number | null {
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

async function readCapped(response: Response, what: string): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (declared > HTTP_MAX_RESPONSE_BYTES) throw new ModelProviderError('provider_response_invalid', `${what}: response of ${declared} bytes exceeds ${HTTP_MAX_RESPONSE_BYTES}`);
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of response.body) {
    total += chunk.byteLength;
    if (total > HTTP_MAX_RESPONSE_BYTES) throw new ModelProviderError('provider_response_invalid', `${what}: response exceeds ${HTTP_MAX_RESPONSE_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Socket-level codes of a connection that dropped mid-request (not a refusal, not a timeout). */
const DROPPED_CONNECTION_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

function droppedConnection(error: unknown): boolean {
  const cause = (error as { cause?: { code?: unknown } })?.cause;
  return typeof cause?.code === 'string' && DROPPED_CONNECTION_CODES.has(cause.code);
}

function networkError(error: unknown, post: JsonPost): ModelProviderError {
  const name = (error as Error)?.name;
  if (droppedConnection(error)) {
    return new ModelProviderError('provider_connection_dropped', `${post.what}: the connection to ${new URL(post.url).origin} was dropped before an answer`, { retryable: true, cause: error });
  }
  const reason = name === 'TimeoutError' || name === 'AbortError' ? `no answer within ${post.timeoutMs} ms` : `${(error as Error)?.message ?? error}${(error as { cause?: Error })?.cause?.message ? ` (${(error as { cause: Error }).cause.message})` : ''}`;
  return new ModelProviderError('provider_unavailable', `${post.what}: request to ${new URL(post.url).origin} failed: ${reason}`, { retryable: true, cause: error });
}

/** Sends the request; any HTTP status comes back as an answer, network failures and timeouts throw. */
export async function postJson(post: JsonPost): Promise<JsonAnswer> {
  let text: string;
  let response: Response;
  try {
    response = await fetch(post.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...post.headers },
      body: JSON.stringify(post.body),
      signal: AbortSignal.timeout(post.timeoutMs),
    });
    text = await readCapped(response, post.what);
  } catch (error) {
    if (error instanceof ModelProviderError) throw error;
    throw networkError(error, post);
  }
  let body: unknown = text;
  try {
    body = text === '' ? null : JSON.parse(text);
  } catch {
    if (response.ok) throw new ModelProviderError('provider_response_invalid', `${post.what}: HTTP ${response.status} answer is not JSON`, { status: response.status });
  }
  return { status: response.status, body, retryAfterMs: retryAfterMs(response.headers.get('retry-after')) };
}

// OpenAI-style {error: {message}}, {error: "..."}, {message} or {detail} bodies, or plain text.
function detailOf(body: unknown): string {
  let candidate: unknown = body;
  if (body !== null && typeof body === 'object') {
    const fields = body as Record<string, unknown>;
    const error = fields.error;
    candidate = (error !== null && typeof error === 'object' ? (error as Record<string, unknown>).message : error) ?? fields.message ?? fields.detail;
  }
  const text = typeof candidate === 'string' ? candidate : candidate === undefined || candidate === null ? '' : JSON.stringify(candidate);
  return text.length > HTTP_ERROR_DETAIL_CHARS ? `${text.slice(0, HTTP_ERROR_DETAIL_CHARS)}...` : text;
}

/** 429 and 5xx are retryable; 401/403 mean a bad or missing API key; other 4xx mean a bad request. */
export function httpStatusError(answer: JsonAnswer, what: string): ModelProviderError {
  const detail = detailOf(answer.body);
  const suffix = detail ? `: ${detail}` : '';
  if (answer.status === 429 || answer.status >= 500) {
    return new ModelProviderError('provider_unavailable', `${what}: HTTP ${answer.status}${suffix}`, { retryable: true, status: answer.status, retryAfterMs: answer.retryAfterMs });
  }
  if (answer.status === 401 || answer.status === 403) {
    return new ModelProviderError('provider_rejected', `${what}: HTTP ${answer.status}, the API key is missing or not accepted${suffix}`, { status: answer.status });
  }
  return new ModelProviderError('provider_rejected', `${what}: HTTP ${answer.status}${suffix}`, { status: answer.status });
}
