// GET /web-search/capabilities and POST /web-search: operator-gated, fail-open, never cached.

import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.ts';
import { WEB_SEARCH_LIMIT, WEB_SEARCH_QUERY_CHARS } from '../../spec-limits.ts';

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
            query: { type: 'string', minLength: WEB_SEARCH_QUERY_CHARS.min, maxLength: WEB_SEARCH_QUERY_CHARS.max, pattern: '\\S', description: 'What to search the web for; sent verbatim to the public provider.' },
            limit: { type: 'integer', minimum: WEB_SEARCH_LIMIT.min, maximum: WEB_SEARCH_LIMIT.max, default: WEB_SEARCH_LIMIT.default, description: 'Results at most.' },
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
