// What each route answers, status by status, as /openapi.json declares it: its success status (202 for the
// routes that queue a job) and every error status it can answer, each an error envelope naming the catalogue's
// codes for that status, with Retry-After where the catalogue or the rate limit sets one. Routes keep their own
// detailed success schemas (response-docs.ts); an onRoute hook (app.ts) adds what this table says to each.
// Answers are serialized through these schemas (serialization.ts).

import type { RouteOptions } from 'fastify';
import { ERROR_CATALOGUE, envelopeSchema } from './error-catalogue.ts';
import { ROUTE_EXAMPLES } from './route-examples.ts';

export interface RouteResponses {
  /** The route's success status, what it means, and the shape of its body where the table gives one (SPEC.md). */
  success: { status: 200 | 202; description: string; schema?: object };
  /** Every error status the route can answer (as the error envelope). */
  errors: readonly number[];
  /** Other statuses whose body is not the error envelope (GET /health's 503 is the health answer). */
  bodies?: Readonly<Record<number, object>>;
}

/**
 * What a Client-key route can meet before its handler runs: a bad key, its rate limit, an internal failure, a
 * store that cannot be reached (503 store_unavailable: the rate limit is kept in the store).
 */
const CLIENT_ROUTE = [401, 429, 500, 503] as const;
/** An operator route: a bad key, an internal failure, a store that cannot be reached (no rate limit applies). */
const OPERATOR_ROUTE = [401, 500, 503] as const;
/** A route that writes to the store: a write that finds no room is refused whole (507 storage_full). */
const STORE_WRITE = 507;
/** Reads of a Client's serving snapshot fail closed while publication cannot be proven (503, Retry-After). */
const SNAPSHOT_READ = 503;

const NULLABLE_STRING = { type: ['string', 'null'] } as const;
/**
 * An object whose members are data, not contract (metadata, entity lists, diagnostics): every member is kept. An
 * object schema that lists no properties would otherwise serialize as {} (fast-json-stringify drops undeclared ones).
 */
const FREE_OBJECT = { type: 'object', additionalProperties: true } as const;
const SPANS = { type: 'array', description: 'highlight: true only: matched spans, [start, end) in UTF-16 code units of text (or value), sorted, not overlapping.', items: { type: 'object', required: ['start', 'end'], properties: { start: { type: 'integer', minimum: 0 }, end: { type: 'integer', minimum: 0 } } } } as const;
const CONTENT_EVIDENCE_ITEM = {
  type: 'object',
  properties: { chunk_id: { type: 'string' }, chunk_index: { type: 'integer' }, text: { type: 'string' }, page: { type: ['integer', 'null'] }, highlights: SPANS },
} as const;
const METADATA_EVIDENCE_ITEM = {
  type: 'object',
  properties: { path: { type: 'array', items: { type: 'string' } }, value: { description: 'The leaf value, typed as stored.' }, value_type: { type: 'string' }, match_kind: { type: 'string', enum: ['exact', 'lexical', 'semantic'] }, highlights: SPANS },
} as const;
const evidence = (item: object) => ({ type: 'object', required: ['items', 'total', 'truncated'], properties: { items: { type: 'array', items: item }, total: { type: 'integer', minimum: 0 }, truncated: { type: 'boolean' } } }) as const;
const DOCUMENT_VERSION = { type: 'object', required: ['document_id', 'version_id'], properties: { document_id: { type: 'string' }, version_id: NULLABLE_STRING } } as const;
/** A queued job as an accepting route answers it. */
const ACCEPTED_JOB = { type: 'object', required: ['job_id', 'status'], properties: { job_id: { type: 'string' }, status: { type: 'string', enum: ['pending'] } } } as const;

const SEARCH_ANSWER = {
  type: 'object',
  required: ['results', 'meta'],
  properties: {
    results: {
      type: 'array',
      items: {
        type: 'object',
        required: ['rank', 'document_version', 'canonical_metadata', 'retrieval_contributions', 'content_evidence', 'metadata_evidence'],
        properties: {
          rank: { type: 'integer', minimum: 1 },
          document_version: DOCUMENT_VERSION,
          canonical_metadata: { ...FREE_OBJECT, description: 'schema_version "2" groups: source, document, location, classification, quality, extracted, custom.' },
          retrieval_contributions: {
            type: 'array',
            items: { type: 'object', required: ['lane', 'rank'], properties: { lane: { type: 'string', enum: ['content', 'metadata'] }, rank: { type: 'integer', minimum: 1 } } },
          },
          content_evidence: evidence(CONTENT_EVIDENCE_ITEM),
          metadata_evidence: evidence(METADATA_EVIDENCE_ITEM),
        },
      },
    },
    meta: {
      type: 'object',
      required: ['query', 'total', 'total_is_lower_bound', 'offset', 'limit', 'has_more', 'query_time_ms', 'retrieval', 'applied_filters', 'publication_view'],
      properties: {
        query: { type: 'string' },
        total: { type: 'integer', minimum: 0 },
        total_is_lower_bound: { type: 'boolean' },
        offset: { type: 'integer', minimum: 0 },
        limit: { type: 'integer', minimum: 1 },
        has_more: { type: 'boolean' },
        query_time_ms: { type: 'integer', minimum: 0 },
        retrieval: { type: 'object', required: ['alpha', 'reranked', 'reranked_count'], properties: { alpha: { type: 'number' }, reranked: { type: 'boolean' }, reranked_count: { type: 'integer' } } },
        applied_filters: FREE_OBJECT,
        publication_view: { type: 'string', enum: ['ready', 'pinned_ready'] },
      },
    },
  },
} as const;

const JOB_STATES = ['pending', 'started', 'processing', 'retrying', 'completed', 'failed', 'partial_failed', 'superseded'];
const JOB_VIEW = {
  type: 'object',
  required: ['job_id', 'document_id', 'status', 'operation'],
  properties: {
    job_id: { type: 'string' },
    document_id: { type: 'string', description: 'Empty for a backfill job.' },
    status: { type: 'string', enum: JOB_STATES },
    operation: { type: 'string', enum: ['embed', 'metadata_update', 'metadata_backfill'] },
    // What each state and operation adds (SPEC.md GET /status), present only where the table lists it.
    search_ready: { type: 'boolean', description: 'completed upload: this api process serves the job generation or a newer one.' },
    snapshot_generation: { type: ['integer', 'null'], description: 'completed upload: the generation this api process serves for the document.' },
    chunks_created: { type: 'integer', description: 'completed or partial_failed upload.' },
    categories: { type: 'array', items: {}, description: 'completed upload.' },
    classification_status: { type: 'string', description: 'completed upload.' },
    entities_extracted: { ...FREE_OBJECT, description: 'completed or partial_failed upload: entity lists by kind.' },
    created_at: { type: 'string' },
    completed_at: { type: ['string', 'null'] },
    metadata_ready: { type: 'boolean', description: 'completed publication-backed upload: readiness convergence committed ready.' },
    readiness_state: { type: 'string', enum: ['not_started', 'backfilling', 'ready', 'blocked'] },
    error: { type: ['string', 'null'], description: 'failed, partial_failed and retrying: the legible cause; null when superseded.' },
    error_details: { ...FREE_OBJECT, description: 'A quota or metadata-contract failure: code, path or quota, observed, limit, unit.' },
    retry_count: { type: 'integer', description: 'retrying.' },
    max_retries: { type: 'integer', description: 'retrying.' },
    next_retry_in_seconds: { type: 'integer', description: 'retrying.' },
    publication_status: { type: 'string', description: 'superseded, or a metadata update (ready once active).' },
    superseded_by_job_id: { type: ['string', 'null'], description: 'superseded.' },
    superseded_reason: { type: 'string', enum: ['newer_upload', 'replacement_overtaken'], description: 'superseded.' },
    version_id: { type: ['string', 'null'], description: 'metadata update.' },
    updated_fields: { type: 'array', items: { type: 'string' }, description: 'metadata update: top-level patch keys, at most 64.' },
    updated_fields_count: { type: 'integer' },
    updated_fields_truncated: { type: 'boolean' },
    versions_total: { type: 'integer' },
    versions_completed: { type: 'integer' },
    versions_unchanged: { type: 'integer' },
    updated_chunks: { type: 'integer' },
    cleanup_tasks_scheduled: { type: 'integer' },
    versions_backfilled: { type: 'integer', description: 'backfill.' },
    versions_pending: { type: 'integer', description: 'backfill.' },
    versions_blocked: { type: 'integer', description: 'backfill.' },
    violations: { type: 'array', items: FREE_OBJECT, description: 'backfill: remediation entries (document identity, path, cap; never a value).' },
    violations_total: { type: 'integer' },
    violations_truncated: { type: 'boolean' },
  },
} as const;

const DOCUMENT_LIST = {
  type: 'object',
  required: ['documents', 'total', 'limit', 'offset', 'has_more'],
  properties: {
    documents: {
      type: 'array',
      items: {
        type: 'object',
        required: ['document_id', 'version_id', 'metadata', 'chunk_count', 'created_at'],
        properties: {
          document_id: { type: 'string' },
          version_id: NULLABLE_STRING,
          metadata: FREE_OBJECT,
          chunk_count: { type: 'integer', minimum: 0 },
          created_at: { type: 'string' },
          deleted: { type: 'boolean', description: 'Only with include_deleted=true.' },
          deleted_at: { type: ['string', 'null'], description: 'Only with include_deleted=true.' },
          deleted_by: { type: ['string', 'null'], description: 'Only with include_deleted=true: the resolved client id.' },
        },
      },
    },
    total: { type: 'integer', minimum: 0 },
    limit: { type: 'integer', minimum: 1 },
    offset: { type: 'integer', minimum: 0 },
    has_more: { type: 'boolean' },
  },
} as const;

const READINESS = {
  type: 'object',
  required: ['readiness_state', 'scopes_available', 'versions_total', 'versions_ready', 'versions_blocked', 'backfill_job_id', 'updated_at'],
  properties: {
    readiness_state: { type: 'string', enum: ['not_started', 'backfilling', 'ready', 'blocked'] },
    scopes_available: { type: 'array', items: { type: 'string', enum: ['content', 'metadata', 'both'] } },
    contract_version: { type: 'string' },
    versions_total: { type: 'integer', minimum: 0 },
    versions_ready: { type: 'integer', minimum: 0 },
    versions_blocked: { type: 'integer', minimum: 0 },
    backfill_job_id: NULLABLE_STRING,
    updated_at: { type: 'string' },
  },
} as const;

const HEALTH = {
  type: 'object',
  required: ['status', 'version', 'components', 'publishing'],
  properties: {
    status: { type: 'string', enum: ['healthy', 'degraded'] },
    version: { type: 'string' },
    components: { type: 'object', additionalProperties: { type: 'string', enum: ['ok', 'error'] } },
    publishing: {
      type: 'object',
      required: ['status', 'reason', 'authority_mode'],
      properties: { status: { type: 'string', enum: ['ready', 'degraded', 'unavailable'] }, reason: NULLABLE_STRING, authority_mode: { type: 'string' } },
    },
    diagnostics: { ...FREE_OBJECT, description: 'Present when publication is enabled: diagnostics.publication.' },
  },
} as const;

const AUTHORITY_MODES = ['READY', 'MAINTENANCE', 'FENCING'];

/** Keyed by method and the route's path as registered (`:param`). */
export const ROUTE_RESPONSES: Readonly<Record<string, RouteResponses>> = {
  'GET /health': {
    success: { status: 200, description: 'Serving is safe (READY or FENCING); components and the publishing block.', schema: HEALTH },
    errors: [500],
    bodies: { 503: { description: 'Publication is enabled and serving is unsafe: the same health answer, components.publication error.', ...HEALTH } },
  },
  'POST /search': { success: { status: 200, description: 'Ranked results of the requested page, with evidence.', schema: SEARCH_ANSWER }, errors: [...CLIENT_ROUTE, 400, 409, 422, SNAPSHOT_READ] },
  'POST /embed': { success: { status: 202, description: 'Accepted: the upload is queued; poll GET /status/{job_id}.' }, errors: [...CLIENT_ROUTE, 403, 413, 415, 422, 503, STORE_WRITE] },
  'GET /status/:job_id': { success: { status: 200, description: 'The job, rendered by its state: common fields, then those of its state and operation (SPEC.md GET /status).', schema: JOB_VIEW }, errors: [...CLIENT_ROUTE, 404, SNAPSHOT_READ] },
  'GET /documents': { success: { status: 200, description: 'A page of Document Version summaries.', schema: DOCUMENT_LIST }, errors: [...CLIENT_ROUTE, 400, 422, SNAPSHOT_READ] },
  'GET /document/:document_id/text': { success: { status: 200, description: 'The document text resource.' }, errors: [...CLIENT_ROUTE, 400, 404, 422, SNAPSHOT_READ] },
  'DELETE /document/:document_id': {
    success: {
      status: 200,
      description: 'The versions deleted (soft or hard).',
      schema: { type: 'object', required: ['document_id', 'deleted_chunks', 'status'], properties: { document_id: { type: 'string' }, deleted_chunks: { type: 'integer', minimum: 0 }, status: { type: 'string', enum: ['soft_deleted', 'hard_deleted'] } } },
    }, errors: [...CLIENT_ROUTE, 400, 404, 503, STORE_WRITE] },
  'POST /document/:document_id/restore': {
    success: {
      status: 200,
      description: 'The versions restored.',
      schema: { type: 'object', required: ['document_id', 'restored_chunks', 'status'], properties: { document_id: { type: 'string' }, restored_chunks: { type: 'integer', minimum: 0 }, status: { type: 'string', enum: ['restored'] } } },
    }, errors: [...CLIENT_ROUTE, 400, 404, 503, STORE_WRITE] },
  'PATCH /update': {
    success: {
      status: 202,
      description: 'Accepted: the metadata update is queued; poll GET /status/{job_id}.',
      schema: { ...ACCEPTED_JOB, required: [...ACCEPTED_JOB.required, 'document_id', 'version_id', 'updated_fields'], properties: { ...ACCEPTED_JOB.properties, document_id: { type: 'string' }, version_id: NULLABLE_STRING, updated_fields: { type: 'array', items: { type: 'string' } } } },
    }, errors: [...CLIENT_ROUTE, 400, 422, 503, STORE_WRITE] },
  'GET /metrics': {
    success: { status: 200, description: 'Operator: Prometheus text exposition of every process of the deployment.', schema: { content: { 'text/plain': { schema: { type: 'string' } } } } },
    errors: [...OPERATOR_ROUTE],
  },
  'GET /discovery/readiness': { success: { status: 200, description: "The Client's Metadata Discovery readiness.", schema: READINESS }, errors: [...CLIENT_ROUTE, SNAPSHOT_READ] },
  'GET /admin/authority': {
    success: {
      status: 200,
      description: "The publication authority record, and the answering api process's own view (recovery, snapshots, memory).",
      schema: {
        type: 'object',
        required: ['authority_mode', 'authority_id', 'changed_at', 'enabled', 'process_id'],
        properties: { authority_mode: { type: 'string' }, authority_id: NULLABLE_STRING, changed_at: NULLABLE_STRING, enabled: { type: 'boolean' }, process_id: { type: 'integer' }, recovered_at: NULLABLE_STRING, serving: FREE_OBJECT, memory: FREE_OBJECT },
      },
    },
    errors: [...OPERATOR_ROUTE, 503],
  },
  'POST /admin/authority/mode': {
    success: { status: 200, description: 'The authority mode set.', schema: { type: 'object', required: ['authority_mode'], properties: { authority_mode: { type: 'string', enum: AUTHORITY_MODES } } } },
    errors: [...OPERATOR_ROUTE, 422, 503, STORE_WRITE],
  },
  'POST /admin/backfill': {
    success: {
      status: 202,
      description: 'Accepted: the backfill is queued; the Client polls GET /status/{job_id}.',
      schema: { ...ACCEPTED_JOB, required: [...ACCEPTED_JOB.required, 'operation', 'client_id'], properties: { ...ACCEPTED_JOB.properties, operation: { type: 'string', enum: ['metadata_backfill'] }, client_id: { type: 'string' } } },
    }, errors: [...OPERATOR_ROUTE, 404, 422, 503, STORE_WRITE] },
  'GET /web-search/capabilities': { success: { status: 200, description: 'Whether web search is enabled.', schema: { type: 'object', required: ['enabled'], properties: { enabled: { type: 'boolean' } } } }, errors: [...CLIENT_ROUTE] },
  'POST /web-search': {
    success: {
      status: 200,
      description: 'Web results; provider failures answer 200 with meta.status (fail-open).',
      schema: {
        type: 'object',
        required: ['results', 'meta'],
        properties: {
          results: {
            type: 'array',
            items: { type: 'object', required: ['source', 'title', 'url', 'snippet', 'rank'], properties: { source: { type: 'string', enum: ['web'] }, title: { type: 'string' }, url: { type: 'string' }, snippet: { type: 'string' }, rank: { type: 'integer', minimum: 1 } } },
          },
          meta: {
            type: 'object',
            required: ['provider', 'status', 'count', 'query_time_ms'],
            properties: { provider: NULLABLE_STRING, status: { type: 'string', enum: ['ok', 'no_results', 'timeout', 'rate_limited', 'unavailable', 'provider_error'] }, count: { type: 'integer', minimum: 0 }, query_time_ms: { type: 'integer', minimum: 0 } },
          },
        },
      },
    }, errors: [...CLIENT_ROUTE, 422] },
};

const RETRY_AFTER = { 'Retry-After': { type: 'integer', minimum: 1, description: 'Seconds to wait before repeating the request.' } };

/** The envelope of one error status: its catalogue codes in the description, Retry-After where it applies. */
function errorResponse(status: number): object {
  const entries = Object.values(ERROR_CATALOGUE).filter((entry) => entry.status === status);
  const codes = [...new Set(entries.map((entry) => entry.errorCode))];
  const retries = status === 429 || entries.some((entry) => entry.retryAfterSeconds !== null);
  const envelope = envelopeSchema(`error_code ${codes.join(', ')}.${retries ? ' Retry-After says when to repeat the request.' : ''}`);
  return retries ? { ...envelope, headers: RETRY_AFTER } : envelope;
}

/**
 * onRoute hook: gives a route of the table its success status and error envelopes (keeping the response schemas
 * the route declares itself); the answers are then serialized through them (serialization.ts).
 */
export function declareRouteResponses(route: RouteOptions): void {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  const declared = ROUTE_RESPONSES[`${methods[0]} ${route.url}`];
  if (!declared || methods.length !== 1) return;
  const schema = (route.schema ??= {});
  const examples = ROUTE_EXAMPLES[`${methods[0]} ${route.url}`];
  if (examples) {
    (schema as { summary?: string }).summary ??= examples.summary;
    if (examples.request !== undefined && schema.body) schema.body = { ...(schema.body as object), examples: [examples.request] };
  }
  const response = { ...(schema.response as Record<string, unknown> | undefined) };
  response[declared.success.status] ??= { description: declared.success.description, ...declared.success.schema };
  if (examples?.response !== undefined) response[declared.success.status] = { ...(response[declared.success.status] as object), examples: [examples.response] };
  for (const status of declared.errors) response[status] ??= errorResponse(status);
  for (const [status, body] of Object.entries(declared.bodies ?? {})) response[status] ??= body;
  schema.response = response;
}
