// Document routes: GET /documents and GET /document/{document_id}/text (lifecycle writes join later).

import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.ts';
import { validationError } from '../validation.ts';
import type { UpdateRequest } from '../../publication/update-service.ts';

interface ListQuery {
  limit: number;
  offset: number;
  metadata_filter?: string;
  include_deleted: boolean;
}

interface TextQuery {
  include_deleted: boolean;
  include_vector: boolean;
}

/** SPEC.md "List limit": 1 to 1000, default 100. */
export const MAX_LIST_LIMIT = 1000;

export function registerDocumentRoutes(app: FastifyInstance, services: Services): void {
  app.get<{ Querystring: ListQuery }>(
    '/documents',
    {
      schema: {
        tags: ['documents'],
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            limit: { type: 'integer', minimum: 1, maximum: MAX_LIST_LIMIT, default: 100 },
            offset: { type: 'integer', minimum: 0, default: 0 },
            metadata_filter: { type: 'string' },
            include_deleted: { type: 'boolean', default: false },
          },
        },
      },
    },
    async (request) =>
      services.documents.list(request.clientId!, {
        limit: request.query.limit,
        offset: request.query.offset,
        metadataFilter: request.query.metadata_filter,
        includeDeleted: request.query.include_deleted,
      }),
  );

  app.get<{ Params: { document_id: string }; Querystring: TextQuery }>(
    '/document/:document_id/text',
    {
      schema: {
        tags: ['documents'],
        params: { type: 'object', properties: { document_id: { type: 'string', minLength: 1 } }, required: ['document_id'] },
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            include_deleted: { type: 'boolean', default: false },
            include_vector: { type: 'boolean', default: false },
          },
        },
      },
    },
    async (request) =>
      services.documents.text(request.clientId!, request.params.document_id, {
        includeDeleted: request.query.include_deleted,
        includeVector: request.query.include_vector,
      }),
  );
}

export function registerLifecycleRoutes(app: FastifyInstance, services: Services): void {
  const documentParams = { type: 'object', properties: { document_id: { type: 'string', minLength: 1 } }, required: ['document_id'] } as const;

  app.delete<{ Params: { document_id: string }; Querystring: { version_id?: string; mode: 'soft' | 'hard' } }>(
    '/document/:document_id',
    {
      schema: {
        tags: ['documents'],
        params: documentParams,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { version_id: { type: 'string', minLength: 1 }, mode: { type: 'string', enum: ['soft', 'hard'], default: 'soft' } },
        },
      },
    },
    async (request) => services.lifecycle.delete(request.clientId!, request.params.document_id, request.query.version_id, request.query.mode),
  );

  app.post<{ Params: { document_id: string }; Querystring: { version_id?: string } }>(
    '/document/:document_id/restore',
    {
      schema: {
        tags: ['documents'],
        params: documentParams,
        querystring: { type: 'object', additionalProperties: false, properties: { version_id: { type: 'string', minLength: 1 } } },
      },
    },
    async (request) => services.lifecycle.restore(request.clientId!, request.params.document_id, request.query.version_id),
  );

  app.patch<{ Body: UpdateRequest }>(
    '/update',
    {
      schema: {
        tags: ['documents'],
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['document_id'],
          properties: {
            document_id: { type: 'string' },
            version_id: { type: 'string' },
            metadata: { type: 'object' },
            filename: { type: 'string' },
          },
        },
      },
    },
    async (request, reply) => {
      if (request.body.metadata === undefined && request.body.filename === undefined) {
        throw validationError({ type: 'missing', loc: ['body', 'metadata'], msg: 'One of metadata or filename is required', input: request.body });
      }
      return reply.code(202).send(await services.updates.accept(request.clientId!, request.body));
    },
  );
}
