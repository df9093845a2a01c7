// The synchronous reads of one generation that the SQLite repositories share inside their statements (the
// generation repository, and the publication log, which loads the generations its entries name in the same
// consistent read).

import type { Database } from './database.ts';
import { cachedStatement } from './database.ts';
import type { ChunkRecord, GenerationRecord, LoadedGeneration, MetadataLeaf, ServingGeneration } from '../../domain/generation.ts';
import { toChunk, toGeneration } from '../shared/generation-records.ts';
import type { ChunkRow, GenerationRow } from '../shared/generation-records.ts';

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
 * data (neither without `content`). What does not parse is named in `unreadable`, not thrown: serving treats it as malformed evidence.
 */
export function readServingGeneration(db: Database, generation: number, content = true): ServingGeneration | null {
  const record = readGeneration(db, generation);
  if (!record) return null;
  const unreadable = [...(record.unreadable ?? [])];
  const leaves = readLeaves(db, generation, unreadable);
  const lanes = content ? readLanes(db, generation) : null;
  const served: ServingGeneration = lanes || !content ? { ...record, leaves, lanes } : { ...record, leaves, lanes: null, chunks: readStoredChunks(db, generation, unreadable) };
  if (unreadable.length > 0) served.unreadable = unreadable;
  return served;
}
