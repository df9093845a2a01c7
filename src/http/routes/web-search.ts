// GET /web-search/capabilities and POST /web-search: operator-gated, fail-open, never cached.

import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.ts';
import { DEFAULT_WEB_RESULTS, MAX_WEB_QUERY_CHARS, MAX_WEB_RESULTS } from '../../websearch/web-search.ts';

const NO_STORE = 'private, no-store';

export function registerWebSearchRoutes(app: FastifyInstance, services: Services): void {
  app.get('/web-search/capabilities', { schema: { tags: ['web-search'] } }, async (_request, reply) => {
    reply.header('Cache-Control', NO_STORE);
    return { enabled: services.webSearch.enabled };
  });

  app.post<{ Body: { query: string; limit: number } }>(
    '/web-search',
    {
      schema: {
        tags: ['web-search'],
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['query'],
          properties: {
            query: { type: 'string', minLength: 1, maxLength: MAX_WEB_QUERY_CHARS, pattern: '\\S' },
            limit: { type: 'integer', minimum: 1, maximum: MAX_WEB_RESULTS, default: DEFAULT_WEB_RESULTS },
          },
        },
      },
      onSend: async (_request, reply, payload) => {
        reply.header('Cache-Control', NO_STORE);
        return payload;
      },
    },
    async (request) => services.webSearch.search(request.body.query, request.body.limit),
  );
}
