// Response schemas that document routes in /openapi.json (docs/configuration.md "Limits"): the POST /embed answers, including the
// client_quota_exceeded refusal, and the bounded GET /document/{id}/text resource. Answers are serialized through
// them (serialization.ts): a member they do not declare is not sent.

import { CHUNK_LANGUAGES } from '../../domain/chunk-language.ts';
import { envelopeSchema } from '../error-catalogue.ts';

/** POST /embed answers. */
export const UPLOAD_ACCEPTED = {
  title: 'UploadAccepted',
  description: 'A queued upload.',
  type: 'object',
    required: ['job_id', 'status', 'document_id', 'version_id'],
  properties: {
    job_id: { type: 'string' },
    status: { type: 'string', enum: ['pending'], description: 'The job is queued.' },
    document_id: { type: 'string' },
    version_id: { type: ['string', 'null'] },
  },
} as const;

export const UPLOAD_RESPONSES = {
  202: { ...UPLOAD_ACCEPTED, description: 'Accepted: the upload is queued; poll GET /status/{job_id}.' },
  403: envelopeSchema(
    'error_code client_quota_exceeded: the Client is at one of its quotas (CLIENT_MAX_DOCUMENTS for a new document, ' +
      'CLIENT_MAX_CHUNKS, CLIENT_MAX_TEXT_BYTES), counted over its active versions without the version this upload ' +
      'replaces; nothing was stored or queued. Retrying does not help: hard-delete documents or have the quota raised. ' +
      'An upload accepted while the Client had room can still fail in its job (GET /status: failed, with error_details ' +
      'of the same shape) when the document itself would take the Client over a quota.',
    'client_quota_exceeded',
    {
      type: 'object',
      properties: {
        code: { type: 'string', enum: ['client_quota_exceeded'], description: 'The refusal, for a program.' },
        quota: { type: 'string', enum: ['documents', 'chunks', 'text_bytes'], description: 'The quota the Client is at.' },
        observed: { type: 'integer', description: 'What the Client holds on this quota.' },
        limit: { type: 'integer', description: 'The quota (CLIENT_MAX_DOCUMENTS, CLIENT_MAX_CHUNKS or CLIENT_MAX_TEXT_BYTES).' },
        unit: { type: 'string', enum: ['documents', 'chunks', 'utf8_bytes'], description: 'What observed and limit count.' },
      },
    },
  ),
  413: envelopeSchema('error_code payload_too_large: the body is larger than MAX_UPLOAD_BYTES.', 'payload_too_large'),
  422: envelopeSchema('error_code validation_error: missing, extra or invalid fields.', 'validation_error'),
};

/** A spreadsheet chunk's rows: an extension of the evidence item and the text chunk (SPEC.md fixes neither's other fields). */
export const ROW_RANGE = {
  title: 'RowRange',
  description:
    'Extension: the spreadsheet rows the chunk holds, first and last, 1-based as the file numbers them (empty rows counted; ' +
    'for CSV and TSV the record number, the header being row 1). Present only for chunks of .xlsx/.xlsm sheets and CSV/TSV files.',
  type: 'object',
  required: ['first', 'last'],
  properties: {
    first: { type: 'integer', minimum: 1, description: 'The first row the chunk holds.' },
    last: { type: 'integer', minimum: 1, description: 'The last row the chunk holds (at least first).' },
  },
} as const;

export const CHUNK = {
  title: 'Chunk',
  description: 'A chunk of the document text, as it was indexed.',
  type: 'object',
  properties: {
    id: { type: 'string', description: 'The chunk id (the chunk_id of search evidence).' },
    index: { type: 'integer', description: 'Position of the chunk in the document, from 0.' },
    page: { type: ['integer', 'null'] },
    page_label: { type: 'string', description: "Extension: the label of the chunk's page (a sheet's name, a PDF page's logical label); absent where the page has none." },
    rows: ROW_RANGE,
    text: { type: 'string', description: 'The chunk text.' },
    char_count: { type: 'integer' },
    entities: { type: 'object', additionalProperties: true },
    vector_dim: { type: 'integer' },
    norm: { type: 'number' },
    vector: { type: ['array', 'null'], items: { type: 'number' } },
    language: {
      type: ['string', 'null'],
      enum: [...CHUNK_LANGUAGES, null],
      description: 'The language detected in the chunk at indexing (en, ms or other), which chose its analyzer; null for a chunk indexed before languages were recorded.',
    },
  },
} as const;

/** GET /document/{document_id}/text 200: the document text resource, its chunks bounded per answer. */
export const TEXT_RESPONSES = {
  200: {
    title: 'DocumentText',
    description:
      'The document text resource. One answer holds at most chunk_limit chunks (default and maximum TEXT_READ_MAX_CHUNKS) ' +
      'and TEXT_READ_MAX_CHARS characters of chunk text, from chunk_offset on. chunk_count is always the true number of ' +
      'chunks; when more follow, chunks_truncated is true and next_chunk_offset is the chunk_offset of the next page.',
    type: 'object',
    properties: {
      document_id: { type: 'string' },
      version_id: { type: ['string', 'null'] },
      chunk_count: { type: 'integer', description: 'All chunks of the document, whatever this answer holds.' },
      created_at: { type: 'string' },
      chunk_offset: { type: 'integer', description: 'Index of the first chunk of this answer.' },
      chunks_truncated: { type: 'boolean', description: 'Chunks after this answer exist (read them from next_chunk_offset).' },
      next_chunk_offset: { type: ['integer', 'null'], description: 'chunk_offset of the next page; null when this answer reaches the end.' },
      chunks: { type: 'array', items: CHUNK },
      metadata: { type: 'object', additionalProperties: true, description: 'The version\'s canonical metadata (schema_version "2").' },
      classification: { type: 'object', additionalProperties: true },
      entities: { type: 'object', additionalProperties: true },
      embedding: { type: 'object', additionalProperties: true },
      deleted: { type: 'boolean', description: 'Only with include_deleted=true.' },
      deleted_at: { type: ['string', 'null'], description: 'Only with include_deleted=true.' },
      deleted_by: { type: ['string', 'null'], description: 'Only with include_deleted=true: the resolved client id.' },
    },
  },
} as const;
