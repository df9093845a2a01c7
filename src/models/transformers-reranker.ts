// Optional cross-encoder reranking through transformers.js (a sequence-classification ONNX model scoring
// query-passage pairs). The package is imported only when this provider is chosen.

import { basename } from 'node:path';
import type { Reranker } from './reranker.ts';
import { configureModelLocation, loadTransformersModule, TRANSFORMERS_PROVIDER, type Tensor } from './transformers-runtime.ts';

/** Pairs per forward pass. */
export const TRANSFORMERS_RERANK_BATCH_SIZE = 16;

export interface TransformersRerankerOptions {
  /** A local model directory or a hub id such as Xenova/ms-marco-MiniLM-L-6-v2. */
  model: string;
  dtype?: string;
  batchSize?: number;
  moduleSpecifier?: string;
}

// One logit is the relevance itself; with two classes the margin of "relevant" over "not relevant" is.
function relevance(logits: Tensor, row: number): number {
  const classes = logits.dims[1] ?? 1;
  const base = row * classes;
  return classes === 1 ? logits.data[base] : logits.data[base + classes - 1] - logits.data[base];
}

export async function createTransformersReranker(options: TransformersRerankerOptions): Promise<Reranker> {
  const module = await loadTransformersModule(`RERANKER_PROVIDER=${TRANSFORMERS_PROVIDER}`, options.moduleSpecifier);
  const modelId = configureModelLocation(module.env, options.model);
  const tokenizer = await module.AutoTokenizer.from_pretrained(modelId);
  const model = await module.AutoModelForSequenceClassification.from_pretrained(modelId, options.dtype ? { dtype: options.dtype } : {});
  const batchSize = options.batchSize ?? TRANSFORMERS_RERANK_BATCH_SIZE;
  return {
    provider: TRANSFORMERS_PROVIDER,
    model: basename(options.model),
    async rerank(query, passages) {
      const scores: number[] = [];
      for (let start = 0; start < passages.length; start += batchSize) {
        const batch = passages.slice(start, start + batchSize);
        const inputs = tokenizer(batch.map(() => query), { text_pair: batch, padding: true, truncation: true });
        const { logits } = await model(inputs);
        batch.forEach((_, row) => scores.push(relevance(logits, row)));
      }
      return scores;
    },
  };
}
