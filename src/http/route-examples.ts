// What /openapi.json says of each route besides its schemas: a one-line summary, an example of its success body
// and, for routes that take one, of its JSON request body. test/e2e/openapi.test.ts checks every example against
// the schema it illustrates.

export interface RouteExamples {
  summary: string;
  /** The success body (JSON routes). */
  response?: unknown;
  /** The JSON request body. */
  request?: unknown;
}

const JOB_ID = '3f6c2a0e-8d1b-4c5e-9a7f-2b4d6e8f0a1c';

/** Keyed like ROUTE_RESPONSES: method and the path as registered (`:param`). */
export const ROUTE_EXAMPLES: Readonly<Record<string, RouteExamples>> = {
  'GET /health': {
    summary: 'Health of every component and whether publication is safe to serve',
    response: { status: 'healthy', version: '0.1.0', components: { api: 'ok', state_store: 'ok', vector_store: 'ok', worker_queue: 'ok', classifier: 'ok', publication: 'ok' }, publishing: { status: 'ready', reason: null, authority_mode: 'READY' } },
  },
  'POST /search': {
    summary: 'Search document text (dense + keyword), typed metadata, or both, with filters and reranking',
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
  'POST /embed': {
    summary: 'Upload a document (a file, or plain text) to be parsed, enriched, embedded and published',
    request: { document_id: 'memo-2024-07', text: 'Minutes of the treasury committee, 3 July 2024.', metadata: { branch: 'KL' } },
    response: { job_id: JOB_ID, status: 'pending', document_id: 'memo-2024-07', version_id: 'memo-2024-07' },
  },
  'GET /status/:job_id': {
    summary: 'The state of an upload, metadata update or backfill job',
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
    summary: 'List Document Versions, filtered by metadata, page by page',
    response: { documents: [{ document_id: 'stmt-2024-03', version_id: 'stmt-2024-03', metadata: { schema_version: '2', source: { filename: 'march.pdf' }, custom: { branch: 'KL' } }, chunk_count: 14, created_at: '2024-04-01T02:00:00.000Z' }], total: 1, limit: 100, offset: 0, has_more: false },
  },
  'GET /document/:document_id/text': {
    summary: "Read a document's text, chunk by chunk, in document order",
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
    summary: 'Soft-delete (restorable) or hard-delete a document, or one version of it',
    response: { document_id: 'stmt-2024-03', deleted_chunks: 14, status: 'soft_deleted' },
  },
  'POST /document/:document_id/restore': {
    summary: 'Restore a soft-deleted document, or one version of it',
    response: { document_id: 'stmt-2024-03', restored_chunks: 14, status: 'restored' },
  },
  'PATCH /update': {
    summary: "Correct a document's custom metadata (JSON Merge Patch) or its filename, as a job",
    request: { document_id: 'stmt-2024-03', metadata: { branch: 'Penang', draft: null } },
    response: { job_id: JOB_ID, status: 'pending', document_id: 'stmt-2024-03', version_id: null, updated_fields: ['metadata.custom.branch', 'metadata.custom.draft'] },
  },
  'GET /metrics': { summary: 'Operator: Prometheus metrics of every process of the deployment' },
  'GET /discovery/readiness': {
    summary: 'Whether the metadata lane serves this Client yet',
    response: { readiness_state: 'ready', scopes_available: ['content', 'metadata', 'both'], contract_version: '2', versions_total: 42, versions_ready: 42, versions_blocked: 0, backfill_job_id: null, updated_at: '2024-07-03T09:12:45.031Z' },
  },
  'GET /admin/authority': {
    summary: 'Operator: the publication authority, and this api process',
    response: { authority_mode: 'READY', authority_id: 'a1b2c3d4', changed_at: '2024-07-01T00:00:00.000Z', enabled: true, process_id: 4242, recovered_at: '2024-07-01T00:00:02.000Z', serving: { clients: 3 }, memory: { rss: 183500800 } },
  },
  'POST /admin/authority/mode': {
    summary: 'Operator: take publication out of service (MAINTENANCE), pin reads (FENCING), or return to READY',
    request: { mode: 'MAINTENANCE' },
    response: { authority_mode: 'MAINTENANCE' },
  },
  'POST /admin/backfill': {
    summary: "Operator: start a Client's Metadata Discovery backfill",
    request: { client_id: 'dev-client' },
    response: { job_id: JOB_ID, status: 'pending', operation: 'metadata_backfill', client_id: 'dev-client' },
  },
  'GET /web-search/capabilities': { summary: 'Whether public web search is enabled', response: { enabled: false } },
  'POST /web-search': {
    summary: 'Search the public web through the configured provider (fails open)',
    request: { query: 'overnight policy rate Bank Negara', limit: 3 },
    response: { results: [{ source: 'web', title: 'Monetary Policy Statement', url: 'https://www.bnm.gov.my/', snippet: 'The Monetary Policy Committee decided to maintain the Overnight Policy Rate at 3.00 percent.', rank: 1 }], meta: { provider: 'searxng', status: 'ok', count: 1, query_time_ms: 412 } },
  },
};
