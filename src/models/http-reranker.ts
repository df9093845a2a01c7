// Reranking through a /rerank endpoint of the common shape (Cohere, Jina, vLLM, Infinity, TEI):
// POST {model, query, documents} -> {results: [{index, relevance_score}]} or a bare [{index, score}].

import { httpStatusError, isHttpUrl, postJson } from './http-json.ts';
import { ModelProviderError } from './model-error.ts';
import type { Reranker } from './reranker.ts';

export const HTTP_RERANKER_PROVIDER = 'http';
export const HTTP_RERANKER_TIMEOUT_MS = 10_000;
/** Reported as reranker_model when no model name is configured. */
export const HTTP_RERANKER_DEFAULT_MODEL = 'http-rerank';
/**
 * "documents": Cohere/Jina/vLLM/Infinity field names; "texts": Hugging Face TEI, whose /rerank takes
 * {query, texts} and answers with a bare [{index, score}] array.
 */
export type HttpRerankRequestFormat = 'documents' | 'texts';

export interface HttpRerankerOptions {
  /** Full endpoint URL, e.g. http://localhost:8080/rerank or https://api.cohere.com/v2/rerank. */
  url: string;
  model?: string;
  apiKey?: string;
  timeoutMs?: number;
  requestFormat?: HttpRerankRequestFormat;
}

const WHAT = 'http reranker';

function invalidAnswer(message: string): ModelProviderError {
  return new ModelProviderError('provider_response_invalid', `${WHAT}: ${message}`);
}

function resultList(body: unknown): unknown[] {
  if (Array.isArray(body)) return body;
  const results = (body as { results?: unknown; data?: unknown } | null)?.results ?? (body as { data?: unknown } | null)?.data;
  if (Array.isArray(results)) return results;
  throw invalidAnswer('answer is neither {results: [...]} nor an array');
}

/** Scores in input order; passages the server left out (a top_n it applied anyway) score -Infinity. */
export function scoresFromAnswer(body: unknown, count: number): number[] {
  const scores = new Array<number>(count).fill(-Infinity);
  const seen = new Set<number>();
  for (const item of resultList(body)) {
    const { index, relevance_score: relevance, score } = (item ?? {}) as { index?: unknown; relevance_score?: unknown; score?: unknown };
    const value = relevance ?? score;
    if (!Number.isInteger(index) || (index as number) < 0 || (index as number) >= count || seen.has(index as number)) throw invalidAnswer(`result index ${JSON.stringify(index)} is missing, duplicated or outside 0..${count - 1}`);
    if (typeof value !== 'number' || Number.isNaN(value)) throw invalidAnswer(`result ${index} has no numeric relevance_score or score`);
    seen.add(index as number);
    scores[index as number] = value;
  }
  return scores;
}

function requestBody(format: HttpRerankRequestFormat, model: string | undefined, query: string, passages: string[]): Record<string, unknown> {
  if (format === 'texts') return { query, texts: passages, raw_scores: false };
  const body: Record<string, unknown> = { query, documents: passages, top_n: passages.length, return_documents: false };
  if (model) body.model = model;
  return body;
}

export function createHttpReranker(options: HttpRerankerOptions): Reranker {
  if (!isHttpUrl(options.url)) throw new ModelProviderError('settings_invalid', `${WHAT}: url ${JSON.stringify(options.url)} is not an absolute http(s) URL`);
  const timeoutMs = options.timeoutMs ?? HTTP_RERANKER_TIMEOUT_MS;
  const format = options.requestFormat ?? 'documents';
  const headers: Record<string, string> = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {};
  return {
    provider: HTTP_RERANKER_PROVIDER,
    model: options.model ?? HTTP_RERANKER_DEFAULT_MODEL,
    // No retries: reranking runs inside a search request, where a late answer is as bad as none.
    async rerank(query, passages) {
      if (passages.length === 0) return [];
      const answer = await postJson({ url: options.url, body: requestBody(format, options.model, query, passages), headers, timeoutMs, what: WHAT });
      if (answer.status < 200 || answer.status >= 300) throw httpStatusError(answer, WHAT);
      return scoresFromAnswer(answer.body, passages.length);
    },
  };
}
