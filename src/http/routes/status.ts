// GET /status/{job_id}: a Client's job, rendered by state; another Client's job is the same 404 as none.

import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.ts';
import { ServiceError } from '../../domain/service-error.ts';
import { renderJob } from '../../jobs/job-view.ts';

export function registerStatusRoutes(app: FastifyInstance, services: Services): void {
  app.get<{ Params: { job_id: string } }>(
    '/status/:job_id',
    {
      schema: {
        tags: ['jobs'],
        params: { type: 'object', properties: { job_id: { type: 'string', minLength: 1, maxLength: 128 } }, required: ['job_id'] },
      },
    },
    async (request) => {
      const clientId = request.clientId!;
      const job = await services.storage.jobs.get(clientId, request.params.job_id);
      if (!job) throw new ServiceError('not_found', 'Job not found');
      const snapshot = await services.readGuard.observe(clientId);
      return renderJob(job, { storage: services.storage, publicationEnabled: services.config.publicationEnabled, snapshot });
    },
  );
}
