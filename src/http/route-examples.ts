// What /openapi.json says of each route besides its schemas: the operationId generators name its method after, a
// one-line summary, a description, an example of its success body and, for routes that take one, of its JSON
// request body. test/e2e/openapi.test.ts checks every example against
// the schema it illustrates.

export interface RouteExamples {
  /** The operation's name in generated clients (camelCase, unique in the document). */
  operationId: string;
  summary: string;
  /** What a caller needs beyond the summary: when to call it, what it waits for, what its refusals mean. */
  description: string;
  /** The success body (JSON routes). */
  response?: unknown;
  /** The JSON request body. */
  request?: unknown;
}

const JOB_ID = '3f6c2a0e-8d1b-4c5e-9a7f-2b4d6e8f0a1c';
const WEBHOOK_ID = '5a7c9e1b-3d5f-4a6c-8e0b-2d4f6a8c0e1f';

/** Keyed like ROUTE_RESPONSES: method and the path as registered (`:param`). */
export const ROUTE_EXAMPLES: Readonly<Record<string, RouteExamples>> = {
  'GET /health': {
    operationId: 'getHealth',
    summary: 'Health of every component and whether publication is safe to serve',
    description:
      'Never needs a key and is never rate limited. Answers 200 while serving is safe (healthy, or degraded when a component other than publication fails) and 503 with the same body when publication is enabled and serving is unsafe (maintenance, recovering, or an unreadable authority record). version equals info.version of this document.',
    response: { status: 'healthy', version: '0.1.0', components: { api: 'ok', state_store: 'ok', vector_store: 'ok', worker_queue: 'ok', classifier: 'ok', publication: 'ok' }, publishing: { status: 'ready', reason: null, authority_mode: 'READY' } },
  },
  'POST /search': {
    operationId: 'search',
    summary: 'Search document text (dense + keyword), typed metadata, or both, with filters and reranking',
    description:
      'Ranks the Client\'s Document Versions by the query: scope content searches the text (dense and keyword lanes fused by alpha, optionally reranked), metadata the typed metadata leaves, both the two together. filters narrow by exact metadata values. metadata and both need the Client\'s Metadata Discovery to be ready (409 otherwise, with Retry-After while it backfills); every scope fails closed with 503 while publication cannot be proven.',
    request: { query: 'opening balance March', scope: 'content', alpha: 0.5, limit: 10, filters: { 'metadata.custom.branch': 'KL' }, highlight: true },
    response: {
      results: [
        {
          rank: 1,
          document_version: { document_id: 'stmt-2024-03', version_id: 'stmt-2024-03' },
          canonical_metadata: { schema_version: '2', source: { filename: 'march.pdf', mime_type: 'application/pdf', extension: 'pdf' }, custom: { branch: 'KL' } },
          retrieval_contributions: [{ lane: 'content', rank: 1 }],
          content_evidence: { items: [{ chunk_id: 'stmt-2024-03:7:0', chunk_index: 0, text: 'Opening balance as at 1 March 2024: RM 12,480.00', page: 1, highlights: [{ start: 0, end: 7 }, { start: 8, end: 15 }, { start: 27, end: 32 }] }], total: 1, truncated: false },
          metadata_evidence: { items: [], total: 0, truncated: false },
        },
      ],
      meta: { query: 'opening balance March', total: 1, total_is_lower_bound: false, offset: 0, limit: 10, has_more: false, query_time_ms: 4, retrieval: { alpha: 0.5, reranked: false, reranked_count: 0 }, applied_filters: { 'metadata.custom.branch': 'KL' }, publication_view: 'ready' },
    },
  },
  'POST /similar': {
    operationId: 'similarDocuments',
    summary: 'The Document Versions most like a given one (its content, both lanes), with filters',
    description:
      "Starts from a document (its latest visible version, or version_id): its most distinctive terms are the keyword query and the mean of its chunks' vectors the dense one. Every version of that document is left out; filters, include_deleted and a confined key narrow the candidates as in POST /search. An unknown document, or another Client's, is 404; 503 while publication cannot be proven.",
    request: { document_id: 'stmt-2024-03', limit: 5, filters: { 'metadata.custom.branch': 'KL' } },
    response: {
      results: [
        {
          rank: 1,
          document_version: { document_id: 'stmt-2024-04', version_id: 'stmt-2024-04' },
          canonical_metadata: { schema_version: '2', source: { filename: 'april.pdf', mime_type: 'application/pdf', extension: 'pdf' }, custom: { branch: 'KL' } },
          retrieval_contributions: [{ lane: 'content', rank: 1 }],
          content_evidence: { items: [{ chunk_id: 'stmt-2024-04:9:0', chunk_index: 0, text: 'Opening balance as at 1 April 2024: RM 11,902.50', page: 1 }], total: 1, truncated: false },
          metadata_evidence: { items: [], total: 0, truncated: false },
        },
      ],
      meta: { query: '', total: 1, total_is_lower_bound: false, offset: 0, limit: 5, has_more: false, query_time_ms: 6, retrieval: { alpha: 0.5, reranked: false, reranked_count: 0 }, applied_filters: { 'metadata.custom.branch': 'KL' }, publication_view: 'ready' },
    },
  },
  'GET /settings/synonyms': {
    operationId: 'getSynonyms',
    summary: "The Client's synonym set",
    description: 'The multi-way sets and one-way rules the content lane widens keyword queries with, as last accepted by PUT /settings/synonyms; {"synonyms": []} when none.',
    response: { synonyms: [{ terms: ['bil', 'invois', 'invoice'] }, { input: 'penyata', synonyms: ['statement'] }] },
  },
  'PUT /settings/synonyms': {
    operationId: 'setSynonyms',
    summary: "Replace the Client's synonym set",
    description:
      'Replaces the whole set (at most 10,000 rules): {"terms": [...]} makes each term find the others, {"input": "...", "synonyms": [...]} makes the input also find the synonyms. They widen the keyword part of the content lane only; the metadata lane matches words as written. Holds for every search that starts after the answer, on every api process. A bad rule is 422 and changes nothing.',
    request: { synonyms: [{ terms: ['bil', 'invois', 'invoice'] }, { input: 'penyata', synonyms: ['statement'] }] },
    response: { synonyms: [{ terms: ['bil', 'invois', 'invoice'] }, { input: 'penyata', synonyms: ['statement'] }] },
  },
  'POST /embed': {
    operationId: 'uploadDocument',
    summary: 'Upload a document (a file, or plain text) to be parsed, enriched, embedded and published',
    description:
      'Send a file as multipart/form-data (field file, with document_id and optionally version_id, metadata as a JSON object text, filename) or plain text as JSON. The answer is 202 with a pending job; the document is searchable once GET /status/{job_id} says completed with search_ready true. An upload with an existing document_id and version_id replaces that version. Refused whole with 403 when the Client is at a quota, 413 over MAX_UPLOAD_BYTES.',
    request: { document_id: 'memo-2024-07', text: 'Minutes of the treasury committee, 3 July 2024.', metadata: { branch: 'KL' } },
    response: { job_id: JOB_ID, status: 'pending', document_id: 'memo-2024-07', version_id: 'memo-2024-07' },
  },
  'GET /status/:job_id': {
    operationId: 'getJobStatus',
    summary: 'The state of an upload, metadata update or backfill job',
    description:
      'Poll it until status is completed, failed, partial_failed or superseded, honouring Retry-After on 429 and 503. The fields depend on the state and the operation (upload, metadata update, backfill). A job of another Client is 404, as one that does not exist.',
    response: {
      job_id: JOB_ID,
      document_id: 'memo-2024-07',
      status: 'completed',
      operation: 'embed',
      search_ready: true,
      snapshot_generation: 12,
      chunks_created: 1,
      categories: ['correspondence'],
      classification_status: 'completed',
      entities_extracted: { dates: ['3 July 2024'] },
      created_at: '2024-07-03T09:12:44.120Z',
      completed_at: '2024-07-03T09:12:45.031Z',
      metadata_ready: true,
      readiness_state: 'ready',
    },
  },
  'GET /documents': {
    operationId: 'listDocuments',
    summary: 'List Document Versions, filtered by metadata, page by page',
    description:
      'Pages through the Client\'s Document Versions with limit and offset; metadata_filter (a JSON object of exact values) narrows them, include_deleted adds soft-deleted ones.',
    response: { documents: [{ document_id: 'stmt-2024-03', version_id: 'stmt-2024-03', metadata: { schema_version: '2', source: { filename: 'march.pdf' }, custom: { branch: 'KL' } }, chunk_count: 14, created_at: '2024-04-01T02:00:00.000Z' }], total: 1, limit: 100, offset: 0, has_more: false },
  },
  'GET /document/:document_id/text': {
    operationId: 'getDocumentText',
    summary: "Read a document's text, chunk by chunk, in document order",
    description:
      'The chunks of the document\'s active version (or of version_id), with its metadata, classification, entities and embedding provenance. A long document is read page by page: follow next_chunk_offset while chunks_truncated is true.',
    response: {
      document_id: 'memo-2024-07',
      version_id: 'memo-2024-07',
      chunk_count: 1,
      created_at: '2024-07-03T09:12:44.120Z',
      chunk_offset: 0,
      chunks_truncated: false,
      next_chunk_offset: null,
      chunks: [{ id: 'memo-2024-07:12:0', index: 0, page: null, text: 'Minutes of the treasury committee, 3 July 2024.', char_count: 47, entities: { dates: ['3 July 2024'] }, vector_dim: 384, norm: 1, vector: null, language: 'en' }],
      metadata: { schema_version: '2', custom: { branch: 'KL' } },
      classification: { categories: ['correspondence'], status: 'completed' },
      entities: { dates: ['3 July 2024'] },
      embedding: { dense_model: 'hashing-384' },
    },
  },
  'DELETE /document/:document_id': {
    operationId: 'deleteDocument',
    summary: 'Soft-delete (restorable) or hard-delete a document, or one version of it',
    description:
      'mode soft (the default) hides the document, or one version of it with version_id, from search and listings until it is restored; mode hard erases its text, vectors and uploaded files for good.',
    response: { document_id: 'stmt-2024-03', deleted_chunks: 14, status: 'soft_deleted' },
  },
  'POST /document/:document_id/restore': {
    operationId: 'restoreDocument',
    summary: 'Restore a soft-deleted document, or one version of it',
    description:
      'Returns soft-deleted versions (all, or version_id) to search.',
    response: { document_id: 'stmt-2024-03', restored_chunks: 14, status: 'restored' },
  },
  'PATCH /update': {
    operationId: 'updateDocument',
    summary: "Correct a document's custom metadata (JSON Merge Patch) or its filename, as a job",
    description:
      'metadata is a JSON Merge Patch over metadata.custom (null removes a key); filename renames the source file. The update applies to every version of the document, or to version_id, as a job: 202 with the job, then poll GET /status/{job_id}. A patch that can never comply with the metadata contract is refused with 422 before anything is queued.',
    request: { document_id: 'stmt-2024-03', metadata: { branch: 'Penang', draft: null } },
    response: { job_id: JOB_ID, status: 'pending', document_id: 'stmt-2024-03', version_id: null, updated_fields: ['metadata.custom.branch', 'metadata.custom.draft'] },
  },
  'GET /metrics': {
    operationId: 'getMetrics',
    summary: 'Operator: Prometheus metrics of every process of the deployment',
    description:
      'Operator key only (OPERATOR_API_KEYS). Request counters and latency histograms, job gauges and process metrics of every api and worker process; a scrape spends no Client\'s rate-limit budget.',
  },
  'GET /discovery/readiness': {
    operationId: 'getDiscoveryReadiness',
    summary: 'Whether the metadata lane serves this Client yet',
    description:
      'Whether scope metadata and both can be searched: readiness_state ready, or not_started, backfilling (a backfill job runs) or blocked (versions break the metadata contract), with the version counts.',
    response: { readiness_state: 'ready', scopes_available: ['content', 'metadata', 'both'], contract_version: '2', versions_total: 42, versions_ready: 42, versions_blocked: 0, backfill_job_id: null, updated_at: '2024-07-03T09:12:45.031Z' },
  },
  'GET /admin/authority': {
    operationId: 'getAuthority',
    summary: 'Operator: the publication authority, and this api process',
    description:
      'Operator key only. The durable publication authority record (mode, id, when it changed) and what the answering api process serves.',
    response: { authority_mode: 'READY', authority_id: 'a1b2c3d4', changed_at: '2024-07-01T00:00:00.000Z', enabled: true, process_id: 4242, recovered_at: '2024-07-01T00:00:02.000Z', serving: { clients: 3 }, memory: { rss: 183500800 } },
  },
  'POST /admin/authority/mode': {
    operationId: 'setAuthorityMode',
    summary: 'Operator: take publication out of service (MAINTENANCE), pin reads (FENCING), or return to READY',
    description:
      'Operator key only. MAINTENANCE takes publication out of service (searches answer 503), FENCING pins reads to the last ready publication, READY returns to normal.',
    request: { mode: 'MAINTENANCE' },
    response: { authority_mode: 'MAINTENANCE' },
  },
  'POST /admin/backfill': {
    operationId: 'startBackfill',
    summary: "Operator: start a Client's Metadata Discovery backfill",
    description:
      'Operator key only. Brings every version of the Client into the metadata lane; the Client polls GET /status/{job_id} with its own key.',
    request: { client_id: 'dev-client' },
    response: { job_id: JOB_ID, status: 'pending', operation: 'metadata_backfill', client_id: 'dev-client' },
  },
  'GET /admin/clients/:client_id/export': {
    operationId: 'exportClient',
    summary: "Operator: export a Client's Document Versions as NDJSON",
    description:
      'Operator key only. Streams application/x-ndjson: a header line {"format":"hds-export/1", client_id, exported_at}, then one line per Document Version (soft-deleted ones too) with its identity, created_at, filename, canonical and custom metadata, deletion markers and chunks. POST /admin/clients/{client_id}/import reads it into any deployment, on either store.',
  },
  'POST /admin/clients/:client_id/import': {
    operationId: 'importClient',
    summary: 'Operator: import an export into a Client',
    description:
      'Operator key only. Takes an export (application/x-ndjson) and checks every line before it queues anything: a bad line is a 422 naming it. Then queues one embed job per version the Client does not hold (idempotent by document_id and version_id): each keeps its created_at, metadata and deletion markers, and its chunks are embedded again from their text.',
    response: { client_id: 'dev-client', jobs: [{ job_id: JOB_ID, status: 'pending', operation: 'embed', document_id: 'stmt-2024-03', version_id: null }], skipped: 0 },
  },
  'POST /admin/clients': {
    operationId: 'createClient',
    summary: 'Operator: create a Client',
    description: 'Operator key only. 409 client_exists when it exists (a Client named in API_KEY_CLIENTS exists without being created). Issue it keys with POST /admin/clients/{client_id}/keys.',
    request: { client_id: 'team-legal' },
    response: { client_id: 'team-legal', created_at: '2026-03-14T09:30:00.000Z' },
  },
  'GET /admin/clients': {
    operationId: 'listClients',
    summary: 'Operator: every Client with what it holds',
    description: 'Operator key only. The Clients of API_KEY_CLIENTS and those created at runtime, each with its state, its own rate limits and its documents, versions, chunks and text bytes.',
    response: { clients: [{ client_id: 'team-legal', created_at: '2026-03-14T09:30:00.000Z', disabled: false, rate_limit_per_minute: null, search_rate_limit_per_minute: null, documents: 12, versions: 14, chunks: 310, bytes: 402113 }] },
  },
  'PATCH /admin/clients/:client_id': {
    operationId: 'changeClient',
    summary: 'Operator: disable or enable a Client, set its rate limits',
    description: "Operator key only. disabled: true makes every key of the Client answer 401 on every api process within 1 s; a rate limit overrides the deployment's for this Client (null: the deployment's again).",
    request: { disabled: true },
    response: { client_id: 'team-legal', created_at: '2026-03-14T09:30:00.000Z', disabled: true, rate_limit_per_minute: null, search_rate_limit_per_minute: null, documents: 12, versions: 14, chunks: 310, bytes: 402113 },
  },
  'POST /admin/clients/:client_id/keys': {
    operationId: 'issueKey',
    summary: 'Operator: issue a key to a Client',
    description: 'Operator key only. The answer carries the secret (key) this once; only its hash is stored. scopes default to search, read and write (search and read with a filter); a filter (POST /search syntax) confines every read of the key and cannot go with write. Works on every api process within 1 s.',
    request: { scopes: ['search', 'read'], filter: { 'metadata.custom.team': 'legal' }, label: 'legal portal' },
    response: { key_id: '5d1e0c6b2a9f4e3d8c7b6a59', key: 'hds_5d1e0c6b2a9f4e3d8c7b6a59_Xq3v9mB2kP7sT0wY5zR1nL8cF4hJ6gD2aE9uK3oI7bQ', client_id: 'team-legal', scopes: ['search', 'read'], expires_at: null, filter: { 'metadata.custom.team': 'legal' }, label: 'legal portal', created_at: '2026-03-14T09:31:00.000Z' },
  },
  'GET /admin/clients/:client_id/keys': {
    operationId: 'listKeys',
    summary: "Operator: a Client's keys, without secrets",
    description: 'Operator key only. Keys issued at runtime and not revoked (expired ones until revoked); keys of API_KEY_CLIENTS are in the settings, not here.',
    response: { keys: [{ key_id: '5d1e0c6b2a9f4e3d8c7b6a59', client_id: 'team-legal', scopes: ['search', 'read'], expires_at: null, filter: { 'metadata.custom.team': 'legal' }, label: 'legal portal', created_at: '2026-03-14T09:31:00.000Z' }] },
  },
  'DELETE /admin/keys/:key_id': {
    operationId: 'revokeKey',
    summary: 'Operator: revoke a key',
    description: 'Operator key only. 204; the key answers 401 on every api process within 1 s.',
  },
  'GET /web-search/capabilities': {
    operationId: 'getWebSearchCapabilities',
    summary: 'Whether public web search is enabled',
    description:
      'Whether POST /web-search calls a provider in this deployment.',
    response: { enabled: false },
  },
  'POST /web-search': {
    operationId: 'webSearch',
    summary: 'Search the public web through the configured provider (fails open)',
    description:
      'Sends the query verbatim to the configured public provider. Fails open: a disabled gate, a missing provider, a provider error or a timeout answer 200 with no results and meta.status saying why. Never cached.',
    request: { query: 'overnight policy rate Bank Negara', limit: 3 },
    response: { results: [{ source: 'web', title: 'Monetary Policy Statement', url: 'https://www.bnm.gov.my/', snippet: 'The Monetary Policy Committee decided to maintain the Overnight Policy Rate at 3.00 percent.', rank: 1 }], meta: { provider: 'searxng', status: 'ok', count: 1, query_time_ms: 412 } },
  },
  'POST /webhooks': {
    operationId: 'createWebhook',
    summary: 'Register a webhook for job outcomes',
    description:
      'Each job of the Client that ends in one of events is POSTed to url as {event, delivery_id, job_id, operation, status, document_id, version_id, occurred_at} (identities and states, never text or metadata values), signed in X-Webhook-Signature: sha256=<hex HMAC-SHA256 of the raw body with secret>. Delivered at least once: retried with exponential backoff for about an hour on a non-2xx answer or a timeout, in order per document. A private, loopback or link-local address is refused (422) unless WEBHOOK_ALLOW_PRIVATE_NETWORKS=true.',
    request: { url: 'https://hooks.example.com/search-jobs', events: ['job.completed', 'job.failed'], secret: 'whsec-3b1f0c9e5d2a4f6b8c7d' },
    response: { webhook_id: WEBHOOK_ID, url: 'https://hooks.example.com/search-jobs', events: ['job.completed', 'job.failed'], created_at: '2026-03-14T09:30:00.000Z' },
  },
  'GET /webhooks': {
    operationId: 'listWebhooks',
    summary: "The Client's webhooks",
    description: 'Every webhook the Client registered, oldest first, with the events each is for; secrets are never shown.',
    response: { webhooks: [{ webhook_id: WEBHOOK_ID, url: 'https://hooks.example.com/search-jobs', events: ['job.completed', 'job.failed'], created_at: '2026-03-14T09:30:00.000Z' }] },
  },
  'DELETE /webhooks/:webhook_id': {
    operationId: 'deleteWebhook',
    summary: 'Remove a webhook and its deliveries',
    description: "Deliveries still pending are not sent. Another Client's webhook is the same 404 as an unknown one.",
    response: { webhook_id: WEBHOOK_ID, deleted: true },
  },
  'GET /webhooks/:webhook_id/deliveries': {
    operationId: 'listWebhookDeliveries',
    summary: 'The delivery log of a webhook (the newest 100)',
    description: 'Newest first: each delivery with its attempts, the last answer or error, and when it is tried next while pending.',
    response: {
      webhook_id: WEBHOOK_ID,
      deliveries: [{ delivery_id: '9d2e4f61-7a3b-4c8d-b5e6-0f1a2b3c4d5e', job_id: JOB_ID, event: 'job.completed', status: 'delivered', attempts: 2, last_status_code: 200, last_error: null, next_attempt_at: null, created_at: '2026-03-14T09:31:02.118Z', delivered_at: '2026-03-14T09:31:12.540Z' }],
    },
  },
};
