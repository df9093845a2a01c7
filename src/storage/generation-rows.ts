// Stored generation rows as the domain reads them, and the synchronous reads of one generation that the
// SQLite repositories share inside their statements (the generation repository, and the publication log,
// which loads the generations its entries name in the same consistent read).

import type { Database } from './sqlite.ts';
import { cachedStatement } from './sqlite.ts';
import { blankCanonicalMetadata, hasCanonicalShape, isJsonObject } from '../domain/canonical-metadata.ts';
import type { JsonObject } from '../domain/canonical-metadata.ts';
import { emptyEntities } from '../domain/entities.ts';
import type { Entities } from '../domain/entities.ts';
import type { ChunkRecord, GenerationRecord, LoadedGeneration, MetadataLeaf, ServingGeneration } from '../domain/generation.ts';
import { UnreadableGeneration } from '../domain/generation.ts';
import type { ManifestRecord } from './port.ts';

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
  deleted: number;
  deleted_at: string | null;
  deleted_by: string | null;
  chunk_count: number;
  manifest: string;
  leaves_indexed: number;
}

export interface ChunkRow {
  chunk_index: number;
  page: number | null;
  page_label: string | null;
  text: string;
  entities: string;
  vector: Uint8Array;
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
    deletion: { deleted: row.deleted === 1, deletedAt: row.deleted_at, deletedBy: row.deleted_by },
    chunkCount: row.chunk_count,
    // A manifest that is not an object is malformed; an empty one is missing (evidence.ts tells them apart).
    manifest: storedJson(row.manifest, 'manifest', isJsonObject, () => ({}), unreadable),
    leavesIndexed: row.leaves_indexed !== 0,
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

function blobToVector(blob: Uint8Array): Float32Array {
  // Copy: the blob's offset need not be 4-byte aligned.
  return new Float32Array(blob.slice().buffer);
}

export function toChunk(row: ChunkRow): ChunkRecord {
  return {
    chunkIndex: row.chunk_index,
    page: row.page,
    pageLabel: row.page_label,
    text: row.text,
    entities: JSON.parse(row.entities),
    vector: blobToVector(row.vector),
  };
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


/** The generation's record as stored, unreadable parts named (GenerationRecord.unreadable). */
export function readGeneration(db: Database, generation: number): GenerationRecord | null {
  const row = cachedStatement(db, 'SELECT * FROM generations WHERE generation = ?').get(generation) as GenerationRow | undefined;
  return row ? toGeneration(row) : null;
}

/** A version's active generation, unreadable parts named. */
export function readActiveGeneration(db: Database, documentId: string, versionKey: string): GenerationRecord | null {
  const row = cachedStatement(
    db,
    `SELECT g.* FROM versions v JOIN generations g ON g.generation = v.active_generation
     WHERE v.document_id = ? AND v.version_key = ?`,
  ).get(documentId, versionKey) as GenerationRow | undefined;
  return row ? toGeneration(row) : null;
}

function readChunks(db: Database, generation: number): ChunkRecord[] {
  return (db.prepare('SELECT * FROM chunks WHERE generation = ? ORDER BY chunk_index').all(generation) as unknown as ChunkRow[]).map(toChunk);
}

/** The generation's chunks; none when one does not read, named in `unreadable`. */
function readStoredChunks(db: Database, generation: number, unreadable: string[]): ChunkRecord[] {
  try {
    return readChunks(db, generation);
  } catch {
    unreadable.push('chunks');
    return [];
  }
}

/** The generation's metadata leaves; one that does not parse is left out and named in `unreadable`. */
function readLeaves(db: Database, generation: number, unreadable: string[]): MetadataLeaf[] {
  const rows = cachedStatement(db, 'SELECT path, value, value_type FROM metadata_leaves WHERE generation = ? ORDER BY ordinal').all(generation) as {
    path: string;
    value: string;
    value_type: string;
  }[];
  const leaves: MetadataLeaf[] = [];
  let damaged = false;
  for (const row of rows) {
    try {
      leaves.push({ path: JSON.parse(row.path), value: JSON.parse(row.value), valueType: row.value_type });
    } catch {
      damaged = true;
    }
  }
  if (damaged) unreadable.push('metadata_leaves');
  return leaves;
}

function readLanes(db: Database, generation: number): Uint8Array | null {
  const row = cachedStatement(db, 'SELECT lanes FROM generation_lanes WHERE generation = ?').get(generation) as { lanes: Uint8Array } | undefined;
  return row ? row.lanes : null;
}

/** The whole generation as stored, what does not parse named in `unreadable` (its chunks left out then). */
export function readStoredLoadedGeneration(db: Database, generation: number): LoadedGeneration | null {
  const record = readGeneration(db, generation);
  if (!record) return null;
  const unreadable = [...(record.unreadable ?? [])];
  const leaves = readLeaves(db, generation, unreadable);
  const chunks = readStoredChunks(db, generation, unreadable);
  return { ...record, ...(unreadable.length > 0 ? { unreadable } : {}), chunks, leaves };
}

/**
 * What serving needs of a generation: its record, leaves and lane data; its chunks only when it has no lane
 * data. What does not parse is named in `unreadable`, not thrown: serving treats it as malformed evidence.
 */
export function readServingGeneration(db: Database, generation: number): ServingGeneration | null {
  const record = readGeneration(db, generation);
  if (!record) return null;
  const unreadable = [...(record.unreadable ?? [])];
  const leaves = readLeaves(db, generation, unreadable);
  const lanes = readLanes(db, generation);
  const served: ServingGeneration = lanes ? { ...record, leaves, lanes } : { ...record, leaves, lanes: null, chunks: readStoredChunks(db, generation, unreadable) };
  if (unreadable.length > 0) served.unreadable = unreadable;
  return served;
}
