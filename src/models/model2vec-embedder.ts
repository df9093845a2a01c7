// Static embedding models in the model2vec layout (model.safetensors + tokenizer.json [+ config.json]):
// mean of the token vectors, then L2 normalization, in plain TypeScript. It never downloads anything.

import { readFile, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type { Embedder } from './embedder.ts';
import { ModelProviderError } from './model-error.ts';
import { parseSafetensors, type SafetensorsFile } from './safetensors.ts';
import { embeddingMatrix, floatVector, integerVector, type EmbeddingMatrix } from './tensor-decode.ts';
import { loadTokenizerJson, type TextTokenizer } from './tokenizer/tokenizer-json.ts';
import { l2NormalizeInPlace } from './vector-math.ts';

export const MODEL2VEC_PROVIDER = 'model2vec';
export const MODEL2VEC_WEIGHTS_FILE = 'model.safetensors';
export const MODEL2VEC_TOKENIZER_FILE = 'tokenizer.json';
export const MODEL2VEC_CONFIG_FILE = 'config.json';
/** model2vec's own default: tokens past this many (after dropping unknowns) are ignored. */
export const MODEL2VEC_MAX_TOKENS = 512;
/** Larger files cannot be held in one Node buffer; a static model that big is not a static model. */
export const MODEL2VEC_MAX_FILE_BYTES = 2 ** 31 - 1;
/** Tensor names the reference writes: the matrix, optional per-token weights, optional token -> row map. */
export const MODEL2VEC_TENSORS = { embeddings: 'embeddings', weights: 'weights', mapping: 'mapping' } as const;

export interface Model2VecParts {
  /** Name recorded as dense_model. */
  model: string;
  weights: Uint8Array;
  tokenizerJson: unknown;
  config?: unknown;
  maxTokens?: number;
  /** Names the model directory in error messages. */
  source?: string;
}

export interface Model2VecEmbedder extends Embedder {
  readonly tokenizer: TextTokenizer;
  readonly vocabSize: number;
  /** Storage dtype of the embedding matrix (F32, F16, BF16 or I8). */
  readonly dtype: string;
  /** The config.json "normalize" flag; informational, since this provider always returns unit vectors. */
  readonly configNormalize: boolean | null;
  /** Token ids that would be pooled for `text` (unknown tokens removed, truncated). */
  poolingIds(text: string): number[];
}

export interface Model2VecOptions {
  /** Model directory. */
  path: string;
  /** Name recorded as dense_model; defaults to the directory name. */
  model?: string;
  maxTokens?: number;
}

interface Pooling { matrix: EmbeddingMatrix; weights: Float32Array | null; mapping: Int32Array | null }

function invalid(message: string): ModelProviderError {
  return new ModelProviderError('model_file_invalid', message);
}

function pooling(file: SafetensorsFile, vocabSize: number, source: string): Pooling {
  const tensor = file.tensors.get(MODEL2VEC_TENSORS.embeddings) ?? file.tensors.get('0');
  if (!tensor) throw invalid(`${source}: ${MODEL2VEC_WEIGHTS_FILE} has no "${MODEL2VEC_TENSORS.embeddings}" tensor (found: ${[...file.tensors.keys()].join(', ') || 'none'})`);
  const matrix = embeddingMatrix(tensor, source);
  const weightsTensor = file.tensors.get(MODEL2VEC_TENSORS.weights);
  const mappingTensor = file.tensors.get(MODEL2VEC_TENSORS.mapping);
  const weights = weightsTensor ? floatVector(weightsTensor, source) : null;
  const mapping = mappingTensor ? integerVector(mappingTensor, source) : null;
  if (weights && weights.length < vocabSize) throw invalid(`${source}: "weights" has ${weights.length} entries, the tokenizer has ${vocabSize} tokens`);
  if (mapping) {
    if (mapping.length < vocabSize) throw invalid(`${source}: "mapping" has ${mapping.length} entries, the tokenizer has ${vocabSize} tokens`);
    const outside = mapping.find((row) => row >= matrix.rows);
    if (outside !== undefined) throw invalid(`${source}: "mapping" points at row ${outside}, the matrix has ${matrix.rows} rows`);
  } else if (matrix.rows < vocabSize) {
    throw invalid(`${source}: the embedding matrix has ${matrix.rows} rows, the tokenizer has ${vocabSize} tokens`);
  }
  return { matrix, weights, mapping };
}

function meanVector(ids: number[], pool: Pooling): Float32Array {
  const out = new Float32Array(pool.matrix.cols);
  if (ids.length === 0) return out;
  for (const id of ids) pool.matrix.addRowTo(out, pool.mapping ? pool.mapping[id] : id, pool.weights ? pool.weights[id] : 1);
  const inverseCount = 1 / ids.length;
  for (let i = 0; i < out.length; i++) out[i] *= inverseCount;
  return out;
}

function configNormalizeFlag(config: unknown, source: string): boolean | null {
  if (config === undefined) return null;
  if (config === null || typeof config !== 'object' || Array.isArray(config)) throw invalid(`${source}: ${MODEL2VEC_CONFIG_FILE} is not a JSON object`);
  const flag = (config as { normalize?: unknown }).normalize;
  return typeof flag === 'boolean' ? flag : null;
}

/** Builds the embedder from file contents already in memory. */
export function buildModel2VecEmbedder(parts: Model2VecParts): Model2VecEmbedder {
  const source = parts.source ?? parts.model;
  const maxTokens = parts.maxTokens ?? MODEL2VEC_MAX_TOKENS;
  if (!Number.isInteger(maxTokens) || maxTokens < 1) throw new ModelProviderError('settings_invalid', `model2vec maxTokens must be a positive integer, got ${maxTokens}`);
  const tokenizer = loadTokenizerJson(parts.tokenizerJson, `${source}/${MODEL2VEC_TOKENIZER_FILE}`);
  const pool = pooling(parseSafetensors(parts.weights, `${source}/${MODEL2VEC_WEIGHTS_FILE}`), tokenizer.vocabSize, source);
  const configNormalize = configNormalizeFlag(parts.config, source);
  // Like the reference, cut very long texts before tokenizing: only the first maxTokens tokens count anyway.
  const maxChars = maxTokens * tokenizer.medianTokenChars;
  const poolingIds = (text: string): number[] => {
    const ids = tokenizer.encode(text.length > maxChars ? text.slice(0, maxChars) : text);
    return ids.filter((id) => id !== tokenizer.unkId).slice(0, maxTokens);
  };
  return {
    provider: MODEL2VEC_PROVIDER,
    model: parts.model,
    dimensions: pool.matrix.cols,
    tokenizer,
    vocabSize: tokenizer.vocabSize,
    dtype: pool.matrix.dtype,
    configNormalize,
    poolingIds,
    embed: async (texts) => texts.map((text) => l2NormalizeInPlace(meanVector(poolingIds(text), pool))),
  };
}

async function readModelFile(path: string, required: boolean): Promise<Buffer | undefined> {
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch (error) {
    if (!required && (error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ModelProviderError('model_file_invalid', `model2vec: cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
  if (size > MODEL2VEC_MAX_FILE_BYTES) throw invalid(`model2vec: ${path} is ${size} bytes, above the ${MODEL2VEC_MAX_FILE_BYTES}-byte limit`);
  return readFile(path);
}

function parseJsonFile(bytes: Buffer, path: string): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw invalid(`model2vec: ${path} is not valid JSON: ${(error as Error).message}`);
  }
}

/** Loads a model2vec directory (weights and tokenizer required, config optional). */
export async function loadModel2VecEmbedder(options: Model2VecOptions): Promise<Model2VecEmbedder> {
  const dir = resolve(options.path);
  const weights = (await readModelFile(join(dir, MODEL2VEC_WEIGHTS_FILE), true))!;
  const tokenizerPath = join(dir, MODEL2VEC_TOKENIZER_FILE);
  const tokenizerJson = parseJsonFile((await readModelFile(tokenizerPath, true))!, tokenizerPath);
  const configPath = join(dir, MODEL2VEC_CONFIG_FILE);
  const configBytes = await readModelFile(configPath, false);
  const config = configBytes === undefined ? undefined : parseJsonFile(configBytes, configPath);
  return buildModel2VecEmbedder({ model: options.model ?? basename(dir), weights, tokenizerJson, config, maxTokens: options.maxTokens, source: dir });
}
