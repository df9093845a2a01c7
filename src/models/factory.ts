// Chooses and builds the embedding and reranking providers from plain settings objects.
// Settings arrive already parsed (src/config.ts reads the environment); this module never reads process.env.

import type { Embedder } from './embedder.ts';
import { createHashingEmbedder, HASHING_PROVIDER } from './hashing-embedder.ts';
import { createHttpReranker, HTTP_RERANKER_PROVIDER, type HttpRerankRequestFormat } from './http-reranker.ts';
import { createLexicalReranker, LEXICAL_PROVIDER } from './lexical-reranker.ts';
import { ModelProviderError } from './model-error.ts';
import { loadModel2VecEmbedder, MODEL2VEC_PROVIDER } from './model2vec-embedder.ts';
import { createOpenAIEmbedder, OPENAI_PROVIDER, probeOpenAIDimensions } from './openai-embedder.ts';
import type { Reranker } from './reranker.ts';
import { createTransformersEmbedder, type TransformersPooling } from './transformers-embedder.ts';
import { createTransformersReranker } from './transformers-reranker.ts';
import { TRANSFORMERS_PROVIDER } from './transformers-runtime.ts';

export const EMBEDDING_PROVIDERS = [HASHING_PROVIDER, MODEL2VEC_PROVIDER, TRANSFORMERS_PROVIDER, OPENAI_PROVIDER] as const;
export const RERANKER_PROVIDERS = [LEXICAL_PROVIDER, TRANSFORMERS_PROVIDER, HTTP_RERANKER_PROVIDER] as const;
export const DEFAULT_EMBEDDING_PROVIDER = HASHING_PROVIDER;
export const DEFAULT_RERANKER_PROVIDER = LEXICAL_PROVIDER;

export interface EmbedderSettings {
  /** hashing (default) | model2vec | transformers | openai */
  provider?: string;
  /** model2vec: model directory; transformers: model directory or hub id; openai: model name; hashing: unused. */
  model?: string;
  /** hashing: vector size (default 384); others: the expected size, checked against the model (openai: probed when absent). */
  dimensions?: number;
  /** openai: server base URL (with or without /v1). */
  url?: string;
  /** openai: sent as a Bearer token. */
  apiKey?: string;
  /** openai: per-request timeout. */
  timeoutMs?: number;
  /** openai / transformers: texts per request or forward pass. */
  batchSize?: number;
  /** openai: retries after a 429, 5xx, timeout or network failure. */
  maxRetries?: number;
  /** openai: also send `dimensions` in the request (text-embedding-3 models shorten their vectors). */
  requestDimensions?: boolean;
  /** transformers: mean (default) or cls pooling. */
  pooling?: TransformersPooling;
  /** transformers: ONNX weight variant (fp32, fp16, q8...). */
  dtype?: string;
}

export interface RerankerSettings {
  /** lexical (default) | transformers | http */
  provider?: string;
  /** transformers: model directory or hub id; http: model name sent to the endpoint and reported. */
  model?: string;
  /** http: full /rerank endpoint URL. */
  url?: string;
  apiKey?: string;
  timeoutMs?: number;
  /** http: "documents" (Cohere, Jina, vLLM, Infinity; default) or "texts" (Hugging Face TEI). */
  requestFormat?: HttpRerankRequestFormat;
  /** transformers: ONNX weight variant. */
  dtype?: string;
}

function settingsError(message: string): ModelProviderError {
  return new ModelProviderError('settings_invalid', message);
}

function required(value: string | undefined, what: string, provider: string): string {
  if (!value) throw settingsError(`${what} is required when the provider is ${provider}`);
  return value;
}

function checkDimensions(embedder: Embedder, expected: number | undefined): Embedder {
  if (expected !== undefined && embedder.dimensions !== expected) {
    throw settingsError(`${embedder.provider} model ${embedder.model} produces ${embedder.dimensions}-dimensional vectors but ${expected} are configured; set the dimensions setting (EMBEDDING_DIMENSIONS) to ${embedder.dimensions}`);
  }
  return embedder;
}

async function openAIEmbedder(settings: EmbedderSettings): Promise<Embedder> {
  const options = {
    baseUrl: settings.url, apiKey: settings.apiKey, model: settings.model, timeoutMs: settings.timeoutMs,
    batchSize: settings.batchSize, maxRetries: settings.maxRetries, requestDimensions: settings.requestDimensions,
  };
  const dimensions = settings.dimensions ?? (await probeOpenAIDimensions(options));
  return createOpenAIEmbedder({ ...options, dimensions });
}

/** Builds the configured embedder; model files are read and optional packages imported here, at start-up. */
export async function createEmbedder(settings: EmbedderSettings): Promise<Embedder> {
  const provider = settings.provider ?? DEFAULT_EMBEDDING_PROVIDER;
  switch (provider) {
    case HASHING_PROVIDER:
      return createHashingEmbedder({ dimensions: settings.dimensions });
    case MODEL2VEC_PROVIDER:
      return checkDimensions(await loadModel2VecEmbedder({ path: required(settings.model, 'a model directory (EMBEDDING_MODEL)', provider) }), settings.dimensions);
    case TRANSFORMERS_PROVIDER:
      return createTransformersEmbedder({
        model: required(settings.model, 'a model directory or hub id (EMBEDDING_MODEL)', provider),
        dimensions: settings.dimensions, pooling: settings.pooling, dtype: settings.dtype, batchSize: settings.batchSize,
      });
    case OPENAI_PROVIDER:
      return openAIEmbedder(settings);
    default:
      throw settingsError(`unknown embedding provider ${JSON.stringify(provider)} (known: ${EMBEDDING_PROVIDERS.join(', ')})`);
  }
}

/** Builds the configured reranker. */
export async function createReranker(settings: RerankerSettings): Promise<Reranker> {
  const provider = settings.provider ?? DEFAULT_RERANKER_PROVIDER;
  switch (provider) {
    case LEXICAL_PROVIDER:
      return createLexicalReranker();
    case HTTP_RERANKER_PROVIDER:
      return createHttpReranker({
        url: required(settings.url, 'an endpoint URL (RERANKER_URL)', provider),
        model: settings.model, apiKey: settings.apiKey, timeoutMs: settings.timeoutMs, requestFormat: settings.requestFormat,
      });
    case TRANSFORMERS_PROVIDER:
      return createTransformersReranker({ model: required(settings.model, 'a model directory or hub id (RERANKER_MODEL)', provider), dtype: settings.dtype });
    default:
      throw settingsError(`unknown reranker provider ${JSON.stringify(provider)} (known: ${RERANKER_PROVIDERS.join(', ')})`);
  }
}
