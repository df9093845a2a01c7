// Document routes: GET /documents and GET /document/{document_id}/text (lifecycle writes join later).

import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.ts';
import { validationError } from '../validation.ts';
import { parseJsonText } from '../json-body.ts';
import { ServiceError } from '../../domain/service-error.ts';
import type { UpdateRequest } from '../../publication/update-service.ts';
import { TEXT_RESPONSES } from './response-docs.ts';
import { LIST_LIMIT } from '../../spec-limits.ts';
import { FACET_LIMIT, facetsFromQuery, parseFacets } from '../../search/facets.ts';
import { parseSort, sortFromQuery } from '../../search/sort.ts';

interface ListQuery {
  limit: number;
  offset: number;
  metadata_filter?: string;
  include_deleted: boolean;
  facets?: string;
  facet_limit: number;
  sort?: string;
}

interface TextQuery {
  include_deleted: boolean;
  include_vector: boolean;
  chunk_offset: number;
  chunk_limit?: number;
}


/**
 * A metadata_filter written as JSON obeys the body limits too: bounded depth, no duplicate keys (the last
 * would silently win), well-formed strings. Plain syntax errors are left to the service, which reports
 * them as SPEC.md says (Invalid metadata_filter JSON).
 */
function checkFilterJson(raw: string | undefined): void {
  const text = raw?.trim() ?? '';
  if (!/^[[{"]/.test(text)) return;
  const parsed = parseJsonText(text, ['query', 'metadata_filter']);
  if (!parsed.ok && !parsed.syntax) throw new ServiceError('invalid_metadata_filter_json', `Invalid metadata_filter JSON: ${parsed.details[0].msg}`);
}

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
            limit: { type: 'integer', minimum: LIST_LIMIT.min, maximum: LIST_LIMIT.max, default: LIST_LIMIT.default, description: 'Document Versions per page.' },
            offset: { type: 'integer', minimum: 0, default: 0 },
            metadata_filter: { type: 'string', description: 'A JSON object of exact metadata values (scalar strings, booleans or integers) the versions must have.' },
            include_deleted: { type: 'boolean', default: false },
            facets: { type: 'string', description: 'Comma-separated paths to count the listed versions by (path or path:day|month|year for a date histogram), answered as facets.' },
            facet_limit: { type: 'integer', minimum: FACET_LIMIT.min, maximum: FACET_LIMIT.max, default: FACET_LIMIT.default, description: 'Values each facet lists.' },
            sort: { type: 'string', description: 'field:asc or field:desc, up to three comma-separated: created_at, a system key or metadata.custom.<key>; missing values last.' },
          },
        },
      },
    },
    async (request) => {
      checkFilterJson(request.query.metadata_filter);
      const facets = parseFacets(facetsFromQuery(request.query.facets), ['query', 'facets']);
      const sort = parseSort(sortFromQuery(request.query.sort), ['query', 'sort']);
      return services.documents.list(request.clientId!, {
        limit: request.query.limit,
        offset: request.query.offset,
        metadataFilter: request.query.metadata_filter,
        includeDeleted: request.query.include_deleted,
        confinement: request.confinement,
        facets,
        facetLimit: request.query.facet_limit,
        sort,
      });
    },
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
            include_vector: { type: 'boolean', default: false, description: "Give each chunk its dense vector." },
            // docs/configuration.md "Limits": one answer is bounded; a large document is read page by page.
            chunk_offset: { type: 'integer', minimum: 0, default: 0, description: 'Index of the first chunk to read (next_chunk_offset of the previous page).' },
            chunk_limit: { type: 'integer', minimum: 1, maximum: services.config.textReadMaxChunks, description: 'Chunks to read at most (TEXT_READ_MAX_CHUNKS by default and at most).' },
          },
        },
        response: TEXT_RESPONSES,
      },
    },
    async (request) =>
      services.documents.text(request.clientId!, request.params.document_id, {
        includeDeleted: request.query.include_deleted,
        includeVector: request.query.include_vector,
        chunkOffset: request.query.chunk_offset,
        chunkLimit: request.query.chunk_limit,
        confinement: request.confinement,
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
          properties: {
            version_id: { type: 'string', minLength: 1, description: 'Delete this version only; every version of the document when absent.' },
            mode: { type: 'string', enum: ['soft', 'hard'], default: 'soft', description: 'soft: hidden until restored; hard: erased for good.' },
          },
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
        querystring: { type: 'object', additionalProperties: false, properties: { version_id: { type: 'string', minLength: 1, description: 'Restore this version only; every soft-deleted version when absent.' } } },
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
            version_id: { type: 'string', description: 'Update this version only; every version of the document when absent.' },
            metadata: { type: 'object', description: 'A JSON Merge Patch over metadata.custom: a key set to null is removed.' },
            filename: { type: 'string', description: 'The new metadata.source.filename.' },
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
