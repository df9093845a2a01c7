// The export of one Client (DESIGN.md "Backup, restore, export, import"): NDJSON, a header line
// {"format":"hds-export/1", client_id, exported_at}, then one line per Document Version with its identity,
// created_at, filename, canonical and custom metadata, deletion markers and chunks (index, page, text, and a
// spreadsheet chunk's rows). Here:
// the lines' shapes, how a stored generation becomes one, and the checks an import makes of every line before
// it queues anything. Pure: no store, no HTTP.

import type { CanonicalMetadata, JsonObject } from './canonical-metadata.ts';
import { hasCanonicalShape, isJsonObject } from './canonical-metadata.ts';
import type { ChunkRecord, GenerationRecord } from './generation.ts';
import { idProblem, versionIdFromKey } from './identity.ts';
import { checkMetadataContract } from './metadata-contract.ts';
import type { ValidationDetail } from './validation-error.ts';
import type { RowRange } from './row-range.ts';
import { storedRowRange } from './row-range.ts';

export const EXPORT_FORMAT = 'hds-export/1';

export interface ExportHeader {
  format: typeof EXPORT_FORMAT;
  client_id: string;
  exported_at: string;
}

export interface ExportedChunk {
  index: number;
  page: number | null;
  /** The page's label where the format names its pages (a PDF's label, a workbook's sheet); else null. */
  page_label: string | null;
  text: string;
  /** A spreadsheet chunk's rows (first and last, 1-based); absent for other chunks and in exports made before it. */
  rows?: RowRange;
}

/** Canonical metadata without its custom group, which a line carries apart as custom_metadata. */
export type ExportedCanonical = Omit<CanonicalMetadata, 'custom'>;

export interface ExportedVersion {
  document_id: string;
  version_id: string | null;
  created_at: string;
  filename: string | null;
  canonical_metadata: ExportedCanonical;
  custom_metadata: JsonObject;
  deleted: boolean;
  deleted_at: string | null;
  deleted_by: string | null;
  chunks: ExportedChunk[];
}

const HEADER_KEYS = ['format', 'client_id', 'exported_at'] as const;
const VERSION_KEYS = ['document_id', 'version_id', 'created_at', 'filename', 'canonical_metadata', 'custom_metadata', 'deleted', 'deleted_at', 'deleted_by', 'chunks'] as const;
const CHUNK_KEYS = ['index', 'page', 'page_label', 'text', 'rows'] as const;
/** An ISO 8601 instant as the service writes them (created_at, deleted_at). */
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

export function exportHeader(clientId: string, exportedAt: string): ExportHeader {
  return { format: EXPORT_FORMAT, client_id: clientId, exported_at: exportedAt };
}

/** A stored active generation and its chunks as one export line. */
export function exportedVersion(generation: GenerationRecord, chunks: readonly ChunkRecord[]): ExportedVersion {
  const { custom, ...canonical } = generation.canonicalMetadata;
  return {
    document_id: generation.documentId,
    version_id: versionIdFromKey(generation.versionKey),
    created_at: generation.createdAt,
    filename: canonical.source.filename,
    canonical_metadata: canonical,
    custom_metadata: custom,
    deleted: generation.deletion.deleted,
    deleted_at: generation.deletion.deletedAt,
    deleted_by: generation.deletion.deletedBy,
    chunks: chunks.map((chunk) => ({ index: chunk.chunkIndex, page: chunk.page, page_label: chunk.pageLabel, text: chunk.text, ...(chunk.rows ? { rows: chunk.rows } : {}) })),
  };
}

/** The whole canonical metadata an imported version is published with: the line's, its filename and custom metadata in place. */
export function importedCanonical(version: ExportedVersion): CanonicalMetadata {
  const { canonical_metadata: canonical } = version;
  return { ...canonical, source: { ...canonical.source, filename: version.filename }, custom: version.custom_metadata };
}

function problem(line: number, path: (string | number)[], msg: string, input: unknown, type = 'value_error'): ValidationDetail {
  return { type, loc: ['body', `line ${line}`, ...path], msg: `line ${line}: ${msg}`, input };
}

function unknownKeys(value: Record<string, unknown>, allowed: readonly string[], line: number, path: (string | number)[]): ValidationDetail[] {
  return Object.keys(value)
    .filter((key) => !allowed.includes(key))
    .map((key) => problem(line, [...path, key], `${key} is not a field of ${EXPORT_FORMAT}`, null, 'extra_forbidden'));
}

const isInstant = (value: unknown): value is string => typeof value === 'string' && INSTANT.test(value) && !Number.isNaN(Date.parse(value));
const nullableString = (value: unknown) => value === null || typeof value === 'string';

/** The problems of the header line (line 1), or none. */
export function headerProblems(value: unknown): ValidationDetail[] {
  if (!isJsonObject(value)) return [problem(1, [], `the first line must be the ${EXPORT_FORMAT} header object`, null, 'dict_type')];
  const problems = unknownKeys(value, HEADER_KEYS, 1, []);
  if (value.format !== EXPORT_FORMAT) problems.push(problem(1, ['format'], `format must be ${JSON.stringify(EXPORT_FORMAT)} (an export of another format is not read)`, value.format ?? null));
  if (typeof value.client_id !== 'string' || value.client_id === '') problems.push(problem(1, ['client_id'], 'client_id must be the exported Client', value.client_id ?? null));
  if (!isInstant(value.exported_at)) problems.push(problem(1, ['exported_at'], 'exported_at must be an ISO 8601 instant', value.exported_at ?? null));
  return problems;
}

function validRows(rows: unknown): boolean {
  if (!isJsonObject(rows) || Object.keys(rows).some((key) => key !== 'first' && key !== 'last')) return false;
  return storedRowRange(rows.first as number, rows.last as number) !== null;
}

function chunkProblems(chunks: unknown, line: number, maxChunks: number): ValidationDetail[] {
  if (!Array.isArray(chunks) || chunks.length === 0) return [problem(line, ['chunks'], 'chunks must be a non-empty array', null, 'list_type')];
  if (chunks.length > maxChunks) return [problem(line, ['chunks'], `a version holds at most ${maxChunks} chunks (DOCUMENT_MAX_CHUNKS)`, chunks.length, 'too_long')];
  const problems: ValidationDetail[] = [];
  const seen = new Set<number>();
  chunks.forEach((chunk, at) => {
    const path = ['chunks', at];
    if (!isJsonObject(chunk)) {
      problems.push(problem(line, path, 'a chunk must be an object', null, 'dict_type'));
      return;
    }
    problems.push(...unknownKeys(chunk, CHUNK_KEYS, line, path));
    if (!Number.isSafeInteger(chunk.index) || (chunk.index as number) < 0) problems.push(problem(line, [...path, 'index'], 'index must be a whole number of at least 0', chunk.index ?? null));
    else if (seen.has(chunk.index as number)) problems.push(problem(line, [...path, 'index'], 'each chunk index appears once', chunk.index));
    else seen.add(chunk.index as number);
    if (chunk.page !== null && (!Number.isSafeInteger(chunk.page) || (chunk.page as number) < 1)) problems.push(problem(line, [...path, 'page'], 'page must be null or a whole number of at least 1', chunk.page ?? null));
    if (!nullableString(chunk.page_label)) problems.push(problem(line, [...path, 'page_label'], 'page_label must be null or a string', null));
    if (typeof chunk.text !== 'string' || chunk.text.trim() === '') problems.push(problem(line, [...path, 'text'], 'text must be a non-empty string', null));
    if (chunk.rows !== undefined && !validRows(chunk.rows)) problems.push(problem(line, [...path, 'rows'], 'rows must be {"first": N, "last": M}, whole numbers with 1 <= N <= M', null));
  });
  return problems;
}

/**
 * The problems of one version line (line numbers count from 1, the header's), or none. `maxChunks`: the
 * deployment's DOCUMENT_MAX_CHUNKS, which an upload could not exceed either.
 */
export function versionProblems(value: unknown, line: number, maxChunks: number): ValidationDetail[] {
  if (!isJsonObject(value)) return [problem(line, [], 'a version line must be an object', null, 'dict_type')];
  const problems = unknownKeys(value, VERSION_KEYS, line, []);
  if (typeof value.document_id !== 'string') problems.push(problem(line, ['document_id'], 'document_id must be a string', value.document_id ?? null, 'string_type'));
  else {
    const found = idProblem('document_id', value.document_id);
    if (found) problems.push(problem(line, ['document_id'], found, value.document_id));
  }
  if (value.version_id !== null && typeof value.version_id !== 'string') problems.push(problem(line, ['version_id'], 'version_id must be null or a string', value.version_id ?? null, 'string_type'));
  else if (typeof value.version_id === 'string') {
    const found = idProblem('version_id', value.version_id);
    if (found) problems.push(problem(line, ['version_id'], found, value.version_id));
  }
  if (!isInstant(value.created_at)) problems.push(problem(line, ['created_at'], 'created_at must be an ISO 8601 instant', value.created_at ?? null));
  if (!nullableString(value.filename) || (typeof value.filename === 'string' && (value.filename.trim() === '' || /[\u0000-\u001f\u007f]/.test(value.filename)))) {
    problems.push(problem(line, ['filename'], 'filename must be null or a non-empty string without control characters', null));
  }
  if (!hasCanonicalShape({ ...(isJsonObject(value.canonical_metadata) ? value.canonical_metadata : {}), custom: {} }) || (isJsonObject(value.canonical_metadata) && 'custom' in value.canonical_metadata)) {
    problems.push(problem(line, ['canonical_metadata'], 'canonical_metadata must be the exported canonical metadata (its groups as objects, custom apart)', null, 'dict_type'));
  }
  if (!isJsonObject(value.custom_metadata)) problems.push(problem(line, ['custom_metadata'], 'custom_metadata must be an object', null, 'dict_type'));
  else {
    const violation = checkMetadataContract(value.custom_metadata);
    if (violation) problems.push({ type: 'metadata_contract', loc: ['body', `line ${line}`, 'custom_metadata'], msg: `line ${line}: custom metadata violates ${violation.code}`, input: violation as unknown as JsonObject });
  }
  if (typeof value.deleted !== 'boolean') problems.push(problem(line, ['deleted'], 'deleted must be a boolean', value.deleted ?? null, 'bool_type'));
  if (value.deleted_at !== null && !isInstant(value.deleted_at)) problems.push(problem(line, ['deleted_at'], 'deleted_at must be null or an ISO 8601 instant', value.deleted_at ?? null));
  if (!nullableString(value.deleted_by)) problems.push(problem(line, ['deleted_by'], 'deleted_by must be null or a string', null));
  if (value.deleted === true && value.deleted_at === null) problems.push(problem(line, ['deleted_at'], 'a deleted version carries its deleted_at', null));
  if (value.deleted === false && (value.deleted_at !== null || value.deleted_by !== null)) problems.push(problem(line, ['deleted_at'], 'a version that is not deleted carries no deleted_at or deleted_by', null));
  problems.push(...chunkProblems(value.chunks, line, maxChunks));
  return problems;
}
