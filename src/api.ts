// One api process: HTTP on PORT (shared with the other api processes under the supervisor), authentication,
// limits, reads from its own serving snapshots, and the accepting of writes. It listens at once and reports
// RECOVERING until its snapshots are built; heavy work (parsing, embedding, publishing jobs) is for workers.
// Run alone with `npm run api`; `npm start` runs several under the supervisor (src/main.ts).

import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { loadConfigOrExit, runProcess, stopOnSignals } from './process-runner.ts';
import type { Config } from './config.ts';
import { PRODUCT_VERSION } from './version.ts';
import { processLabel } from './process-settings.ts';
import type { StoragePort } from './storage/port.ts';
import { openStorage } from './storage/open-storage.ts';
import { discoveryReadiness } from './reads/discovery-readiness.ts';
import { ServingIndex } from './serving/serving-index.ts';
import { SERVED_CLIENTS_LOW_BYTES, snapshotBudgetBytes } from './serving/memory-estimate.ts';
import { MemoryPressure, exposedCollector } from './serving/memory-pressure.ts';
import { SegmentCache, SEGMENT_CACHE_DIR } from './serving/caches/segment-cache.ts';
import { CacheSweep } from './serving/caches/cache-sweep.ts';
import { HealthProbes } from './health/health-probes.ts';
import { HealthService } from './reads/health-service.ts';
import { JobStatusService } from './reads/job-status-service.ts';
import { ReadinessService } from './reads/readiness-service.ts';
import { AuthorityService } from './publication/authority-service.ts';
import { AuthorityViewService } from './reads/authority-view.ts';
import { ThreadedSegmentBuilder } from './serving/threaded-segment-builder.ts';
import { SpareCores } from './runtime/spare-cores.ts';
import { ThreadedGraphWalks } from './serving/graphs/threaded-graph-walks.ts';
import { GRAPH_CACHE_DIR } from './serving/graphs/graph-builder.ts';
import { ReadGuard } from './serving/read-guard.ts';
import { Follower } from './serving/follower.ts';
import { Publisher } from './publication/publisher.ts';
import { LifecycleService } from './publication/lifecycle-service.ts';
import { UpdateService } from './publication/update-service.ts';
import { enqueueBackfill } from './publication/backfill-service.ts';
import { DocumentService } from './reads/document-reads.ts';
import { SearchService } from './search/search-service.ts';
import type { SearchDependencies } from './search/search-service.ts';
import { SynonymSettings } from './search/synonym-settings.ts';
import { SimilarService } from './search/similar.ts';
import { UploadService } from './ingest/upload-service.ts';
import { ClientTransferService } from './ingest/client-transfer.ts';
import { clientQuotasOf } from './domain/limits.ts';
import { ServiceMetrics } from './http/metrics.ts';
import { RATE_LIMIT_WINDOW_MS, RateLimiter } from './http/rate-limit.ts';
import { StoreRefusals } from './http/store-refusals.ts';
import { buildApp } from './http/app.ts';
import type { Services } from './http/services.ts';
import { createModels } from './models/compose.ts';
import { loadClassifierModelFile } from './models/classifier-model-file.ts';
import { WebSearchService } from './websearch/web-search.ts';
import { WebhookService } from './webhooks/webhook-service.ts';
import { braveProvider, searxngProvider } from './websearch/providers.ts';
import type { WebProvider } from './websearch/providers.ts';
import { ClientRegistry } from './access/client-registry.ts';
import { ClientAdmin } from './access/client-admin.ts';
import { requestClusterMetrics, shareConnections, tellSupervisor, underSupervisor, wakeWorkers } from './supervisor-link.ts';
import { ConnectionBalance } from './http/connection-balance.ts';
import { CONNECTION_COUNT_INTERVAL_MS } from './runtime/connection-shares.ts';
import { faultPoint } from './fault-points.ts';

/** Name of the deployment secret that keys the audit event's query fingerprint. */
export const AUDIT_FINGERPRINT_SECRET_NAME = 'audit_query_fingerprint';

export interface RunningApi {
  app: FastifyInstance;
  services: Services;
  /** The process's store (benchmarks and tools that run an api in their own process read it directly). */
  storage: StoragePort;
  url: string;
  /** Settles when this process's snapshots are built (RECOVERING ends). */
  recovered: Promise<void>;
  close(): Promise<void>;
}

/** The configured public web search provider, or null when its settings are incomplete. */
function webProviderOf(config: Config): WebProvider | null {
  if (config.webSearchProvider === 'searxng' && config.webSearchUrl) return searxngProvider(config.webSearchUrl);
  if (config.webSearchProvider === 'brave' && config.webSearchApiKey) return braveProvider(config.webSearchApiKey, config.webSearchUrl ?? undefined);
  return null;
}


export async function startApi(config: Config): Promise<RunningApi> {
  const storage = await openStorage(config);
  const models = await createModels(config);
  // Segments are built and merged on a thread of this process: publishing never stalls reads or /health.
  const segmentBuilder = new ThreadedSegmentBuilder({ graphCache: { dir: join(config.dataDir, GRAPH_CACHE_DIR), budgetBytes: config.graphCacheMb * 1024 * 1024 } });
  const processBudgetBytes = config.servingMemoryBudgetMb * 1024 * 1024;
  const servedBytes = snapshotBudgetBytes(processBudgetBytes, process.memoryUsage.rss(), config.v8MaxSemiSpaceMb * 1024 * 1024);
  const segmentCache = config.segmentCacheMb > 0 ? new SegmentCache(join(config.dataDir, SEGMENT_CACHE_DIR), config.segmentCacheMb * 1024 * 1024) : undefined;
  // Copies of purged versions in this host's caches go after each purge, on announcements and at start-up.
  const cacheSweep = new CacheSweep({ storage, segmentCache: segmentCache ?? null, graphs: segmentBuilder });
  const memoryPressure = new MemoryPressure({ budgetBytes: processBudgetBytes, servedBytes, collect: exposedCollector() });
  const serving = new ServingIndex(storage, models.embedder.dimensions, segmentBuilder, {
    memoryBudgetBytes: () => memoryPressure.servedBytes(),
    evicted: () => memoryPressure.relieve(),
    changed: () => memoryPressure.settleLater(),
    segmentCache,
  });
  const healthProbes = new HealthProbes(config);
  // A lone search walks its dense lane's graphs on a thread while its sparse lane runs on the event loop,
  // when the machine has a core to spare.
  const graphThread = new ThreadedGraphWalks();
  const spareCores = new SpareCores();
  const startedAt = new Date().toISOString();
  const readGuard = new ReadGuard(storage, serving, { enabled: config.publicationEnabled, catchUpDeadlineMs: config.readCatchUpTimeoutMs });
  const publisher = new Publisher(storage, { enabled: config.publicationEnabled });
  const metrics = new ServiceMetrics(storage.jobs, { process: processLabel('api'), build: { version: PRODUCT_VERSION, store: config.store }, ...(underSupervisor() ? { clusterExposition: requestClusterMetrics } : {}) });
  metrics.addServingGauges({
    stats: () => serving.stats(),
    followerLag: async () => {
      let lag = 0;
      for (const clientId of serving.loadedClientIds()) lag += Math.max(0, (await storage.client(clientId).publicationLog.head()) - serving.appliedSeq(clientId));
      return lag;
    },
  });
  // Keep-alive connections stay spread over the api processes: the supervisor asks one over its share to shed some.
  const connections = new ConnectionBalance();
  metrics.addConnectionGauges(connections);
  shareConnections(() => connections.active(), (count) => connections.shed(count), CONNECTION_COUNT_INTERVAL_MS);
  if (underSupervisor()) metrics.joinCluster();
  const storeRefusals = new StoreRefusals();
  const uploads = new UploadService(storage, wakeWorkers, config.jobMaxAttempts, clientQuotasOf(config));
  // Clients and keys made at runtime, read again every ACCESS_REFRESH_MS (and before any decision on older rows).
  const clientRegistry = new ClientRegistry(storage.access, config.apiKeyClients);
  clientRegistry.start();
  const envClients = new Set(config.apiKeyClients.values());
  const synonyms = new SynonymSettings(storage.settings);
  const searchDependencies: SearchDependencies = { readGuard, synonyms: (clientId) => synonyms.expanderFor(clientId), readiness: (clientId) => discoveryReadiness(storage, clientId), embedder: models.embedder, reranker: models.reranker, defaultAlpha: config.hybridAlpha, candidateCap: config.searchCandidateCap, readTexts: (clientId, keys) => storage.client(clientId).generations.chunkTexts(keys), readVectors: (clientId, keys) => storage.client(clientId).generations.chunkVectors(keys), graphThread, spareCore: () => spareCores.available(), onMeasured: (scope, lane, seconds) => metrics.searchLatency.observe({ scope, lane }, seconds) };
  const services: Services = {
    version: PRODUCT_VERSION,
    config,
    connections,
    readGuard,
    serving,
    memoryPressure,
    health: new HealthService({
      version: PRODUCT_VERSION,
      config,
      readGuard,
      probes: healthProbes,
      probeClassifier: async () => {
        if (config.classifierModelFile) await loadClassifierModelFile(config.classifierModelFile);
      },
      // Read at each call: the rate limiter's budget writes and the requests' own writes both count.
      storeRefusingWrites: () => services.rateLimiter.storeRefusingWrites || storeRefusals.refusingWrites,
      serving,
      dimensions: models.embedder.dimensions,
    }),
    jobStatus: new JobStatusService(storage, readGuard, { publicationEnabled: config.publicationEnabled }),
    readiness: new ReadinessService(storage, readGuard, startedAt),
    authorityView: new AuthorityViewService({ storage, readGuard, serving, memoryPressure }),
    authority: new AuthorityService(storage, { enabled: readGuard.enabled }),
    metrics,
    rateLimiter: new RateLimiter(storage.rateLimits, { all: config.rateLimitPerMinute, search: config.searchRateLimitPerMinute }, RATE_LIMIT_WINDOW_MS, undefined, {
      isFull: (error) => storage.failureOf(error)?.kind === 'full',
      processes: config.apiProcesses,
    }, (clientId) => clientRegistry.limitsOf(clientId)),
    clientRegistry,
    clientAdmin: new ClientAdmin(storage, clientRegistry, envClients),
    embedder: models.embedder,
    reranker: models.reranker,
    startedAt,
    // One secret for every process of the deployment: set, or created once in the store.
    auditSecret: config.auditFingerprintSecret ?? (await storage.secrets.deploymentSecret(AUDIT_FINGERPRINT_SECRET_NAME)),
    storeRefusals,
    storeFailure: (error) => storeRefusals.seen(storage.failureOf(error)),
    startBackfill: async (clientId: string) => enqueueBackfill(storage, clientId, wakeWorkers, new Set([...envClients, ...(await clientRegistry.recordedClientIds())])),
    webhooks: new WebhookService(storage.webhooks, { allowPrivateNetworks: config.webhookAllowPrivateNetworks }),
    webSearch: new WebSearchService({ enabled: config.webSearchEnabled, provider: webProviderOf(config), timeoutMs: config.webSearchTimeoutMs }),
    uploads,
    transfer: new ClientTransferService(storage, uploads, async () => new Set([...envClients, ...(await clientRegistry.recordedClientIds())])),
    updates: new UpdateService(storage, { enabled: config.publicationEnabled, mode: () => readGuard.mode(), wake: wakeWorkers }),
    lifecycle: new LifecycleService(storage, publisher, {
      enabled: config.publicationEnabled,
      fenceWaitMs: config.publicationLifecycleFenceWaitSeconds * 1000,
      purgeDeadlineMs: config.purgeDeadlineMs,
      // The purge has taken effect: a sweep that fails is logged, and the next start sweeps again.
      purged: (clientId) => cacheSweep.sweep(clientId).then(
        () => undefined,
        (error) => app.log.warn({ err: error }, 'cache sweep after a purge failed'),
      ),
    }),
    synonyms,
    search: new SearchService(searchDependencies),
    similar: new SimilarService(searchDependencies),
    documents: new DocumentService(readGuard, () => ({
      denseModel: models.embedder.model,
      denseDimensions: models.embedder.dimensions,
      denseRuntime: models.embedder.provider,
      sparseModel: 'bm25',
      rerankerModel: models.reranker.model,
      classifierModel: models.classifier.model,
      classifierModelFile: models.classifier.modelFile,
      classificationEnabled: config.classificationEnabled,
    }), { maxChunks: config.textReadMaxChunks, maxChars: config.textReadMaxChars }, (clientId, generation, offset, limit) =>
      storage.client(clientId).generations.chunkRange(generation, offset, limit), (clientId, generation) => storage.client(clientId).generations.chunkEntities(generation)),
  };
  const app = await buildApp(services);
  if (config.apiKeyClientsProblem) app.log.warn(`${config.apiKeyClientsProblem}: every protected route answers 401 but to keys issued at runtime (POST /admin/clients/{client_id}/keys)`);
  if (servedBytes < SERVED_CLIENTS_LOW_BYTES) {
    app.log.warn(`SERVING_MEMORY_BUDGET_MB=${config.servingMemoryBudgetMb} leaves ${Math.round(servedBytes / 1048576)} MiB for served Clients once this process's own needs are met: Clients will be loaded and evicted almost at every read`);
  }
  // Listen first: RECOVERING is observable (health 503, reads 503 with Retry-After) until the process is ready to serve.
  await app.listen({ host: config.host, port: config.port });
  serving.onCompactionError = (error) => app.log.warn({ err: error }, 'segment merge failed');
  const follower = new Follower({ storage, index: serving, guard: readGuard, pollMs: config.followerPollMs, sweep: (clientId) => cacheSweep.sweepIfHeld(clientId), sweepHeld: () => cacheSweep.sweepHeld(), onError: (error) => app.log.warn({ err: error }, 'follower pass failed') });
  const recovered = (async () => {
    await faultPoint('recovery');
    // Before serving: files of versions purged while no process here served their Client (or before a crash) go.
    await cacheSweep.sweepAll().catch((error) => app.log.warn({ err: error }, 'cache sweep at start-up failed'));
    // Nothing is rebuilt up front: each Client's snapshot loads on its first read (ServingIndex).
    readGuard.recovered();
    follower.start();
  })();
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;

  let closing: Promise<void> | null = null;
  return {
    app,
    services,
    storage,
    url,
    recovered,
    close() {
      closing ??= (async () => {
        // The listener closes first, so that new connections are refused from the start of the stop, and
        // every request already received is answered in full (app.close waits for them) while the snapshots,
        // the threads and the store they read are all still open.
        await app.close();
        await follower.stop();
        clientRegistry.stop();
        // Segments still waiting to settle are written now: the next start reads them back.
        serving.flushCacheWrites();
        serving.close();
        // Rate-limit slots this process holds but did not hand out go back to the Clients' windows.
        await services.rateLimiter.returnHeld();
        await recovered.catch(() => {});
        await segmentCache?.settled();
        await segmentBuilder.close();
        await graphThread.close();
        await healthProbes.close();
        await storage.end();
      })();
      return closing;
    },
  };
}

/** Runs one api process until SIGTERM/SIGINT; reports listening and recovered to a supervisor when there is one. */
async function runApiProcess(): Promise<void> {
  const api = await startApi(loadConfigOrExit());
  // Under the supervisor the process reports to it (it announces once for all); alone, it says so itself.
  const report = (type: 'listening' | 'ready') => (underSupervisor() ? tellSupervisor({ type, url: api.url }) : process.stdout.write(`${type} on ${api.url}\n`));
  report('listening');
  api.recovered.then(
    () => report('ready'),
    (error) => {
      process.stderr.write(`recovery failed: ${error instanceof Error ? error.stack : error}\n`);
      process.exit(1);
    },
  );
  stopOnSignals(() => api.close(), { whenSupervisorGone: true });
}

if (import.meta.main) runProcess('api', runApiProcess);
