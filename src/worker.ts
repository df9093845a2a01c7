// One worker process: claims durable jobs and runs them (parse, OCR, embed, stage, activate through the
// publisher, metadata updates, backfill). It serves no HTTP and holds no serving snapshot. Run alone with
// `npm run worker`; `npm start` runs WORKER_PROCESSES of them under the supervisor (src/main.ts).

import { loadConfigOrExit, runProcess, stopOnSignals } from './process-runner.ts';
import type { Config } from './config.ts';
import { openStorage } from './storage/open-storage.ts';
import { Publisher } from './publication/publisher.ts';
import { createMetadataUpdateHandler, METADATA_UPDATE_FAILED } from './jobs/metadata-update-job.ts';
import { createBackfillHandler } from './jobs/backfill-job.ts';
import { Worker } from './jobs/worker.ts';
import { DeliveryLoop } from './webhooks/delivery-loop.ts';
import { JobHandlerRegistry } from './jobs/handler-registry.ts';
import { createEmbedJobHandler } from './jobs/embed-job.ts';
import { LanesThread } from './jobs/threaded-lanes.ts';
import { createModels } from './models/compose.ts';
import { createIngestDependencies } from './ingest/compose.ts';
import { clientQuotasOf } from './domain/limits.ts';
import { ServiceMetrics } from './http/metrics.ts';
import { tellSupervisor, underSupervisor } from './supervisor-link.ts';
import { createLogLines } from './log-lines.ts';
import { runLogLine } from './jobs/run-log.ts';
import { processLabel } from './process-settings.ts';
import { PRODUCT_VERSION } from './version.ts';
import type { SupervisorMessage } from './supervisor-link.ts';

/** How long shutdown waits for running jobs before handing them back to the queue. */
export const SHUTDOWN_GRACE_MS = 10_000;
/** How often a job waiting for publication looks at the authority again. */
export const PUBLICATION_WAIT_POLL_MS = 500;

export interface RunningWorker {
  worker: Worker;
  close(): Promise<void>;
}

export async function startWorker(config: Config): Promise<RunningWorker> {
  const storage = await openStorage(config);
  const models = await createModels(config);
  const publisher = new Publisher(storage, { enabled: config.publicationEnabled });
  await storage.uploads.sweep(await storage.jobs.liveUploadNames());
  const label = processLabel('worker');
  const log = createLogLines(config.logLevel, label);
  // Job transitions are counted here, where jobs run; the supervisor adds them to every /metrics answer.
  const metrics = new ServiceMetrics(storage.jobs, { process: label, build: { version: PRODUCT_VERSION, store: config.store } });
  const lanesThread = new LanesThread();
  if (underSupervisor()) metrics.joinCluster();
  // One handler per operation, or the worker does not start (handler-registry.ts).
  const handlers = new JobHandlerRegistry()
    .register(
      'embed',
      createEmbedJobHandler({
        storage,
        publisher,
        ingest: { ...createIngestDependencies(config, models), extractEntities: lanesThread.extractEntities, detectLanguages: lanesThread.detectLanguages, onOcrPages: (pages) => metrics.ocrPages.inc(pages) },
        chunkerName: `paragraph-v1:${config.chunkTargetChars}/${config.chunkOverlapChars}`,
        quotas: clientQuotasOf(config),
        onIngest: (job) => log.write('info', 'ingest started', { event: 'ingest', job_id: job.jobId, attempt: job.attempts }),
        lanes: lanesThread.build,
      }),
    )
    .register('metadata_update', createMetadataUpdateHandler({ storage, publisher }))
    .register('metadata_backfill', createBackfillHandler({ storage, publisher, leaseMs: config.jobLeaseSeconds * 1000 }))
    .handlers();
  const worker = new Worker(
    storage.jobs,
    handlers,
    {
      concurrency: config.workerConcurrency,
      pollMs: config.workerPollMs,
      leaseMs: config.jobLeaseSeconds * 1000,
      retryBaseMs: config.jobRetryBaseSeconds * 1000,
      publicationWaitMs: config.publicationWaitSeconds * 1000,
      publicationPollMs: PUBLICATION_WAIT_POLL_MS,
      onTransition: (operation, state) => {
        metrics.jobTransitions.inc({ operation, state });
        log.write('debug', 'job transition', { event: 'job_transition', operation, state });
      },
      onRunEnded: (run) => {
        metrics.jobDurations.observe({ operation: run.job.operation, outcome: run.outcome }, run.seconds);
        const line = runLogLine(run);
        log.write(line.level, line.msg, line.fields);
      },
      storeFailure: (error) => storage.failureOf(error),
      // SPEC.md: a metadata update fails with "Metadata update failed" for every reason but a contract violation.
      failureMessage: (job, message) => (job.operation === 'metadata_update' ? METADATA_UPDATE_FAILED : message),
    },
  );
  worker.start();
  // Webhook deliveries of the outcomes jobs record (the outbox); any worker process sends any Client's.
  const deliveries = new DeliveryLoop(storage.webhooks, {
    pollMs: config.workerPollMs,
    retryBaseMs: config.webhookRetryBaseMs,
    timeoutMs: config.webhookTimeoutMs,
    allowPrivateNetworks: config.webhookAllowPrivateNetworks,
    userAgent: `hybrid-doc-search/${PRODUCT_VERSION}`,
    onAttempt: (delivery, attempt) =>
      log.write(attempt.delivered ? 'debug' : 'info', 'webhook delivery', { event: 'webhook_delivery', delivery_id: delivery.deliveryId, attempt: delivery.attempts, delivered: attempt.delivered, status_code: attempt.statusCode, error: attempt.error, given_up: !attempt.delivered && attempt.retryInMs === null }),
    onError: (error) => log.write('warn', 'webhook deliveries could not be leased', { event: 'webhook_delivery', error: error instanceof Error ? error.message : String(error) }),
  });
  deliveries.start();
  let closing: Promise<void> | null = null;
  return {
    worker,
    close() {
      closing ??= (async () => {
        await Promise.all([worker.stop(SHUTDOWN_GRACE_MS), deliveries.stop()]);
        await lanesThread.close();
        await storage.end();
      })();
      return closing;
    },
  };
}

async function runWorkerProcess(): Promise<void> {
  const running = await startWorker(loadConfigOrExit());
  if (underSupervisor()) tellSupervisor({ type: 'ready' });
  else process.stdout.write(`worker ${process.pid} started\n`);
  // The supervisor relays api processes' "a job is waiting" so work starts before the next poll.
  process.on('message', (message: SupervisorMessage) => {
    if (message?.type === 'wake') running.worker.wake();
  });
  stopOnSignals(() => running.close(), { whenSupervisorGone: true });
}

if (import.meta.main) runProcess('worker', runWorkerProcess);
