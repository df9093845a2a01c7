// Embeddings from any OpenAI-compatible POST /v1/embeddings endpoint: batching, timeout, bounded retries,
// dimension check and L2 normalization. It never sends empty texts and never logs the API key.

import type { Embedder } from './embedder.ts';
import { httpStatusError, isHttpUrl, postJson } from './http-json.ts';
import { ModelProviderError } from './model-error.ts';
import { withRetries, type RetryPolicy } from './retry.ts';
import { l2NormalizeInPlace } from './vector-math.ts';

export const OPENAI_PROVIDER = 'openai';
export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com';
export const OPENAI_DEFAULT_MODEL = 'text-embedding-3-small';
/** Texts per request; small enough for self-hosted servers (TEI accepts 32 by default). */
export const OPENAI_BATCH_SIZE = 32;
export const OPENAI_MAX_BATCH_SIZE = 2048;
export const OPENAI_TIMEOUT_MS = 30_000;
export const OPENAI_MAX_RETRIES = 3;
export const OPENAI_RETRY_BASE_DELAY_MS = 500;
export const OPENAI_RETRY_MAX_DELAY_MS = 10_000;
/** The text embedded once to learn the dimension when none is configured. */
export const OPENAI_DIMENSION_PROBE_TEXT = 'dimension probe';

export interface OpenAIEmbedderOptions {
  /** Server root, with or without a trailing /v1 (https://api.openai.com, http://localhost:8080/v1). */
  baseUrl?: string;
  apiKey?: string;
  model?: string;
  /** Expected vector length; every answer is checked against it. */
  dimensions: number;
  /** Also send `dimensions` in the request (OpenAI text-embedding-3 models can shorten their vectors). */
  requestDimensions?: boolean;
  batchSize?: number;
  timeoutMs?: number;
  maxRetries?: number;
  retryBaseDelayMs?: number;
  retryMaxDelayMs?: number;
}

const WHAT = 'openai embeddings';

export function embeddingsUrl(baseUrl: string): string {
  const root = baseUrl.replace(/\/+$/, '');
  return root.endsWith('/v1') ? `${root}/embeddings` : `${root}/v1/embeddings`;
}

function positiveInteger(value: number, name: string, max = Number.MAX_SAFE_INTEGER): number {
  if (!Number.isInteger(value) || value < 1 || value > max) throw new ModelProviderError('settings_invalid', `${WHAT}: ${name} must be an integer in [1, ${max}], got ${value}`);
  return value;
}

function invalidAnswer(message: string): ModelProviderError {
  return new ModelProviderError('provider_response_invalid', `${WHAT}: ${message}`);
}

function vectorsFromBody(body: unknown, count: number, dimensions: number | null): number[][] {
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) throw invalidAnswer('answer has no "data" array');
  if (data.length !== count) throw invalidAnswer(`asked for ${count} embeddings, got ${data.length}`);
  const vectors: number[][] = new Array(count);
  data.forEach((item: unknown, position: number) => {
    const { embedding, index = position } = (item ?? {}) as { embedding?: unknown; index?: unknown };
    if (!Number.isInteger(index) || (index as number) < 0 || (index as number) >= count || vectors[index as number]) throw invalidAnswer(`item ${position} has a missing, duplicate or out-of-range index`);
    if (!Array.isArray(embedding) || !embedding.every((x) => typeof x === 'number' && Number.isFinite(x))) throw invalidAnswer(`item ${position} has no numeric "embedding" array`);
    if (dimensions !== null && embedding.length !== dimensions) throw invalidAnswer(`model returned ${embedding.length}-dimensional vectors, ${dimensions} are configured`);
    vectors[index as number] = embedding as number[];
  });
  return vectors;
}

interface Client { url: string; headers: Record<string, string>; model: string; timeoutMs: number; retry: RetryPolicy; requestDimensions: number | null }

async function requestBatch(client: Client, texts: string[], dimensions: number | null, singleAttempt = false): Promise<number[][]> {
  const body: Record<string, unknown> = { model: client.model, input: texts };
  if (client.requestDimensions !== null) body.dimensions = client.requestDimensions;
  return withRetries(singleAttempt ? { ...client.retry, maxRetries: 0 } : client.retry, async () => {
    const answer = await postJson({ url: client.url, body, headers: client.headers, timeoutMs: client.timeoutMs, what: WHAT });
    if (answer.status < 200 || answer.status >= 300) throw httpStatusError(answer, WHAT);
    return vectorsFromBody(answer.body, texts.length, dimensions);
  });
}

function clientFor(options: Omit<OpenAIEmbedderOptions, 'dimensions'>, requestDimensions: number | null): Client {
  const baseUrl = options.baseUrl ?? OPENAI_DEFAULT_BASE_URL;
  if (!isHttpUrl(baseUrl)) throw new ModelProviderError('settings_invalid', `${WHAT}: base URL ${JSON.stringify(baseUrl)} is not an absolute http(s) URL`);
  return {
    url: embeddingsUrl(baseUrl),
    headers: options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {},
    model: options.model ?? OPENAI_DEFAULT_MODEL,
    timeoutMs: positiveInteger(options.timeoutMs ?? OPENAI_TIMEOUT_MS, 'timeoutMs'),
    retry: {
      maxRetries: options.maxRetries ?? OPENAI_MAX_RETRIES,
      baseDelayMs: options.retryBaseDelayMs ?? OPENAI_RETRY_BASE_DELAY_MS,
      maxDelayMs: options.retryMaxDelayMs ?? OPENAI_RETRY_MAX_DELAY_MS,
    },
    requestDimensions,
  };
}

export function createOpenAIEmbedder(options: OpenAIEmbedderOptions): Embedder {
  const dimensions = positiveInteger(options.dimensions, 'dimensions');
  const batchSize = positiveInteger(options.batchSize ?? OPENAI_BATCH_SIZE, 'batchSize', OPENAI_MAX_BATCH_SIZE);
  const client = clientFor(options, options.requestDimensions ? dimensions : null);
  return {
    provider: OPENAI_PROVIDER,
    model: client.model,
    dimensions,
    async embed(texts, options) {
      const out = texts.map(() => new Float32Array(dimensions));
      // Empty texts embed to zeros locally: OpenAI rejects empty inputs and they carry no meaning anyway.
      const pending = texts.flatMap((text, index) => (text.trim() === '' ? [] : [index]));
      for (let start = 0; start < pending.length; start += batchSize) {
        const indexes = pending.slice(start, start + batchSize);
        const vectors = await requestBatch(client, indexes.map((i) => texts[i]), dimensions, options?.singleAttempt);
        indexes.forEach((textIndex, k) => (out[textIndex] = l2NormalizeInPlace(Float32Array.from(vectors[k]))));
      }
      return out;
    },
  };
}

/** Asks the endpoint for one embedding to learn the model's dimension (when none is configured). */
export async function probeOpenAIDimensions(options: Omit<OpenAIEmbedderOptions, 'dimensions'>): Promise<number> {
  const [vector] = await requestBatch(clientFor(options, null), [OPENAI_DIMENSION_PROBE_TEXT], null);
  if (vector.length === 0) throw invalidAnswer('the probe embedding is empty');
  return vector.length;
}
