// The resources the service answers with, as SPEC.md names them: one search hit shape, the job status view,
// document summaries and text, lifecycle results, readiness. Services build these; routes send them through the
// JSON schemas of src/http/route-responses.ts, and test/http/response-serialization.test.ts fails when a built
// answer holds a member those schemas do not carry.

import type { ChunkLanguage } from './chunk-language.ts';
import type { JsonObject, JsonValue } from './canonical-metadata.ts';
import type { JobOperation, JobState } from './job-states.ts';
import type { RowRange } from './row-range.ts';

/** (document_id, version_id): version_id null for an intentionally unversioned Document Version. */
export interface DocumentVersionRef {
  document_id: string;
  version_id: string | null;
}

/** A matched span, [start, end) in UTF-16 code units of the item's text or rendered value. */
export interface HighlightSpan {
  start: number;
  end: number;
}

export interface ContentEvidenceItem {
  chunk_id: string;
  chunk_index: number;
  text: string;
  page: number | null;
  /** Extension: a spreadsheet chunk's rows (sheets, CSV, TSV); absent for every other chunk. */
  rows?: RowRange;
  /** With highlight: true only. */
  highlights?: HighlightSpan[];
}

export interface MetadataEvidenceItem {
  path: string[];
  value: JsonValue;
  value_type: string;
  match_kind: 'exact' | 'lexical' | 'semantic';
  highlights?: HighlightSpan[];
}

export interface Evidence<Item> {
  items: Item[];
  total: number;
  truncated: boolean;
}

export interface RetrievalContribution {
  lane: 'content' | 'metadata';
  rank: number;
}

/** One row of a search page: a Document Version, never a chunk or a metadata leaf. */
export interface SearchHit {
  rank: number;
  document_version: DocumentVersionRef;
  canonical_metadata: JsonObject;
  retrieval_contributions: RetrievalContribution[];
  content_evidence: Evidence<ContentEvidenceItem>;
  metadata_evidence: Evidence<MetadataEvidenceItem>;
}

export type PublicationView = 'ready' | 'pinned_ready';

/** A facet's value: a scalar a filter on its path could match, or a date bucket's ISO prefix. */
export type FacetValue = string | number | boolean;

/** meta.facets (POST /search) and facets (GET /documents) of one path: DESIGN.md "Facets, sorting". */
export interface FacetCounts {
  values: { value: FacetValue; count: number }[];
  other_count: number;
  is_lower_bound: boolean;
}

export interface SearchMeta {
  query: string;
  total: number;
  total_is_lower_bound: boolean;
  offset: number;
  limit: number;
  has_more: boolean;
  query_time_ms: number;
  retrieval: { alpha: number; reranked: boolean; reranked_count: number };
  applied_filters: JsonObject;
  publication_view: PublicationView;
  /** Only when the request asked for facets (search/facets.ts). */
  facets?: Record<string, FacetCounts>;
}

export interface SearchAnswer {
  results: SearchHit[];
  meta: SearchMeta;
}

/** What a row of GET /documents adds when deleted rows are asked for. */
export interface DeletionFields {
  deleted: boolean;
  deleted_at: string | null;
  deleted_by: string | null;
}

export interface DocumentSummary extends DocumentVersionRef, Partial<DeletionFields> {
  metadata: JsonObject;
  chunk_count: number;
  created_at: string;
}

export interface DocumentListPage {
  documents: DocumentSummary[];
  total: number;
  limit: number;
  offset: number;
  has_more: boolean;
  /** Only when the request asked for facets. */
  facets?: Record<string, FacetCounts>;
}

export interface TextChunk {
  id: string;
  index: number;
  page: number | null;
  /** Extension: a spreadsheet chunk's rows (sheets, CSV, TSV); absent for every other chunk. */
  rows?: RowRange;
  text: string;
  char_count: number;
  entities: JsonObject;
  vector_dim: number;
  norm: number;
  /** Withheld (null) unless include_vector=true. */
  vector: number[] | null;
  /** Detected at indexing; null for a chunk indexed before languages were recorded. */
  language: ChunkLanguage | null;
}

export interface DocumentTextResource extends DocumentVersionRef, Partial<DeletionFields> {
  chunk_count: number;
  created_at: string;
  chunk_offset: number;
  chunks_truncated: boolean;
  next_chunk_offset: number | null;
  chunks: TextChunk[];
  metadata: JsonObject;
  classification: JsonObject;
  entities: JsonObject;
  embedding: JsonObject;
}

export interface DeleteResult {
  document_id: string;
  deleted_chunks: number;
  status: 'soft_deleted' | 'hard_deleted';
}

export interface RestoreResult {
  document_id: string;
  restored_chunks: number;
  status: 'restored';
}

export type ReadinessState = 'not_started' | 'backfilling' | 'ready' | 'blocked';

export interface ReadinessView {
  readiness_state: ReadinessState;
  scopes_available: ('content' | 'metadata' | 'both')[];
  contract_version: string;
  versions_total: number;
  versions_ready: number;
  versions_blocked: number;
  backfill_job_id: string | null;
  updated_at: string;
}

/**
 * GET /status/{job_id}: the common fields, then what the job's state and operation add (SPEC.md's table). The
 * added members are optional here because which appear depends on the state; reads/job-view.ts picks them by state.
 */
export interface JobView {
  job_id: string;
  /** Empty for a backfill job. */
  document_id: string;
  status: JobState;
  operation: JobOperation;
  // completed (and partial_failed) upload
  search_ready?: boolean;
  snapshot_generation?: number | null;
  chunks_created?: JsonValue;
  categories?: JsonValue;
  classification_status?: JsonValue;
  entities_extracted?: JsonValue;
  created_at?: string;
  completed_at?: string | null;
  metadata_ready?: boolean;
  readiness_state?: JsonValue;
  // failed, partial_failed, retrying, superseded
  error?: string | null;
  error_details?: JsonObject;
  retry_count?: number;
  max_retries?: number;
  next_retry_in_seconds?: JsonValue;
  publication_status?: JsonValue;
  superseded_by_job_id?: JsonValue;
  superseded_reason?: JsonValue;
  // metadata update
  version_id?: string | null;
  updated_fields?: JsonValue;
  updated_fields_count?: JsonValue;
  updated_fields_truncated?: JsonValue;
  versions_total?: JsonValue;
  versions_completed?: JsonValue;
  versions_unchanged?: JsonValue;
  updated_chunks?: JsonValue;
  cleanup_tasks_scheduled?: JsonValue;
  // backfill
  versions_backfilled?: JsonValue;
  versions_pending?: JsonValue;
  versions_blocked?: JsonValue;
  violations?: JsonValue;
  violations_total?: JsonValue;
  violations_truncated?: JsonValue;
}
