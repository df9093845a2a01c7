// POST /search: the request schema of SPEC.md (unknown keys -> 422) and the hand-off to SearchService.

import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.ts';
import { validationError } from '../validation.ts';
import type { SearchScope } from '../../search/search-service.ts';
import { ALPHA, RETRIEVAL_WINDOW, SEARCH_LIMIT, TOP_K_RERANK } from '../../spec-limits.ts';
import { DATE_INTERVALS, FACET_LIMIT, MAX_FACETS, parseFacets } from '../../search/facets.ts';
import { MAX_SORT_KEYS, SORT_ORDERS, parseSort } from '../../search/sort.ts';

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
  facets?: unknown[];
  facet_limit: number;
  sort?: unknown[];
}

/** A facet: a path, or a date path with its histogram interval (search/facets.ts checks the path itself). */
export const FACETS_SCHEMA = {
  type: 'array',
  maxItems: MAX_FACETS,
  description: `At most ${MAX_FACETS} paths to count the matched Document Versions by (meta.facets): created_at, document_id, system keys, entity keys, metadata.custom.<key>; a date path may be {"field", "interval"}.`,
  items: {
    anyOf: [
      { type: 'string', minLength: 1 },
      {
        type: 'object',
        additionalProperties: false,
        required: ['field'],
        properties: {
          field: { type: 'string', minLength: 1, description: 'A date path: created_at, extracted.created_at or metadata.custom.<key>.' },
          interval: { type: 'string', enum: Object.keys(DATE_INTERVALS), description: 'The bucket: an ISO prefix of 4 (year), 7 (month) or 10 (day) characters.' },
        },
      },
    ],
  },
} as const;

/** Sort keys: the field (search/sort.ts checks it is sortable) and its order. */
export const SORT_SCHEMA = {
  type: 'array',
  maxItems: MAX_SORT_KEYS,
  description: `At most ${MAX_SORT_KEYS} keys ordering every matched version: created_at, system keys, metadata.custom.<key>; missing values last, relevance breaks ties.`,
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['field', 'order'],
    properties: {
      field: { type: 'string', minLength: 1, description: 'created_at, a system key or metadata.custom.<key>.' },
      order: { type: 'string', enum: [...SORT_ORDERS], description: 'asc or desc; missing values come last in either.' },
    },
  },
} as const;

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
    facets: FACETS_SCHEMA,
    facet_limit: { type: 'integer', minimum: FACET_LIMIT.min, maximum: FACET_LIMIT.max, default: FACET_LIMIT.default, description: 'Values each facet lists; the rest are summed in other_count.' },
    sort: SORT_SCHEMA,
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
    const facets = parseFacets(body.facets, ['body', 'facets']);
    const sort = parseSort(body.sort, ['body', 'sort']);
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
      facets,
      facetLimit: body.facet_limit,
      sort,
    });
  });
}
