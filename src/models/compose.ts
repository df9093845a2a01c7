// Builds the configured model providers (embedder, reranker, classifier) from the typed configuration.
// The only place that maps settings to provider options; providers themselves never read settings.

import type { Config } from '../config.ts';
import type { Embedder } from './embedder.ts';
import type { Reranker } from './reranker.ts';
import type { Classifier } from './classifier.ts';
import { createEmbedder, createReranker } from './factory.ts';
import { createClassifier } from './classifier-factory.ts';

export interface Models {
  embedder: Embedder;
  reranker: Reranker;
  classifier: Classifier;
}

export async function createModels(config: Config): Promise<Models> {
  const embedder = await createEmbedder({
    provider: config.embeddingProvider,
    model: config.embeddingModel ?? undefined,
    dimensions: config.embeddingDimensions ?? undefined,
    url: config.embeddingUrl ?? undefined,
    apiKey: config.embeddingApiKey ?? undefined,
    timeoutMs: config.embeddingTimeoutMs,
    maxRetries: config.embeddingMaxRetries,
    batchSize: config.embeddingBatchSize ?? undefined,
  });
  const reranker = await createReranker({
    provider: config.rerankerProvider,
    model: config.rerankerModel ?? undefined,
    url: config.rerankerUrl ?? undefined,
    apiKey: config.rerankerApiKey ?? undefined,
    timeoutMs: config.rerankerTimeoutMs,
  });
  const classifier = await createClassifier({ modelFile: config.classifierModelFile });
  return { embedder, reranker, classifier };
}
