// Reads of stored generations that the PostgreSQL repositories share inside their transactions (the
// generation repository, and the publication log, which loads the generations its entries name in the same
// snapshot). Several generations are read in one statement per table. Row-level security keeps each
// statement to the transaction's Client, so none of them filters by client_id.

import type { Sql } from './database.ts';
import { toChunk, toGeneration } from '../shared/generation-records.ts';
import type { ChunkRow, GenerationRow } from '../shared/generation-records.ts';
import type { ChunkRecord, GenerationRecord, LoadedGeneration, MetadataLeaf, ServingGeneration } from '../../domain/generation.ts';

/** The columns of a generation row as shared/generation-records.ts reads them. */
export const GENERATION_COLUMNS = `g.generation, g.document_id, g.version_key, g.job_id, g.state, g.created_at, g.staged_at, g.activated_at,
  g.canonical_metadata, g.entities, g.embedding, g.deleted, g.deleted_at, g.deleted_by, g.chunk_count, g.manifest, g.leaves_indexed`;

export async function readGeneration(sql: Sql, generation: number): Promise<GenerationRecord | null> {
  const { rows } = await sql.query<GenerationRow>(`SELECT ${GENERATION_COLUMNS} FROM generations g WHERE g.generation = $1`, [generation]);
  return rows[0] ? toGeneration(rows[0]) : null;
}

export async function readActiveGeneration(sql: Sql, documentId: string, versionKey: string): Promise<GenerationRecord | null> {
  const { rows } = await sql.query<GenerationRow>(
    `SELECT ${GENERATION_COLUMNS} FROM versions v JOIN generations g ON g.client_id = v.client_id AND g.generation = v.active_generation
     WHERE v.document_id = $1 AND v.version_key = $2`,
    [documentId, versionKey],
  );
  return rows[0] ? toGeneration(rows[0]) : null;
}

function byGeneration<R extends { generation: number }>(rows: R[]): Map<number, R[]> {
  const grouped = new Map<number, R[]>();
  for (const row of rows) {
    let group = grouped.get(row.generation);
    if (!group) grouped.set(row.generation, (group = []));
    group.push(row);
  }
  return grouped;
}

async function readGenerations(sql: Sql, generations: readonly number[]): Promise<Map<number, GenerationRecord>> {
  const { rows } = await sql.query<GenerationRow>(`SELECT ${GENERATION_COLUMNS} FROM generations g WHERE g.generation = ANY($1::bigint[])`, [generations]);
  return new Map(rows.map((row) => [row.generation, toGeneration(row)]));
}

/** Each generation's leaves; one whose leaves do not parse keeps those that do and is named in `unreadable`. */
async function readLeaves(sql: Sql, generations: readonly number[]): Promise<Map<number, { leaves: MetadataLeaf[]; damaged: boolean }>> {
  const { rows } = await sql.query<{ generation: number; path: string; value: string; value_type: string }>(
    'SELECT generation, path, value, value_type FROM metadata_leaves WHERE generation = ANY($1::bigint[]) ORDER BY generation, ordinal',
    [generations],
  );
  const out = new Map<number, { leaves: MetadataLeaf[]; damaged: boolean }>();
  for (const [generation, group] of byGeneration(rows)) {
    const read = { leaves: [] as MetadataLeaf[], damaged: false };
    for (const row of group) {
      try {
        read.leaves.push({ path: JSON.parse(row.path), value: JSON.parse(row.value), valueType: row.value_type });
      } catch {
        read.damaged = true;
      }
    }
    out.set(generation, read);
  }
  return out;
}

/** Each generation's chunks in document order; null for one whose chunks do not read. */
async function readChunks(sql: Sql, generations: readonly number[]): Promise<Map<number, ChunkRecord[] | null>> {
  if (generations.length === 0) return new Map();
  const { rows } = await sql.query<Omit<ChunkRow, 'vector'> & { vector: Buffer; generation: number }>(
    `SELECT generation, chunk_index, page, page_label, text, entities, vector, language, row_first, row_last FROM chunks WHERE generation = ANY($1::bigint[]) ORDER BY generation, chunk_index`,
    [generations],
  );
  const grouped = byGeneration(rows);
  const out = new Map<number, ChunkRecord[] | null>();
  for (const generation of generations) {
    try {
      out.set(generation, (grouped.get(generation) ?? []).map(toStoredChunk));
    } catch {
      out.set(generation, null);
    }
  }
  return out;
}

async function readLanes(sql: Sql, generations: readonly number[]): Promise<Map<number, Uint8Array>> {
  const { rows } = await sql.query<{ generation: number; lanes: Buffer }>('SELECT generation, lanes FROM generation_lanes WHERE generation = ANY($1::bigint[])', [generations]);
  return new Map(rows.map((row) => [row.generation, asBytes(row.lanes)]));
}

/**
 * A chunk row as the driver reads it: its vector comes as a Buffer, whose slice() shares memory (a Uint8Array's
 * copies, which the vector decoding relies on).
 */
export function toStoredChunk(row: Omit<ChunkRow, 'vector'> & { vector: Buffer }): ChunkRecord {
  return toChunk({ ...row, vector: asBytes(row.vector) });
}

/** A plain Uint8Array over the driver's Buffer (what the SQLite adapter hands out). */
export function asBytes(buffer: Buffer): Uint8Array {
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

/** These generations whole, in the order asked, what does not parse named in `unreadable` (chunks left out then). */
export async function readLoadedGenerations(sql: Sql, generations: readonly number[]): Promise<LoadedGeneration[]> {
  const records = await readGenerations(sql, generations);
  const found = generations.filter((generation) => records.has(generation));
  const leaves = await readLeaves(sql, found);
  const chunks = await readChunks(sql, found);
  return found.map((generation) => {
    const record = records.get(generation)!;
    const unreadable = [...(record.unreadable ?? [])];
    const read = leaves.get(generation);
    if (read?.damaged) unreadable.push('metadata_leaves');
    const stored = chunks.get(generation);
    if (stored === null) unreadable.push('chunks');
    const loaded: LoadedGeneration = { ...record, chunks: stored ?? [], leaves: read?.leaves ?? [] };
    if (unreadable.length > 0) loaded.unreadable = unreadable;
    else delete loaded.unreadable;
    return loaded;
  });
}

/**
 * These generations as serving loads them, in the order asked: record, leaves and lane data; chunks only for
 * one stored without lane data. What does not parse is named in `unreadable`, not thrown.
 */
export async function readServingGenerations(sql: Sql, generations: readonly number[], content = true): Promise<ServingGeneration[]> {
  const records = await readGenerations(sql, generations);
  const found = generations.filter((generation) => records.has(generation));
  const leaves = await readLeaves(sql, found);
  const lanes = content ? await readLanes(sql, found) : new Map<number, Uint8Array>();
  const chunks = content ? await readChunks(sql, found.filter((generation) => !lanes.has(generation))) : new Map<number, never>();
  return found.map((generation) => {
    const record = records.get(generation)!;
    const unreadable = [...(record.unreadable ?? [])];
    const read = leaves.get(generation);
    if (read?.damaged) unreadable.push('metadata_leaves');
    const laneData = lanes.get(generation);
    let served: ServingGeneration;
    if (laneData) {
      served = { ...record, leaves: read?.leaves ?? [], lanes: laneData };
    } else if (!content) {
      served = { ...record, leaves: read?.leaves ?? [], lanes: null };
    } else {
      const stored = chunks.get(generation);
      if (stored === null) unreadable.push('chunks');
      served = { ...record, leaves: read?.leaves ?? [], lanes: null, chunks: stored ?? [] };
    }
    if (unreadable.length > 0) served.unreadable = unreadable;
    else delete served.unreadable;
    return served;
  });
}
