// Optional dense embeddings through transformers.js (ONNX models from a local directory, or the model hub
// when the deployment has network). The package is imported only when this provider is chosen.

import { basename } from 'node:path';
import type { Embedder } from './embedder.ts';
import { ModelProviderError } from './model-error.ts';
import { configureModelLocation, loadTransformersModule, TRANSFORMERS_PROVIDER, type Tensor } from './transformers-runtime.ts';
import { l2NormalizeInPlace } from './vector-math.ts';

/** Texts per forward pass: bounds the padded batch tensor's memory. */
export const TRANSFORMERS_BATCH_SIZE = 16;
/** Embedded once at start-up to learn (and check) the model's dimension. */
export const TRANSFORMERS_DIMENSION_PROBE_TEXT = 'dimension probe';
export type TransformersPooling = 'mean' | 'cls';

export interface TransformersEmbedderOptions {
  /** A local model directory (config.json, tokenizer.json, onnx/model*.onnx) or a hub id such as Xenova/bge-small-en-v1.5. */
  model: string;
  /** Expected dimension; checked against the model's output. */
  dimensions?: number;
  pooling?: TransformersPooling;
  /** transformers.js dtype, e.g. fp32, fp16, q8. */
  dtype?: string;
  batchSize?: number;
  /** The module to import; tests point it at a missing name. */
  moduleSpecifier?: string;
}

function rowsOf(tensor: Tensor, count: number): Float32Array<ArrayBuffer>[] {
  const [rows, cols] = tensor.dims;
  if (tensor.dims.length !== 2 || rows !== count) throw new ModelProviderError('provider_response_invalid', `transformers embeddings: expected [${count}, dim] output, got [${tensor.dims.join(', ')}]`);
  return Array.from({ length: rows }, (_, r) => Float32Array.from({ length: cols }, (_, c) => tensor.data[r * cols + c]));
}

export async function createTransformersEmbedder(options: TransformersEmbedderOptions): Promise<Embedder> {
  const module = await loadTransformersModule(`EMBEDDING_PROVIDER=${TRANSFORMERS_PROVIDER}`, options.moduleSpecifier);
  const modelId = configureModelLocation(module.env, options.model);
  const extractor = await module.pipeline('feature-extraction', modelId, options.dtype ? { dtype: options.dtype } : {});
  const pooling = options.pooling ?? 'mean';
  const batchSize = options.batchSize ?? TRANSFORMERS_BATCH_SIZE;
  const run = async (texts: string[]): Promise<Float32Array<ArrayBuffer>[]> => rowsOf(await extractor(texts, { pooling, normalize: true }), texts.length);
  const [probe] = await run([TRANSFORMERS_DIMENSION_PROBE_TEXT]);
  if (options.dimensions !== undefined && probe.length !== options.dimensions) {
    throw new ModelProviderError('settings_invalid', `transformers model ${options.model} produces ${probe.length}-dimensional vectors, ${options.dimensions} are configured`);
  }
  return {
    provider: TRANSFORMERS_PROVIDER,
    model: basename(options.model),
    dimensions: probe.length,
    async embed(texts) {
      const out = texts.map(() => new Float32Array(probe.length));
      const pending = texts.flatMap((text, index) => (text.trim() === '' ? [] : [index]));
      for (let start = 0; start < pending.length; start += batchSize) {
        const indexes = pending.slice(start, start + batchSize);
        const vectors = await run(indexes.map((i) => texts[i]));
        indexes.forEach((textIndex, k) => (out[textIndex] = l2NormalizeInPlace(vectors[k])));
      }
      return out;
    },
  };
}
