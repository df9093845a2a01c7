// Stored generation rows as the domain reads them, whichever adapter stored them (SQLite, PostgreSQL): rows
// to records, JSON that does not parse named as unreadable, vectors to and from bytes. No driver here.

import { blankCanonicalMetadata, hasCanonicalShape, isJsonObject } from '../../domain/canonical-metadata.ts';
import type { JsonObject } from '../../domain/canonical-metadata.ts';
import { emptyEntities } from '../../domain/entities.ts';
import type { Entities } from '../../domain/entities.ts';
import type { ChunkRecord, GenerationRecord } from '../../domain/generation.ts';
import { isChunkLanguage } from '../../domain/chunk-language.ts';
import { UnreadableGeneration } from '../../domain/generation.ts';
import type { ManifestRecord, StoredChunkText } from '../port.ts';
import { storedRowRange } from '../../domain/row-range.ts';
import type { RowRange } from '../../domain/row-range.ts';

export interface GenerationRow {
  generation: number;
  document_id: string;
  version_key: string;
  job_id: string | null;
  state: 'staged' | 'active' | 'retired';
  created_at: string;
  staged_at: string;
  activated_at: string | null;
  canonical_metadata: string;
  entities: string;
  embedding: string;
  /** 1/0 in SQLite, a boolean in PostgreSQL. */
  deleted: number | boolean;
  deleted_at: string | null;
  deleted_by: string | null;
  chunk_count: number;
  manifest: string;
  leaves_indexed: number | boolean;
}

export interface ChunkRow {
  chunk_index: number;
  /**
   * The chunk's page (the evidence item's page, and location.page_number of its row). Every schema of this
   * service, on both stores, has kept it in this column of its own from the first migration on; no chunk was
   * ever stored with metadata of its own. The pre-v2 fallbacks of SPEC "Content evidence item" (a record's
   * metadata.processing.page_number, then its flat metadata.page_number) name places no stored record of this
   * service has, so there is nothing to fall back to: the column is the record's root page_number.
   */
  page: number | null;
  page_label: string | null;
  text: string;
  entities: string;
  vector: Uint8Array;
  language: string | null;
  /** The spreadsheet rows the chunk holds; null for other chunks (and absent from a read that did not select them). */
  row_first?: number | null;
  row_last?: number | null;
}

/**
 * Parses a stored JSON column; what does not parse, or lacks the shape its readers rely on, is named in
 * `unreadable` and read as `fallback()`.
 */
function storedJson<T>(text: string, column: string, isShaped: (value: unknown) => value is T, fallback: () => T, unreadable: string[]): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (value !== undefined && isShaped(value)) return value;
  unreadable.push(column);
  return fallback();
}

const isEntities = (value: unknown): value is Entities => isJsonObject(value) && Object.values(value).every(Array.isArray);

/**
 * A generation row: JSON that does not parse is named in `unreadable` (serving treats the generation as
 * malformed evidence, never served), so that one damaged row cannot fail its Client's every read or its
 * process's start.
 */
export function toGeneration(row: GenerationRow): GenerationRecord {
  const unreadable: string[] = [];
  const record: GenerationRecord = {
    generation: row.generation,
    documentId: row.document_id,
    versionKey: row.version_key,
    jobId: row.job_id,
    state: row.state,
    createdAt: row.created_at,
    stagedAt: row.staged_at,
    activatedAt: row.activated_at,
    // An unreadable generation is never served nor written from; its placeholders only keep readers safe.
    canonicalMetadata: storedJson(row.canonical_metadata, 'canonical_metadata', hasCanonicalShape, blankCanonicalMetadata, unreadable),
    entities: storedJson(row.entities, 'entities', isEntities, emptyEntities, unreadable),
    embedding: storedJson(row.embedding, 'embedding', isJsonObject, () => ({}), unreadable),
    deletion: { deleted: row.deleted === 1 || row.deleted === true, deletedAt: row.deleted_at, deletedBy: row.deleted_by },
    chunkCount: row.chunk_count,
    // A manifest that is not an object is malformed; an empty one is missing (evidence.ts tells them apart).
    manifest: storedJson(row.manifest, 'manifest', isJsonObject, () => ({}), unreadable),
    leavesIndexed: row.leaves_indexed !== 0 && row.leaves_indexed !== false,
  };
  if (unreadable.length > 0) record.unreadable = unreadable;
  return record;
}

/**
 * A generation for a read that needs all of it (a successor is built from it): unreadable ones are refused.
 * Records alone (activeGeneration, generation, activeGenerationsOf) come with their unreadable parts named,
 * so that a damaged version can still be replaced by a new upload or hard-deleted.
 */
export function readable<T extends GenerationRecord>(record: T): T {
  if (record.unreadable) throw new UnreadableGeneration(record.generation, record.unreadable);
  return record;
}

export function vectorToBlob(vector: Float32Array): Uint8Array {
  return new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength);
}

export function blobToVector(blob: Uint8Array): Float32Array {
  // Copy: the blob's offset need not be 4-byte aligned.
  return new Float32Array(blob.slice().buffer);
}

/** A chunk's text and language as stored (a language this version does not know reads as none). */
export function storedChunkText(row: { text: string; language: string | null; row_first?: number | null; row_last?: number | null }): StoredChunkText {
  return { text: row.text, language: isChunkLanguage(row.language) ? row.language : null, rows: storedRowRange(row.row_first, row.row_last) };
}

export function toChunk(row: ChunkRow): ChunkRecord {
  return {
    chunkIndex: row.chunk_index,
    page: row.page,
    pageLabel: row.page_label,
    text: row.text,
    entities: JSON.parse(row.entities),
    vector: blobToVector(row.vector),
    language: isChunkLanguage(row.language) ? row.language : null,
    ...rowsOf(row),
  };
}

/** A chunk's stored rows as ChunkRecord.rows: present only where the chunk has them. */
function rowsOf(row: ChunkRow): { rows?: RowRange } {
  const rows = storedRowRange(row.row_first, row.row_last);
  return rows ? { rows } : {};
}

export interface ManifestRow {
  generation: number;
  state: string;
  document_id: string;
  version_key: string;
  job_id: string | null;
  chunk_count: number;
  manifest: string;
}

export function toManifestRecord(row: ManifestRow): ManifestRecord {
  let manifest: JsonObject | null;
  try {
    manifest = JSON.parse(row.manifest);
  } catch {
    manifest = null;
  }
  return { generation: row.generation, state: row.state, documentId: row.document_id, versionKey: row.version_key, jobId: row.job_id, chunkCount: row.chunk_count, manifest };
}
