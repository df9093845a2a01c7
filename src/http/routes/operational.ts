// Operational routes: /openapi.json, /metrics, /discovery/readiness and the
// operator-only /admin routes (OPERATOR_API_KEYS; Client keys never reach them).

import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.ts';
import { ServiceError } from '../../domain/service-error.ts';
import { discoveryReadiness } from '../../storage/discovery-readiness.ts';

export function registerOperationalRoutes(app: FastifyInstance, services: Services): void {
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  app.get('/metrics', { schema: { tags: ['operations'] } }, async (_request, reply) => {
    reply.header('Content-Type', services.metrics.registry.contentType);
    return services.metrics.exposition();
  });

  app.get('/discovery/readiness', { schema: { tags: ['discovery'] } }, async (request) => {
    const clientId = request.clientId!;
    const readiness = await discoveryReadiness(services.storage, clientId);
    const { snapshot } = await services.readGuard.guard(clientId);
    const total = snapshot.versions.size;
    const state = readiness.state;
    // The latest backfill's counts, when one ran; otherwise every version indexed its leaves inline.
    const backfill = readiness.backfillJobId ? await services.storage.jobs.get(clientId, readiness.backfillJobId) : null;
    const blocked = typeof backfill?.result?.versions_blocked === 'number' ? backfill.result.versions_blocked : 0;
    return {
      readiness_state: state,
      scopes_available: state === 'ready' ? ['content', 'metadata', 'both'] : ['content'],
      contract_version: '2',
      versions_total: total,
      versions_ready: state === 'backfilling' ? 0 : Math.max(0, total - blocked),
      versions_blocked: blocked,
      backfill_job_id: readiness.backfillJobId,
      updated_at: readiness.updatedAt ?? services.startedAt,
    };
  });

  app.get('/admin/authority', { schema: { tags: ['admin'] } }, async () => {
    const record = services.readGuard.enabled ? await services.storage.control.authority() : null;
    return {
      authority_mode: await services.readGuard.mode(),
      authority_id: record?.authorityId ?? null,
      changed_at: record?.changedAt ?? null,
      enabled: services.readGuard.enabled,
      // The answering api process's own view: its recovery and the snapshots it serves.
      process_id: process.pid,
      recovered_at: services.readGuard.recoveredAt,
      serving: { ...services.serving.stats(), forcedCollections: services.memoryPressure.collections },
      // This process's memory as Node sees it (bytes): what the serving budget estimates, next to what is resident,
      // and what its segment thread's isolate holds (part of the reserve the budget keeps for it).
      memory: { ...process.memoryUsage(), segmentThread: await services.serving.builderThreadBytes() },
    };
  });

  app.post<{ Body: { mode: 'READY' | 'MAINTENANCE' | 'FENCING' } }>(
    '/admin/authority/mode',
    {
      schema: {
        tags: ['admin'],
        body: { type: 'object', additionalProperties: false, required: ['mode'], properties: { mode: { type: 'string', enum: ['READY', 'MAINTENANCE', 'FENCING'] } } },
      },
    },
    async (request) => {
      if (!services.readGuard.enabled) throw new ServiceError('publication_disabled', 'Publication is disabled');
      const record = await services.storage.control.setAuthorityMode(request.body.mode);
      return { authority_mode: record.mode };
    },
  );
}

export function registerBackfillRoute(app: FastifyInstance, services: Services): void {
  app.post<{ Body: { client_id: string } }>(
    '/admin/backfill',
    {
      schema: {
        tags: ['admin'],
        body: { type: 'object', additionalProperties: false, required: ['client_id'], properties: { client_id: { type: 'string', minLength: 1 } } },
      },
    },
    async (request, reply) => {
      const job = await services.startBackfill(request.body.client_id);
      return reply.code(202).send({ job_id: job.jobId, status: job.status, operation: job.operation, client_id: job.clientId });
    },
  );
}
