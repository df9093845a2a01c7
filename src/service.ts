// Composition root of one service instance: storage, publication recovery, models, workers and HTTP.
// main.ts starts it from the environment; end-to-end tests start it on a random port with a temp DATA_DIR.

import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Config } from './config.ts';
import { Storage } from './storage/storage.ts';
import { PublicationAuthority } from './publication/authority.ts';
import { DocumentService } from './publication/document-service.ts';
import { SearchService } from './search/search-service.ts';
import { UploadService } from './ingest/upload-service.ts';
import { Worker } from './jobs/worker.ts';
import { createEmbedJobHandler } from './jobs/embed-job.ts';
import { LifecycleService } from './publication/lifecycle-service.ts';
import { UpdateService, createMetadataUpdateHandler, METADATA_UPDATE_FAILED } from './publication/update-service.ts';
import { ServiceMetrics } from './http/metrics.ts';
import { buildApp } from './http/app.ts';
import type { Services } from './http/services.ts';
import { createModels } from './models/compose.ts';
import { createIngestDependencies } from './ingest/compose.ts';
import { WebSearchService } from './websearch/web-search.ts';
import { createBackfillHandler, enqueueBackfill } from './publication/backfill.ts';
import { braveProvider, searxngProvider } from './websearch/providers.ts';
import type { WebProvider } from './websearch/providers.ts';

export const PRODUCT_VERSION: string = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version;
/** How long shutdown waits for running jobs before handing them back to the queue. */
export const SHUTDOWN_GRACE_MS = 10_000;

export interface RunningService {
  app: FastifyInstance;
  services: Services;
  worker: Worker;
  url: string;
  close(): Promise<void>;
}

/** The configured public web search provider, or null when its settings are incomplete. */
function webProviderOf(config: Config): WebProvider | null {
  if (config.webSearchProvider === 'searxng' && config.webSearchUrl) return searxngProvider(config.webSearchUrl);
  if (config.webSearchProvider === 'brave' && config.webSearchApiKey) return braveProvider(config.webSearchApiKey, config.webSearchUrl ?? undefined);
  return null;
}

export async function startService(config: Config): Promise<RunningService> {
  const storage = new Storage(config.dataDir);
  const models = await createModels(config);
  const authority = new PublicationAuthority({ enabled: config.publicationEnabled, dimensions: models.embedder.dimensions, authorityId: randomUUID() });
  const metrics = new ServiceMetrics(storage.jobs);

  const recovered = authority.recover(storage);
  storage.sweepUploads(storage.jobs.liveUploadNames());

  const embedHandler = createEmbedJobHandler({
    storage,
    authority,
    ingest: createIngestDependencies(config, models),
    chunkerName: `paragraph-v1:${config.chunkTargetChars}/${config.chunkOverlapChars}`,
    stageDelayMs: config.jobStageDelayMs,
  });
  const updateHandler = createMetadataUpdateHandler({ storage, authority });
  const backfillHandler = createBackfillHandler({ storage, authority, leaseMs: config.jobLeaseSeconds * 1000 });
  const worker = new Worker(storage.jobs, { embed: embedHandler, metadata_update: updateHandler, metadata_backfill: backfillHandler }, {
    concurrency: config.workerConcurrency,
    pollMs: config.workerPollMs,
    leaseMs: config.jobLeaseSeconds * 1000,
    retryBaseMs: config.jobRetryBaseSeconds * 1000,
    onTransition: (operation, state) => metrics.jobTransitions.inc({ operation, state }),
    // SPEC.md: a metadata update fails with "Metadata update failed" for every reason but a contract violation.
    failureMessage: (job, message) => (job.operation === 'metadata_update' ? METADATA_UPDATE_FAILED : message),
  });

  const services: Services = {
    version: PRODUCT_VERSION,
    config,
    storage,
    authority,
    metrics,
    embedder: models.embedder,
    reranker: models.reranker,
    startedAt: new Date().toISOString(),
    startBackfill: (clientId: string) => enqueueBackfill(storage, clientId, () => worker.wake()),
    webSearch: new WebSearchService({ enabled: config.webSearchEnabled, provider: webProviderOf(config), timeoutMs: config.webSearchTimeoutMs }),
    uploads: new UploadService(storage, () => worker.wake(), config.jobMaxAttempts),
    updates: new UpdateService(storage, authority, () => worker.wake()),
    lifecycle: new LifecycleService(storage, authority, {
      fenceWaitMs: config.publicationLifecycleFenceWaitSeconds * 1000,
      stepDelayMs: config.lifecycleStepDelayMs,
    }),
    search: new SearchService({ authority, jobs: storage.jobs, embedder: models.embedder, reranker: models.reranker, defaultAlpha: config.hybridAlpha, candidateCap: config.searchCandidateCap }),
    documents: new DocumentService(authority, () => ({
      denseModel: models.embedder.model,
      denseDimensions: models.embedder.dimensions,
      denseRuntime: models.embedder.provider,
      sparseModel: 'bm25',
      rerankerModel: models.reranker.model,
      classifierModel: models.classifier.model,
      classifierModelFile: models.classifier.modelFile,
      classificationEnabled: config.classificationEnabled,
    })),
  };
  const app = await buildApp(services);
  if (config.apiKeyClientsProblem) app.log.warn(`${config.apiKeyClientsProblem}: every protected route answers 401`);
  app.log.info({ recovered }, 'serving snapshots rebuilt');
  await app.listen({ host: config.host, port: config.port });
  worker.start();
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;

  let closing: Promise<void> | null = null;
  return {
    app,
    services,
    worker,
    url,
    close() {
      closing ??= (async () => {
        await app.close();
        await worker.stop(SHUTDOWN_GRACE_MS);
        storage.close();
      })();
      return closing;
    },
  };
}
