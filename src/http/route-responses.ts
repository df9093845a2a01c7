// What each route answers, status by status, as /openapi.json declares it: its success status (202 for the
// routes that queue a job) and every error status it can answer, each an error envelope naming the catalogue's
// codes for that status, with Retry-After where the catalogue or the rate limit sets one. Routes keep their own
// detailed success schemas (response-docs.ts); an onRoute hook (app.ts) adds what this table says to each.
// Answers are serialized through these schemas (serialization.ts).

import type { RouteOptions } from 'fastify';
import { ERROR_CATALOGUE, envelopeSchema } from './error-catalogue.ts';
import { ROUTE_EXAMPLES } from './route-examples.ts';
import { RATE_LIMIT_HEADERS } from './rate-limit-headers.ts';
import { SEARCH_BODY_SCHEMA } from './routes/search.ts';
import { WEBHOOK_BODY_SCHEMA } from './routes/webhooks.ts';
import { SYNONYMS_BODY_SCHEMA } from './routes/settings.ts';
import { TEXT_UPLOAD_SCHEMA, UPLOAD_REQUEST_BODY } from './routes/upload.ts';
import { CHUNK, ROW_RANGE, TEXT_RESPONSES, UPLOAD_ACCEPTED } from './routes/response-docs.ts';
import { CLIENT_VIEW, KEY_VIEW, NEW_KEY } from './routes/admin-clients.ts';

export interface RouteResponses {
  /** The route's success status, what it means, and the shape of its body where the table gives one (SPEC.md). */
  success: { status: 200 | 201 | 202 | 204; description: string; schema?: object };
  /** Every error status the route can answer (as the error envelope). */
  errors: readonly number[];
  /** Other statuses whose body is not the error envelope (GET /health's 503 is the health answer). */
  bodies?: Readonly<Record<number, object>>;
}

/**
 * What a Client-key route can meet before its handler runs: a bad key, a runtime key without the route's scope
 * (403 forbidden), its rate limit, an internal failure, a store that cannot be reached (503 store_unavailable: the
 * rate limit is kept in the store).
 */
const CLIENT_ROUTE = [401, 403, 429, 500, 503] as const;
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
// Shapes with a `title` are components of the document: openapi-document.ts moves each to components.schemas and
// leaves a $ref where it was used. A shape changed at a use site must lose its title (the build checks it).
const HIGHLIGHT = {
  title: 'Highlight',
  description: 'A matched span, [start, end) in UTF-16 code units of the evidence text (or value).',
  type: 'object',
  required: ['start', 'end'],
  properties: { start: { type: 'integer', minimum: 0 }, end: { type: 'integer', minimum: 0 } },
} as const;
const SPANS = { type: 'array', description: 'highlight: true only: matched spans, sorted, not overlapping.', items: HIGHLIGHT } as const;
const CONTENT_EVIDENCE_ITEM = {
  title: 'ContentEvidenceItem',
  description: 'A chunk of the document text that supports the result.',
  type: 'object',
  properties: { chunk_id: { type: 'string' }, chunk_index: { type: 'integer' }, text: { type: 'string', description: 'The chunk text.' }, page: { type: ['integer', 'null'] }, rows: ROW_RANGE, highlights: SPANS },
} as const;
const METADATA_EVIDENCE_ITEM = {
  title: 'MetadataEvidenceItem',
  description: 'A metadata leaf that supports the result.',
  type: 'object',
  properties: {
    path: { type: 'array', items: { type: 'string' }, description: 'The leaf\'s path in canonical metadata, key by key.' },
    value: { description: 'The leaf value, typed as stored.' },
    value_type: { type: 'string' },
    match_kind: { type: 'string', enum: ['exact', 'lexical', 'semantic'] },
    highlights: SPANS,
  },
} as const;
const evidence = (title: string, what: string, item: object) =>
  ({
    title,
    description: `The ${what} that support the result, best first.`,
    type: 'object',
    required: ['items', 'total', 'truncated'],
    properties: {
      items: { type: 'array', items: item, description: `The ${what} given (a bounded number of them).` },
      total: { type: 'integer', minimum: 0, description: `How many ${what} matched.` },
      truncated: { type: 'boolean', description: `More ${what} matched than items holds.` },
    },
  }) as const;
const CONTENT_EVIDENCE = evidence('ContentEvidence', 'chunks', CONTENT_EVIDENCE_ITEM);
const METADATA_EVIDENCE = evidence('MetadataEvidence', 'metadata leaves', METADATA_EVIDENCE_ITEM);
const DOCUMENT_VERSION = {
  title: 'DocumentVersion',
  description: 'A Document Version: a document and one of its versions.',
  type: 'object',
  required: ['document_id', 'version_id'],
  properties: { document_id: { type: 'string' }, version_id: NULLABLE_STRING },
} as const;
/** A queued job as an accepting route answers it. */
const ACCEPTED_JOB = {
  type: 'object',
  required: ['job_id', 'status'],
  properties: { job_id: { type: 'string' }, status: { type: 'string', enum: ['pending'], description: 'The job is queued.' } },
} as const;

/** One hit of POST /search: a Document Version with the evidence that supports it (SPEC.md "Evidence Result"). */
const EVIDENCE_RESULT = {
  title: 'EvidenceResult',
  description: 'A Document Version that matched, with the evidence that supports it.',
  type: 'object',
  required: ['rank', 'document_version', 'canonical_metadata', 'retrieval_contributions', 'content_evidence', 'metadata_evidence'],
  properties: {
    rank: { type: 'integer', minimum: 1 },
    document_version: DOCUMENT_VERSION,
    canonical_metadata: { ...FREE_OBJECT, description: 'schema_version "2" groups: source, document, location, classification, quality, extracted, custom.' },
    retrieval_contributions: {
      type: 'array',
      items: { type: 'object', required: ['lane', 'rank'], properties: { lane: { type: 'string', enum: ['content', 'metadata'] }, rank: { type: 'integer', minimum: 1, description: 'The rank the lane gave the result, from 1.' } } },
    },
    content_evidence: CONTENT_EVIDENCE,
    metadata_evidence: METADATA_EVIDENCE,
  },
} as const;

const FACET_COUNTS = {
  title: 'FacetCounts',
  description: 'Counts of the matched Document Versions holding each value of one path, most frequent first, ties by value ascending.',
  type: 'object',
  required: ['values', 'other_count', 'is_lower_bound'],
  properties: {
    values: {
      type: 'array',
      description: 'At most facet_limit values with their counts.',
      items: {
        type: 'object',
        required: ['value', 'count'],
        properties: { value: { type: ['string', 'number', 'boolean'], description: 'A value of the path, or the ISO prefix of a date bucket.' }, count: { type: 'integer', minimum: 1, description: 'Matched versions holding the value (once each).' } },
      },
    },
    other_count: { type: 'integer', minimum: 0, description: 'The counts of the values beyond facet_limit, summed.' },
    is_lower_bound: { type: 'boolean', description: 'As total_is_lower_bound: a lane stopped at its candidate cap.' },
  },
} as const;

const FACETS = { type: 'object', additionalProperties: FACET_COUNTS, description: 'Only when facets were asked for: their counts by path, as the request named it.' } as const;

const SEARCH_ANSWER = {
  title: 'SearchResponse',
  description: 'Ranked results of the requested page, with evidence.',
  type: 'object',
  required: ['results', 'meta'],
  properties: {
    results: { type: 'array', items: EVIDENCE_RESULT, description: 'The results of the page, best first.' },
    meta: {
      description: 'The query, paging and how the answer was read.',
      type: 'object',
      required: ['query', 'total', 'total_is_lower_bound', 'offset', 'limit', 'has_more', 'query_time_ms', 'retrieval', 'applied_filters', 'publication_view'],
      properties: {
        query: { type: 'string', description: 'The query, as sent.' },
        total: { type: 'integer', minimum: 0, description: 'Results found within the retrieval window (offset + limit at most 200).' },
        total_is_lower_bound: { type: 'boolean' },
        offset: { type: 'integer', minimum: 0 },
        limit: { type: 'integer', minimum: 1, description: 'The page size asked for.' },
        has_more: { type: 'boolean' },
        query_time_ms: { type: 'integer', minimum: 0 },
        retrieval: { type: 'object', required: ['alpha', 'reranked', 'reranked_count'], properties: { alpha: { type: 'number' }, reranked: { type: 'boolean' }, reranked_count: { type: 'integer' } } },
        applied_filters: FREE_OBJECT,
        publication_view: { type: 'string', enum: ['ready', 'pinned_ready'] },
        facets: FACETS,
      },
    },
  },
} as const;

const JOB_STATES = ['pending', 'started', 'processing', 'retrying', 'completed', 'failed', 'partial_failed', 'superseded'];
const JOB_VIEW = {
  title: 'JobStatus',
  description: 'A job, rendered by its state: common fields, then those of its state and operation (SPEC.md GET /status).',
  type: 'object',
  required: ['job_id', 'document_id', 'status', 'operation'],
  properties: {
    job_id: { type: 'string' },
    document_id: { type: 'string', description: 'The document the job works on; empty for a backfill job.' },
    status: { type: 'string', enum: JOB_STATES, description: 'The job state; completed, failed, partial_failed and superseded do not change again.' },
    operation: { type: 'string', enum: ['embed', 'metadata_update', 'metadata_backfill'] },
    // What each state and operation adds (SPEC.md GET /status), present only where the table lists it.
    search_ready: { type: 'boolean', description: 'completed upload: this api process serves the job generation or a newer one.' },
    snapshot_generation: { type: ['integer', 'null'], description: 'completed upload: the generation this api process serves for the document.' },
    chunks_created: { type: 'integer', description: 'completed or partial_failed upload.' },
    categories: { type: 'array', items: {}, description: 'completed upload: the document categories the classifier chose.' },
    classification_status: { type: 'string', description: 'completed upload: how classification ended.' },
    entities_extracted: { ...FREE_OBJECT, description: 'completed or partial_failed upload: entity lists by kind.' },
    created_at: { type: 'string' },
    completed_at: { type: ['string', 'null'] },
    metadata_ready: { type: 'boolean', description: 'completed publication-backed upload: readiness convergence committed ready.' },
    readiness_state: { type: 'string', enum: ['not_started', 'backfilling', 'ready', 'blocked'] },
    error: { type: ['string', 'null'], description: 'failed, partial_failed and retrying: the legible cause; null when superseded.' },
    error_details: { ...FREE_OBJECT, description: 'A quota or metadata-contract failure: code, path or quota, observed, limit, unit.' },
    retry_count: { type: 'integer', description: 'retrying: attempts made so far.' },
    max_retries: { type: 'integer', description: 'retrying: attempts allowed before the job fails.' },
    next_retry_in_seconds: { type: 'integer', description: 'retrying: seconds until the next attempt.' },
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
    versions_backfilled: { type: 'integer', description: 'backfill: versions brought to the metadata lane.' },
    versions_pending: { type: 'integer', description: 'backfill: versions still to do.' },
    versions_blocked: { type: 'integer', description: 'backfill: versions whose metadata breaks the contract.' },
    violations: { type: 'array', items: FREE_OBJECT, description: 'backfill: remediation entries (document identity, path, cap; never a value).' },
    violations_total: { type: 'integer' },
    violations_truncated: { type: 'boolean' },
  },
} as const;

const DOCUMENT_SUMMARY = {
  title: 'DocumentSummary',
  description: 'A Document Version as GET /documents lists it.',
  type: 'object',
  required: ['document_id', 'version_id', 'metadata', 'chunk_count', 'created_at'],
  properties: {
    document_id: { type: 'string' },
    version_id: NULLABLE_STRING,
    metadata: { ...FREE_OBJECT, description: 'The version\'s canonical metadata (schema_version "2").' },
    chunk_count: { type: 'integer', minimum: 0 },
    created_at: { type: 'string' },
    deleted: { type: 'boolean', description: 'Only with include_deleted=true: the version is soft-deleted.' },
    deleted_at: { type: ['string', 'null'], description: 'Only with include_deleted=true: when it was soft-deleted.' },
    deleted_by: { type: ['string', 'null'], description: 'Only with include_deleted=true: the resolved client id that deleted it.' },
  },
} as const;

const DOCUMENT_LIST = {
  type: 'object',
  required: ['documents', 'total', 'limit', 'offset', 'has_more'],
  properties: {
    documents: { type: 'array', items: DOCUMENT_SUMMARY },
    total: { type: 'integer', minimum: 0, description: 'Document Versions that match, on every page.' },
    limit: { type: 'integer', minimum: 1, description: 'The page size asked for.' },
    offset: { type: 'integer', minimum: 0 },
    has_more: { type: 'boolean' },
    facets: FACETS,
  },
} as const;

const READINESS = {
  title: 'DiscoveryReadiness',
  description: "The Client's Metadata Discovery readiness: whether scope metadata and both can be served.",
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
  title: 'Health',
  description: 'The health of every component and whether publication is safe to serve.',
  type: 'object',
  required: ['status', 'version', 'components', 'publishing'],
  properties: {
    status: { type: 'string', enum: ['healthy', 'degraded'], description: 'healthy when every component is ok.' },
    version: { type: 'string' },
    components: {
      type: 'object',
      additionalProperties: { type: 'string', enum: ['ok', 'error'] },
      description: 'Each component (api, state_store, vector_store, worker_queue, and classifier and publication where enabled): ok or error.',
    },
    publishing: {
      type: 'object',
      description: 'Whether publication is safe to serve.',
      required: ['status', 'reason', 'authority_mode'],
      properties: {
        status: { type: 'string', enum: ['ready', 'degraded', 'unavailable'], description: 'ready, degraded (fencing: reads pinned) or unavailable (serving is unsafe).' },
        reason: { ...NULLABLE_STRING, description: 'Why publishing is not ready (fencing, maintenance, recovering, authority_unreadable); null when ready.' },
        authority_mode: { type: 'string' },
      },
    },
    diagnostics: { ...FREE_OBJECT, description: 'Present when publication is enabled: diagnostics.publication.' },
  },
} as const;

const AUTHORITY_MODES = ['READY', 'MAINTENANCE', 'FENCING'];

const UPDATE_ACCEPTED = {
  ...ACCEPTED_JOB,
  title: 'UpdateAccepted',
  description: 'A queued metadata update.',
  required: [...ACCEPTED_JOB.required, 'document_id', 'version_id', 'updated_fields'],
  properties: { ...ACCEPTED_JOB.properties, document_id: { type: 'string' }, version_id: { ...NULLABLE_STRING, description: 'The one version the update changes; null when it changes every version of the document.' }, updated_fields: { type: 'array', items: { type: 'string' } } },
} as const;

const BACKFILL_ACCEPTED = {
  ...ACCEPTED_JOB,
  title: 'BackfillAccepted',
  description: 'A queued Metadata Discovery backfill.',
  required: [...ACCEPTED_JOB.required, 'operation', 'client_id'],
  properties: { ...ACCEPTED_JOB.properties, operation: { type: 'string', enum: ['metadata_backfill'] }, client_id: { type: 'string' } },
} as const;

const IMPORT_ACCEPTED = {
  title: 'ImportAccepted',
  description: 'The embed jobs an import queued.',
  type: 'object',
  required: ['client_id', 'jobs', 'skipped'],
  properties: {
    client_id: { type: 'string', description: 'The Client imported into.' },
    jobs: {
      type: 'array',
      description: 'One queued embed job per version the Client did not hold (empty when it held them all).',
      items: {
        type: 'object',
        required: ['job_id', 'status', 'operation', 'document_id', 'version_id'],
        properties: {
          job_id: { type: 'string' },
          status: { type: 'string', enum: ['pending'], description: 'The job is queued.' },
          operation: { type: 'string', enum: ['embed'] },
          document_id: { type: 'string' },
          version_id: NULLABLE_STRING,
        },
      },
    },
    skipped: { type: 'integer', minimum: 0, description: 'Versions not queued: the Client holds them, or an embed job of theirs has not ended.' },
  },
} as const;

const WEB_RESULT = {
  title: 'WebResult',
  description: 'A page of the public web the provider found.',
  type: 'object',
  required: ['source', 'title', 'url', 'snippet', 'rank'],
  properties: {
    source: { type: 'string', enum: ['web'], description: 'Always web: the result is not a document of the Client.' },
    title: { type: 'string', description: 'The page title.' },
    url: { type: 'string', description: 'The page address.' },
    snippet: { type: 'string', description: 'The text the provider quotes from the page.' },
    rank: { type: 'integer', minimum: 1 },
  },
} as const;

const WEBHOOK_EVENT_NAMES = ['job.completed', 'job.failed', 'job.partial_failed', 'job.superseded'];
const WEBHOOK = {
  title: 'Webhook',
  description: 'A registered webhook (its secret is never shown).',
  type: 'object',
  required: ['webhook_id', 'url', 'events', 'created_at'],
  properties: {
    webhook_id: { type: 'string' },
    url: { type: 'string', description: 'Where deliveries are POSTed.' },
    events: { type: 'array', items: { type: 'string', enum: WEBHOOK_EVENT_NAMES }, description: 'The job outcomes delivered.' },
    created_at: { type: 'string' },
  },
} as const;
const WEBHOOK_DELIVERY = {
  title: 'WebhookDelivery',
  description: 'One delivery of one job outcome to the webhook, as its log shows it.',
  type: 'object',
  required: ['delivery_id', 'job_id', 'event', 'status', 'attempts', 'last_status_code', 'last_error', 'next_attempt_at', 'created_at', 'delivered_at'],
  properties: {
    delivery_id: { type: 'string', description: 'The delivery_id of its body: a receiver that sees it twice has it already.' },
    job_id: { type: 'string' },
    event: { type: 'string', enum: WEBHOOK_EVENT_NAMES, description: 'The job outcome delivered.' },
    status: { type: 'string', enum: ['pending', 'delivered', 'failed'], description: 'pending (waiting for an attempt), delivered (answered 2xx) or failed (given up after about an hour).' },
    attempts: { type: 'integer', minimum: 0, description: 'Attempts made so far (one cut off by a stopped worker counts).' },
    last_status_code: { type: ['integer', 'null'], description: "The receiver's HTTP status at the last attempt; null before any, or when it did not answer." },
    last_error: { ...NULLABLE_STRING, description: 'Why the last attempt did not deliver (a status, a timeout, a refused address).' },
    next_attempt_at: { ...NULLABLE_STRING, description: 'When the next attempt is due, while pending.' },
    created_at: { type: 'string', description: 'When the outcome was recorded.' },
    delivered_at: NULLABLE_STRING,
  },
} as const;

/** Keyed by method and the route's path as registered (`:param`). */
export const ROUTE_RESPONSES: Readonly<Record<string, RouteResponses>> = {
  'GET /health': {
    success: { status: 200, description: 'Serving is safe (READY or FENCING); components and the publishing block.', schema: HEALTH },
    errors: [500],
    bodies: { 503: { ...HEALTH, description: 'Publication is enabled and serving is unsafe: the same health answer, components.publication error.' } },
  },
  'POST /search': { success: { status: 200, description: 'Ranked results of the requested page, with evidence.', schema: SEARCH_ANSWER }, errors: [...CLIENT_ROUTE, 400, 409, 422, SNAPSHOT_READ] },
  'POST /similar': { success: { status: 200, description: 'The versions most like the given one, best first, with evidence.', schema: SEARCH_ANSWER }, errors: [...CLIENT_ROUTE, 400, 404, 422, SNAPSHOT_READ] },
  'GET /settings/synonyms': { success: { status: 200, description: "The Client's synonym set ({\"synonyms\": []} when none).", schema: SYNONYMS_BODY_SCHEMA }, errors: [...CLIENT_ROUTE] },
  'PUT /settings/synonyms': { success: { status: 200, description: 'The set accepted: it holds for every search that starts from now on.', schema: SYNONYMS_BODY_SCHEMA }, errors: [...CLIENT_ROUTE, 400, 422, STORE_WRITE] },
  'POST /embed': { success: { status: 202, description: 'Accepted: the upload is queued; poll GET /status/{job_id}.' }, errors: [...CLIENT_ROUTE, 403, 413, 415, 422, 503, STORE_WRITE] },
  'GET /status/:job_id': { success: { status: 200, description: 'The job, rendered by its state: common fields, then those of its state and operation (SPEC.md GET /status).', schema: JOB_VIEW }, errors: [...CLIENT_ROUTE, 404, SNAPSHOT_READ] },
  'GET /documents': { success: { status: 200, description: 'A page of Document Version summaries.', schema: DOCUMENT_LIST }, errors: [...CLIENT_ROUTE, 400, 422, SNAPSHOT_READ] },
  'GET /document/:document_id/text': { success: { status: 200, description: 'The document text resource.' }, errors: [...CLIENT_ROUTE, 400, 404, 422, SNAPSHOT_READ] },
  'DELETE /document/:document_id': {
    success: {
      status: 200,
      description: 'The versions deleted (soft or hard).',
      schema: {
        type: 'object',
        required: ['document_id', 'deleted_chunks', 'status'],
        properties: { document_id: { type: 'string' }, deleted_chunks: { type: 'integer', minimum: 0 }, status: { type: 'string', enum: ['soft_deleted', 'hard_deleted'], description: 'soft_deleted (restorable) or hard_deleted (erased).' } },
      },
    }, errors: [...CLIENT_ROUTE, 400, 404, 503, STORE_WRITE] },
  'POST /document/:document_id/restore': {
    success: {
      status: 200,
      description: 'The versions restored.',
      schema: { type: 'object', required: ['document_id', 'restored_chunks', 'status'], properties: { document_id: { type: 'string' }, restored_chunks: { type: 'integer', minimum: 0 }, status: { type: 'string', enum: ['restored'], description: 'The versions are searchable again.' } } },
    }, errors: [...CLIENT_ROUTE, 400, 404, 503, STORE_WRITE] },
  'PATCH /update': {
    success: {
      status: 202,
      description: 'Accepted: the metadata update is queued; poll GET /status/{job_id}.',
      schema: UPDATE_ACCEPTED,
    }, errors: [...CLIENT_ROUTE, 400, 422, 503, STORE_WRITE] },
  'GET /metrics': {
    success: { status: 200, description: 'Operator: Prometheus text exposition of every process of the deployment.', schema: { content: { 'text/plain': { schema: { type: 'string', description: 'Prometheus text format 0.0.4.' } } } } },
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
        properties: {
          authority_mode: { type: 'string' },
          authority_id: NULLABLE_STRING,
          changed_at: NULLABLE_STRING,
          enabled: { type: 'boolean', description: 'Publication authority is enabled in this deployment (otherwise DISABLED).' },
          process_id: { type: 'integer' },
          recovered_at: NULLABLE_STRING,
          serving: { ...FREE_OBJECT, description: 'What this process serves: Clients, versions and chunks in its snapshots, and forced collections.' },
          memory: { ...FREE_OBJECT, description: "This process's memory in bytes (process.memoryUsage) and its segment thread's isolate." },
        },
      },
    },
    errors: [...OPERATOR_ROUTE, 503],
  },
  'POST /admin/authority/mode': {
    success: { status: 200, description: 'The authority mode set.', schema: { type: 'object', required: ['authority_mode'], properties: { authority_mode: { type: 'string', enum: AUTHORITY_MODES, description: 'The mode now recorded.' } } } },
    errors: [...OPERATOR_ROUTE, 422, 503, STORE_WRITE],
  },
  'POST /admin/backfill': {
    success: {
      status: 202,
      description: 'Accepted: the backfill is queued; the Client polls GET /status/{job_id}.',
      schema: BACKFILL_ACCEPTED,
    }, errors: [...OPERATOR_ROUTE, 404, 422, 503, STORE_WRITE] },
  'GET /admin/clients/:client_id/export': {
    success: {
      status: 200,
      description: 'Operator: the Client as NDJSON (hds-export/1): a header line, then one line per Document Version.',
      schema: { content: { 'application/x-ndjson': { schema: { type: 'string', description: 'Lines of JSON: {"format":"hds-export/1", client_id, exported_at}, then each version with its identity, created_at, filename, canonical_metadata, custom_metadata, deletion markers and chunks (index, page, page_label, text).' } } } },
    },
    errors: [...OPERATOR_ROUTE, 400, 404],
  },
  'POST /admin/clients/:client_id/import': {
    success: { status: 202, description: 'Accepted: one embed job queued per version the Client did not hold; each is followed with GET /status/{job_id}.', schema: IMPORT_ACCEPTED },
    errors: [...OPERATOR_ROUTE, 400, 404, 413, 415, 422, STORE_WRITE],
  },
  'POST /admin/clients': {
    success: { status: 201, description: 'The Client is created.', schema: { type: 'object', required: ['client_id', 'created_at'], properties: { client_id: { type: 'string' }, created_at: { type: 'string' } } } },
    errors: [...OPERATOR_ROUTE, 409, 422, STORE_WRITE],
  },
  'GET /admin/clients': {
    success: { status: 200, description: 'Every Client (those of API_KEY_CLIENTS too), with what each holds.', schema: { type: 'object', required: ['clients'], properties: { clients: { type: 'array', items: CLIENT_VIEW, description: 'Those of API_KEY_CLIENTS first, in their order, then the others by id.' } } } },
    errors: [...OPERATOR_ROUTE],
  },
  'PATCH /admin/clients/:client_id': { success: { status: 200, description: 'The Client as changed.', schema: CLIENT_VIEW }, errors: [...OPERATOR_ROUTE, 404, 422, STORE_WRITE] },
  'POST /admin/clients/:client_id/keys': { success: { status: 201, description: 'The key is issued; its secret is in this answer only.', schema: NEW_KEY }, errors: [...OPERATOR_ROUTE, 404, 422, STORE_WRITE] },
  'GET /admin/clients/:client_id/keys': {
    success: { status: 200, description: "The Client's keys issued at runtime and not revoked, without secrets.", schema: { type: 'object', required: ['keys'], properties: { keys: { type: 'array', items: KEY_VIEW, description: 'Oldest first.' } } } },
    errors: [...OPERATOR_ROUTE, 404],
  },
  'DELETE /admin/keys/:key_id': { success: { status: 204, description: 'The key is revoked: it answers 401 on every api process within 1 s.', schema: { type: 'null' } }, errors: [...OPERATOR_ROUTE, 404, STORE_WRITE] },
  'GET /web-search/capabilities': {
    success: { status: 200, description: 'Whether web search is enabled.', schema: { type: 'object', required: ['enabled'], properties: { enabled: { type: 'boolean', description: 'WEB_SEARCH_ENABLED is on and a provider is configured.' } } } },
    errors: [...CLIENT_ROUTE],
  },
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
            description: 'The web results, best first.',
            items: WEB_RESULT,
          },
          meta: {
            type: 'object',
            description: 'Which provider answered and how.',
            required: ['provider', 'status', 'count', 'query_time_ms'],
            properties: {
              provider: { ...NULLABLE_STRING, description: 'The configured provider; null when none is.' },
              status: { type: 'string', enum: ['ok', 'no_results', 'timeout', 'rate_limited', 'unavailable', 'provider_error'], description: 'How the provider answered: anything but ok and no_results means results is empty by failure.' },
              count: { type: 'integer', minimum: 0, description: 'How many results there are.' },
              query_time_ms: { type: 'integer', minimum: 0 },
            },
          },
        },
      },
    }, errors: [...CLIENT_ROUTE, 422] },
  'POST /webhooks': { success: { status: 201, description: 'The webhook registered.', schema: WEBHOOK }, errors: [...CLIENT_ROUTE, 422, STORE_WRITE] },
  'GET /webhooks': {
    success: { status: 200, description: "The Client's webhooks, oldest first.", schema: { type: 'object', required: ['webhooks'], properties: { webhooks: { type: 'array', items: WEBHOOK } } } },
    errors: [...CLIENT_ROUTE],
  },
  'DELETE /webhooks/:webhook_id': {
    success: {
      status: 200,
      description: 'The webhook removed, with its deliveries (none pending is sent after).',
      schema: { type: 'object', required: ['webhook_id', 'deleted'], properties: { webhook_id: { type: 'string' }, deleted: { type: 'boolean', enum: [true], description: 'Always true: the webhook and its deliveries are gone.' } } },
    },
    errors: [...CLIENT_ROUTE, 400, 404, STORE_WRITE],
  },
  'GET /webhooks/:webhook_id/deliveries': {
    success: {
      status: 200,
      description: 'The newest 100 deliveries of the webhook, newest first.',
      schema: { type: 'object', required: ['webhook_id', 'deliveries'], properties: { webhook_id: { type: 'string' }, deliveries: { type: 'array', items: WEBHOOK_DELIVERY } } },
    },
    errors: [...CLIENT_ROUTE, 400, 404],
  },
};

const RETRY_AFTER = { 'Retry-After': { type: 'integer', minimum: 1, description: 'Seconds to wait before repeating the request.' } };
/** What every answer of a rate-limited route tells of the budget that decided it (rate-limit-headers.ts). */
export const RATE_LIMIT_HEADER_DOCS = {
  [RATE_LIMIT_HEADERS.limit]: { type: 'integer', minimum: 1, description: "Requests a window allows: RATE_LIMIT_PER_MINUTE, or for POST /search SEARCH_RATE_LIMIT_PER_MINUTE when the search counter is the tighter." },
  [RATE_LIMIT_HEADERS.remaining]: { type: 'integer', minimum: 0, description: 'Requests the window has room for after this one (0 on a 429).' },
  [RATE_LIMIT_HEADERS.reset]: { type: 'integer', minimum: 0, description: "Seconds until the window's oldest request leaves it and a slot is free again (on a 429, Retry-After)." },
} as const;

/** Whether an error status comes with Retry-After: the rate limit's, or a catalogue entry's. */
function retries(status: number): boolean {
  return status === 429 || Object.values(ERROR_CATALOGUE).some((entry) => entry.status === status && entry.retryAfterSeconds !== null);
}

/** What every route's envelope of one error status says: its catalogue codes, and Retry-After where it applies. */
export function errorResponseDescription(status: number): string {
  const codes = [...new Set(Object.values(ERROR_CATALOGUE).filter((entry) => entry.status === status).map((entry) => entry.errorCode))];
  return `error_code ${codes.join(', ')}.${retries(status) ? ' Retry-After says when to repeat the request.' : ''}`;
}

/** The envelope of one error status, the same on every route that answers it (a shared response of the document). */
function errorResponse(status: number): object {
  const envelope = { ...envelopeSchema(errorResponseDescription(status)), title: 'ErrorEnvelope' };
  return retries(status) ? { ...envelope, headers: RETRY_AFTER } : envelope;
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
    const documented = schema as { summary?: string; description?: string; operationId?: string };
    documented.operationId ??= examples.operationId;
    documented.summary ??= examples.summary;
    documented.description ??= examples.description;
    if (examples.request !== undefined && schema.body) schema.body = { ...(schema.body as object), examples: [examples.request] };
  }
  const response = { ...(schema.response as Record<string, unknown> | undefined) };
  response[declared.success.status] ??= { ...declared.success.schema, description: declared.success.description };
  if (examples?.response !== undefined) response[declared.success.status] = { ...(response[declared.success.status] as object), examples: [examples.response] };
  for (const status of declared.errors) response[status] ??= errorResponse(status);
  // A route with a budget tells it on every answer; the document says so on the success and the 429.
  if (declared.errors.includes(429)) {
    const success = response[declared.success.status] as { headers?: object };
    response[declared.success.status] = { ...success, headers: { ...success.headers, ...RATE_LIMIT_HEADER_DOCS } };
    const refused = response[429] as { headers?: object };
    response[429] = { ...refused, headers: { ...refused.headers, ...RATE_LIMIT_HEADER_DOCS } };
  }
  for (const [status, body] of Object.entries(declared.bodies ?? {})) response[status] ??= body;
  schema.response = response;
}

/** The error envelope as a component (SPEC.md "Errors"): each error status's shared response holds it. */
const ERROR_ENVELOPE_SCHEMA = {
  ...envelopeSchema('The error envelope: what went wrong for a person (detail) and for a program (error_code), and the request id.'),
  title: 'ErrorEnvelope',
};

const DOCUMENT_TEXT = TEXT_RESPONSES[200];

/** The components of the document by name: each shape above that carries a title (openapi-document.ts). */
export const SCHEMA_COMPONENTS: Readonly<Record<string, object>> = Object.fromEntries(
  [
    ERROR_ENVELOPE_SCHEMA, SEARCH_BODY_SCHEMA, SEARCH_ANSWER, TEXT_UPLOAD_SCHEMA, UPLOAD_REQUEST_BODY.content['multipart/form-data'].schema, EVIDENCE_RESULT, DOCUMENT_VERSION, CONTENT_EVIDENCE, CONTENT_EVIDENCE_ITEM, METADATA_EVIDENCE,
    METADATA_EVIDENCE_ITEM, HIGHLIGHT, UPLOAD_ACCEPTED, UPDATE_ACCEPTED, BACKFILL_ACCEPTED, IMPORT_ACCEPTED, JOB_VIEW, DOCUMENT_SUMMARY, DOCUMENT_TEXT, CHUNK, ROW_RANGE, READINESS,
    HEALTH, WEB_RESULT, CLIENT_VIEW, KEY_VIEW, NEW_KEY, WEBHOOK_BODY_SCHEMA, WEBHOOK, WEBHOOK_DELIVERY,
  ].map((schema) => [schema.title, schema]),
);

const pick = (names: readonly string[]) => Object.fromEntries(names.map((name) => [name, (JOB_VIEW.properties as Record<string, object>)[name]]));
/**
 * GET /status's fields by the operation that adds them (SPEC.md GET /status), as the document shows a job's
 * status: JobStatus is all of them (openapi-document.ts checks that each field is in exactly one part).
 */
export const JOB_STATUS_PARTS: Readonly<Record<string, object>> = {
  JobStatusCommon: {
    description: 'What every job has, whatever its operation; what a retrying, failed or superseded job adds; and what several operations share (readiness_state: uploads and backfills; versions_total and versions_completed: updates and backfills).',
    type: 'object',
    required: JOB_VIEW.required,
    properties: pick(['job_id', 'document_id', 'status', 'operation', 'created_at', 'completed_at', 'error', 'error_details', 'retry_count', 'max_retries', 'next_retry_in_seconds', 'publication_status', 'superseded_by_job_id', 'superseded_reason', 'readiness_state', 'versions_total', 'versions_completed']),
  },
  UploadJobStatus: {
    description: 'What an upload (operation embed) adds once it ends.',
    type: 'object',
    properties: pick(['search_ready', 'snapshot_generation', 'chunks_created', 'categories', 'classification_status', 'entities_extracted', 'metadata_ready']),
  },
  MetadataUpdateJobStatus: {
    description: 'What a metadata update (operation metadata_update, PATCH /update) adds.',
    type: 'object',
    properties: pick(['version_id', 'updated_fields', 'updated_fields_count', 'updated_fields_truncated', 'versions_unchanged', 'updated_chunks', 'cleanup_tasks_scheduled']),
  },
  BackfillJobStatus: {
    description: 'What a Metadata Discovery backfill (operation metadata_backfill) adds.',
    type: 'object',
    properties: pick(['versions_backfilled', 'versions_pending', 'versions_blocked', 'violations', 'violations_total', 'violations_truncated']),
  },
};
