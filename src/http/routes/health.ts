// GET /health: component status, the publishing block and publication diagnostics (SPEC.md "GET /health"), as
// reads/health-service.ts finds them. Never authenticated, never rate limited.

import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.ts';

export function registerHealthRoutes(app: FastifyInstance, services: Services): void {
  app.get('/health', { schema: { tags: ['operations'], security: [] } }, async (_request, reply) => {
    const answer = await services.health.check();
    return reply.code(answer.statusCode).send(answer.body);
  });
}
