// POST /search: the request schema of SPEC.md (unknown keys -> 422) and the hand-off to SearchService.

import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.ts';
import { validationError } from '../validation.ts';
import type { SearchScope } from '../../search/search-service.ts';
import { ALPHA, RETRIEVAL_WINDOW, SEARCH_LIMIT, TOP_K_RERANK } from '../../spec-limits.ts';

export const SEARCH_SCOPES: readonly SearchScope[] = ['content', 'metadata', 'both'];

interface SearchBody {
  query: string;
  scope?: string;
  alpha?: number;
  limit: number;
  offset: number;
  filters: Record<string, unknown>;
  rerank: boolean;
  top_k_rerank: number;
  include_deleted: boolean;
  highlight: boolean;
}

export const SEARCH_BODY_SCHEMA = {
  title: 'SearchRequest',
  description: 'A search: the query, where to look, how to rank, which page.',
  type: 'object',
  additionalProperties: false,
  required: ['query'],
  properties: {
    query: { type: 'string', minLength: 1, pattern: '\\S', description: 'What to search for: words, a phrase, a question.' },
    // No enum: scope is matched case-insensitively (SPEC.md); the route answers its own message for other values.
    scope: { type: 'string', default: 'content', description: 'Where to look: content (the text), metadata (typed metadata leaves) or both; case-insensitive. Send it explicitly.' },
    alpha: { type: 'number', minimum: ALPHA.min, maximum: ALPHA.max },
    limit: { type: 'integer', minimum: SEARCH_LIMIT.min, maximum: SEARCH_LIMIT.max, default: SEARCH_LIMIT.default, description: 'Results per page.' },
    offset: { type: 'integer', minimum: 0, default: 0, description: `Results skipped before this page; offset + limit at most ${RETRIEVAL_WINDOW}.` },
    filters: { type: 'object', default: {} },
    rerank: { type: 'boolean', default: false },
    top_k_rerank: { type: 'integer', minimum: TOP_K_RERANK.min, maximum: TOP_K_RERANK.max, default: TOP_K_RERANK.default },
    include_deleted: { type: 'boolean', default: false },
    highlight: { type: 'boolean', default: false },
  },
} as const;

export function registerSearchRoutes(app: FastifyInstance, services: Services): void {
  app.post<{ Body: SearchBody }>('/search', { schema: { tags: ['search'], body: SEARCH_BODY_SCHEMA } }, async (request) => {
    const body = request.body;
    const scope = (body.scope ?? 'content').toLowerCase() as SearchScope;
    if (!SEARCH_SCOPES.includes(scope)) {
      throw validationError({ type: 'enum', loc: ['body', 'scope'], msg: "Input should be 'content', 'metadata' or 'both'", input: body.scope });
    }
    if (body.offset + body.limit > RETRIEVAL_WINDOW) {
      throw validationError({
        type: 'value_error',
        loc: ['body', 'offset'],
        msg: `offset + limit must not exceed ${RETRIEVAL_WINDOW}`,
        input: body.offset,
      });
    }
    return services.search.search(request.clientId!, {
      query: body.query,
      scope,
      alpha: body.alpha,
      limit: body.limit,
      offset: body.offset,
      filters: body.filters,
      rerank: body.rerank,
      topKRerank: body.top_k_rerank,
      includeDeleted: body.include_deleted,
      highlight: body.highlight,
      confinement: request.confinement,
    });
  });
}
