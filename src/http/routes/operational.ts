// Operational routes: /openapi.json, /discovery/readiness, and the operator-only /metrics and /admin routes
// (OPERATOR_API_KEYS, access.ts; Client keys never reach them).

import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.ts';

export function registerOperationalRoutes(app: FastifyInstance, services: Services): void {
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  app.get('/metrics', { schema: { tags: ['operations'] } }, async (_request, reply) => {
    reply.header('Content-Type', services.metrics.registry.contentType);
    return services.metrics.exposition();
  });

  app.get('/discovery/readiness', { schema: { tags: ['discovery'] } }, async (request) => services.readiness.view(request.clientId!, request.confinement));

  app.get('/admin/authority', { schema: { tags: ['admin'] } }, async () => services.authorityView.view());

  app.post<{ Body: { mode: 'READY' | 'MAINTENANCE' | 'FENCING' } }>(
    '/admin/authority/mode',
    {
      schema: {
        tags: ['admin'],
        body: { type: 'object', additionalProperties: false, required: ['mode'], properties: { mode: { type: 'string', enum: ['READY', 'MAINTENANCE', 'FENCING'], description: 'The authority mode to record.' } } },
      },
    },
    async (request) => {
      const record = await services.authority.setMode(request.body.mode);
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
        body: { type: 'object', additionalProperties: false, required: ['client_id'], properties: { client_id: { type: 'string', minLength: 1, description: 'The Client whose versions to backfill.' } } },
      },
    },
    async (request, reply) => {
      const job = await services.startBackfill(request.body.client_id);
      return reply.code(202).send({ job_id: job.jobId, status: job.status, operation: job.operation, client_id: job.clientId });
    },
  );
}
