// GET /status/{job_id}: a Client's job, rendered by state; another Client's job is the same 404 as none.

import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.ts';

export function registerStatusRoutes(app: FastifyInstance, services: Services): void {
  app.get<{ Params: { job_id: string } }>(
    '/status/:job_id',
    {
      schema: {
        tags: ['jobs'],
        params: { type: 'object', properties: { job_id: { type: 'string', minLength: 1, maxLength: 128 } }, required: ['job_id'] },
      },
    },
    async (request) => services.jobStatus.view(request.clientId!, request.params.job_id, request.confinement),
  );
}
