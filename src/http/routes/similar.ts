// POST /similar: the request schema (unknown keys -> 422) and the hand-off to SimilarService (search/similar.ts).

import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.ts';
import { SIMILAR_LIMIT } from '../../search/similar.ts';

interface SimilarBody {
  document_id: string;
  version_id?: string | null;
  limit: number;
  filters: Record<string, unknown>;
  include_deleted: boolean;
}

export const SIMILAR_BODY_SCHEMA = {
  title: 'SimilarRequest',
  description: 'Which document to start from and which versions may answer.',
  type: 'object',
  additionalProperties: false,
  required: ['document_id'],
  properties: {
    document_id: { type: 'string', minLength: 1, maxLength: 256, description: 'The document whose content the answer is like.' },
    version_id: { type: ['string', 'null'], minLength: 1, maxLength: 256, description: 'The version to start from; absent or null: the latest visible one.' },
    limit: { type: 'integer', minimum: SIMILAR_LIMIT.min, maximum: SIMILAR_LIMIT.max, default: SIMILAR_LIMIT.default, description: 'Results to answer.' },
    filters: { type: 'object', default: {}, description: 'Exact metadata conditions, as in POST /search.' },
    include_deleted: { type: 'boolean', default: false, description: 'Whether soft-deleted versions may start or answer.' },
  },
} as const;

export function registerSimilarRoutes(app: FastifyInstance, services: Services): void {
  app.post<{ Body: SimilarBody }>('/similar', { schema: { tags: ['search'], body: SIMILAR_BODY_SCHEMA } }, async (request) => {
    const body = request.body;
    return services.similar.similar(request.clientId!, {
      documentId: body.document_id,
      versionId: body.version_id,
      limit: body.limit,
      filters: body.filters,
      includeDeleted: body.include_deleted,
      confinement: request.confinement,
    });
  });
}
