// The SQLite generation repository of one Client: versions, immutable generations with chunks, vectors,
// metadata leaves and lane data. Staging and activation are single transactions (an activation appends its
// publication-log entry in the same one); nothing here decides visibility rules beyond that.

import type { ClientDatabase } from './client-database.ts';
import { cachedStatement, readTransaction, transaction } from './database.ts';
import type { ChunkRow, GenerationRow, ManifestRow } from '../shared/generation-records.ts';
import { readActiveGeneration, readGeneration, readServingGeneration, readStoredLoadedGeneration } from './generation-reads.ts';
import { blobToVector, readable, storedChunkText, toChunk, toGeneration, toManifestRecord, vectorToBlob } from '../shared/generation-records.ts';
import { appendLogEntry } from './publication-log.ts';
import type { LogPolicy } from './publication-log.ts';
import type { ActivationVeto, GenerationRepository, ManifestRecord, StoredChunkEntities, StoredChunkText } from '../port.ts';
import type { ActivationResult, ChunkRecord, GenerationInput, GenerationRecord, LoadedGeneration, ServingGeneration } from '../../domain/generation.ts';
import type { UsageBesides } from '../../domain/limits.ts';
import { chunkTextBytes } from '../../domain/limits.ts';
import { allowAnyActivation, GenerationMoved } from '../shared/activation.ts';
import { usageBesides } from '../shared/usage.ts';
import type { ReplacedGenerationRow } from '../shared/usage.ts';

/**
 * Chunk texts read by one statement (an answer of 10 versions with up to 3 evidence items each asks for 30):
 * one statement for the whole answer costs about two thirds of one per generation, measured. A statement is
 * prepared once for each batch size up to this.
 */
export const CHUNK_TEXT_READ_BATCH = 32;

export class SqliteGenerationRepository implements GenerationRepository {
  private readonly database: ClientDatabase;
  private readonly log: LogPolicy;

  /** `log`: how activations append to the publication log (each appends one entry). */
  constructor(database: ClientDatabase, log: LogPolicy) {
    this.database = database;
    this.log = log;
  }

  private get db() {
    return this.database.db;
  }

  async stage(input: GenerationInput): Promise<number> {
    return transaction(this.db, () => this.insertGeneration(input));
  }

  async stagedGenerationOf(jobId: string): Promise<number | null> {
    const row = this.db.prepare(`SELECT generation FROM generations WHERE job_id = ? AND state = 'staged' ORDER BY generation DESC LIMIT 1`).get(jobId) as
      | { generation: number }
      | undefined;
    return row?.generation ?? null;
  }

  async discardStaged(generation: number): Promise<void> {
    this.db.prepare(`DELETE FROM generations WHERE generation = ? AND state = 'staged'`).run(generation);
  }

  async activateStaged(generation: number, allow: ActivationVeto = allowAnyActivation): Promise<ActivationResult | null> {
    return transaction(this.db, () => {
      const staged = readGeneration(this.db, generation);
      if (!staged || staged.state !== 'staged') return null;
      const current = readActiveGeneration(this.db, staged.documentId, staged.versionKey);
      if (!allow(current)) return null;
      this.activate(staged.documentId, staged.versionKey, generation, current?.generation ?? null, staged.createdAt);
      return { generation, previousGeneration: current?.generation ?? null };
    });
  }

  async stageAndActivate(input: GenerationInput, allow: ActivationVeto = allowAnyActivation): Promise<ActivationResult | null> {
    return transaction(this.db, () => {
      const current = readActiveGeneration(this.db, input.documentId, input.versionKey);
      if (!allow(current)) return null;
      const generation = this.insertGeneration(input);
      this.activate(input.documentId, input.versionKey, generation, current?.generation ?? null, input.createdAt);
      return { generation, previousGeneration: current?.generation ?? null };
    });
  }

  async replaceGenerations(replacements: { input: GenerationInput; expected: number | null }[]): Promise<ActivationResult[] | null> {
    try {
      return transaction(this.db, () =>
        replacements.map(({ input, expected }) => {
          const current = readActiveGeneration(this.db, input.documentId, input.versionKey);
          if ((current?.generation ?? null) !== expected) throw new GenerationMoved();
          const generation = this.insertGeneration(input);
          this.activate(input.documentId, input.versionKey, generation, current?.generation ?? null, input.createdAt);
          return { generation, previousGeneration: current?.generation ?? null };
        }),
      );
    } catch (error) {
      if (error instanceof GenerationMoved) return null;
      throw error;
    }
  }

  private insertGeneration(input: GenerationInput): number {
    const row = cachedStatement(
        this.db,
        `INSERT INTO generations (document_id, version_key, job_id, state, created_at, staged_at, canonical_metadata, entities, embedding,
           deleted, deleted_at, deleted_by, chunk_count, manifest, text_bytes, leaves_indexed)
         VALUES (?, ?, ?, 'staged', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING generation`,
      ).get(
        input.documentId,
        input.versionKey,
        input.jobId,
        input.createdAt,
        this.database.at(),
        JSON.stringify(input.canonicalMetadata),
        JSON.stringify(input.entities),
        JSON.stringify(input.embedding),
        input.deletion.deleted ? 1 : 0,
        input.deletion.deletedAt,
        input.deletion.deletedBy,
        input.chunks.length,
        JSON.stringify(input.manifest),
        chunkTextBytes(input.chunks),
        input.leavesIndexed === false ? 0 : 1,
      ) as { generation: number };
    const insertChunk = cachedStatement(
      this.db,
      'INSERT INTO chunks (generation, chunk_index, page, page_label, text, entities, vector, language, row_first, row_last) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    for (const chunk of input.chunks) {
      const rows = chunk.rows ?? null;
      insertChunk.run(row.generation, chunk.chunkIndex, chunk.page, chunk.pageLabel, chunk.text, JSON.stringify(chunk.entities), vectorToBlob(chunk.vector), chunk.language, rows?.first ?? null, rows?.last ?? null);
    }
    const insertLeaf = cachedStatement(this.db, 'INSERT INTO metadata_leaves (generation, ordinal, path, value, value_type) VALUES (?, ?, ?, ?, ?)');
    input.leaves.forEach((leaf, ordinal) => {
      insertLeaf.run(row.generation, ordinal, JSON.stringify(leaf.path), JSON.stringify(leaf.value), leaf.valueType);
    });
    if (input.lanes) cachedStatement(this.db, 'INSERT INTO generation_lanes (generation, lanes) VALUES (?, ?)').run(row.generation, input.lanes);
    return row.generation;
  }

  /** Inside a write transaction: retire, activate, point the version at it, and log the publication. */
  private activate(documentId: string, versionKey: string, generation: number, previous: number | null, createdAt: string): void {
    const at = this.database.at();
    if (previous !== null) {
      cachedStatement(this.db, `UPDATE generations SET state = 'retired', retired_at = ? WHERE generation = ?`).run(at, previous);
    }
    cachedStatement(this.db, `UPDATE generations SET state = 'active', activated_at = ? WHERE generation = ?`).run(at, generation);
    cachedStatement(
        this.db,
        `INSERT INTO versions (document_id, version_key, active_generation, created_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (document_id, version_key) DO UPDATE SET active_generation = excluded.active_generation`,
      ).run(documentId, versionKey, generation, createdAt);
    appendLogEntry(this.database, this.log, { kind: 'activate', documentId, versionKey, generation });
  }

  async activeGeneration(documentId: string, versionKey: string): Promise<GenerationRecord | null> {
    return readActiveGeneration(this.db, documentId, versionKey);
  }

  async generation(generation: number): Promise<GenerationRecord | null> {
    return readGeneration(this.db, generation);
  }

  async manifest(generation: number): Promise<ManifestRecord | null> {
    const row = cachedStatement(this.db, 'SELECT generation, state, document_id, version_key, job_id, chunk_count, manifest FROM generations WHERE generation = ?').get(generation) as
      | ManifestRow
      | undefined;
    return row ? toManifestRecord(row) : null;
  }

  async activeManifest(documentId: string, versionKey: string): Promise<ManifestRecord | null> {
    const row = cachedStatement(
        this.db,
        `SELECT g.generation, g.state, g.document_id, g.version_key, g.job_id, g.chunk_count, g.manifest
         FROM versions v JOIN generations g ON g.generation = v.active_generation WHERE v.document_id = ? AND v.version_key = ?`,
      ).get(documentId, versionKey) as ManifestRow | undefined;
    return row ? toManifestRecord(row) : null;
  }

  async loadGeneration(generation: number): Promise<LoadedGeneration | null> {
    const loaded = readStoredLoadedGeneration(this.db, generation);
    return loaded ? readable(loaded) : null;
  }

  async chunkTexts(keys: readonly { generation: number; chunkIndex: number }[]): Promise<(StoredChunkText | null)[]> {
    return this.chunkColumns(keys, 'text, language, row_first, row_last', (row) => storedChunkText(row as { text: string; language: string | null; row_first: number | null; row_last: number | null }));
  }

  async chunkVectors(keys: readonly { generation: number; chunkIndex: number }[]): Promise<(Float32Array | null)[]> {
    return this.chunkColumns(keys, 'vector', (row) => blobToVector(row.vector as Uint8Array));
  }

  /**
   * `columns` of these chunks, each row read by `read`, in the order asked, null where one is gone. Chunks of a
   * generation never change, so the reads need no enclosing transaction. Each batch of keys is one statement: a
   * lookup of (generation, chunk_index) pairs in the primary key.
   */
  private chunkColumns<T>(keys: readonly { generation: number; chunkIndex: number }[], columns: string, read: (row: Record<string, unknown>) => T): (T | null)[] {
    const out: (T | null)[] = keys.map(() => null);
    for (let from = 0; from < keys.length; from += CHUNK_TEXT_READ_BATCH) {
      const batch = keys.slice(from, from + CHUNK_TEXT_READ_BATCH);
      const statement = cachedStatement(this.db, `SELECT generation, chunk_index, ${columns} FROM chunks WHERE (generation, chunk_index) IN (VALUES ${batch.map(() => '(?, ?)').join(', ')})`);
      const rows = statement.all(...batch.flatMap((key) => [key.generation, key.chunkIndex])) as { generation: number; chunk_index: number }[];
      const found = new Map(rows.map((row) => [`${row.generation}:${row.chunk_index}`, read(row)]));
      batch.forEach((key, at) => {
        out[from + at] = found.get(`${key.generation}:${key.chunkIndex}`) ?? null;
      });
    }
    return out;
  }

  async chunkRange(generation: number, offset: number, limit: number): Promise<ChunkRecord[]> {
    const rows = this.db
      .prepare('SELECT * FROM chunks WHERE generation = ? ORDER BY chunk_index LIMIT ? OFFSET ?')
      .all(generation, limit, offset) as unknown as ChunkRow[];
    return rows.map(toChunk);
  }

  async chunkEntities(generation: number): Promise<StoredChunkEntities[]> {
    const rows = cachedStatement(this.db, 'SELECT chunk_index, entities FROM chunks WHERE generation = ? ORDER BY chunk_index').all(generation) as { chunk_index: number; entities: string }[];
    return rows.map((row) => ({ chunkIndex: row.chunk_index, entitiesJson: row.entities }));
  }

  async activeGenerationsOf(documentId: string): Promise<GenerationRecord[]> {
    const rows = this.db
      .prepare(
        `SELECT g.* FROM versions v JOIN generations g ON g.generation = v.active_generation
         WHERE v.document_id = ? ORDER BY v.version_key`,
      )
      .all(documentId) as unknown as GenerationRow[];
    return rows.map(toGeneration);
  }

  async activeGenerationsAfter(cursor: { documentId: string; versionKey: string } | null, limit: number): Promise<LoadedGeneration[]> {
    const rows = this.db
      .prepare(
        `SELECT v.active_generation AS generation FROM versions v
         WHERE v.active_generation IS NOT NULL
           AND (v.document_id > ? OR (v.document_id = ? AND v.version_key > ?))
           AND NOT EXISTS (SELECT 1 FROM purge_journal p WHERE p.document_id = v.document_id AND p.version_key = v.version_key)
         ORDER BY v.document_id, v.version_key LIMIT ?`,
      )
      .all(cursor?.documentId ?? '', cursor?.documentId ?? '', cursor?.versionKey ?? '', limit) as { generation: number }[];
    // Unreadable ones come too, named as such: a backfill says the Client needs repair instead of failing blind.
    return readTransaction(this.db, () =>
      rows.flatMap(({ generation }) => {
        const loaded = readStoredLoadedGeneration(this.db, generation);
        return loaded?.state === 'active' ? [loaded] : [];
      }),
    );
  }

  async activeVersionCount(): Promise<number> {
    const row = this.db
      .prepare(
        `SELECT COUNT(*) AS n FROM generations g WHERE g.state = 'active'
           AND NOT EXISTS (SELECT 1 FROM purge_journal p WHERE p.document_id = g.document_id AND p.version_key = g.version_key)`,
      )
      .get() as { n: number };
    return row.n;
  }

  async servedGenerationIds(): Promise<number[]> {
    return (this.db
      .prepare(
        `SELECT g.generation FROM generations g
         WHERE g.state = 'active'
           AND NOT EXISTS (SELECT 1 FROM purge_journal p WHERE p.document_id = g.document_id AND p.version_key = g.version_key)
         ORDER BY g.generation`,
      )
      .all() as { generation: number }[]).map((row) => row.generation);
  }

  async loadActiveGenerations(generations: readonly number[], options: { content?: boolean } = {}): Promise<ServingGeneration[]> {
    return readTransaction(this.db, () =>
      generations.flatMap((generation) => {
        const loaded = readServingGeneration(this.db, generation, options.content ?? true);
        return loaded?.state === 'active' ? [loaded] : [];
      }),
    );
  }

  async hasUnindexedLeaves(): Promise<boolean> {
    const row = cachedStatement(this.db, `SELECT EXISTS (SELECT 1 FROM generations WHERE state = 'active' AND leaves_indexed = 0) AS found`).get() as { found: number };
    return row.found === 1;
  }

  async usage(besides: { documentId: string; versionKey: string }): Promise<UsageBesides> {
    const db = this.db;
    return readTransaction(db, () => {
      // Running totals (kept by triggers, client-migrations.ts) less the version an upload would replace (usageBesides).
      const totals = cachedStatement(db, 'SELECT documents, chunks, text_bytes FROM usage_totals WHERE id = 1').get() as { documents: number; chunks: number; text_bytes: number };
      const replaced = cachedStatement(db, `SELECT chunk_count, text_bytes FROM generations WHERE state = 'active' AND document_id = ? AND version_key = ?`).get(
        besides.documentId,
        besides.versionKey,
      ) as ReplacedGenerationRow | undefined;
      const versions = (cachedStatement(db, 'SELECT versions FROM active_documents WHERE document_id = ?').get(besides.documentId) as { versions: number } | undefined)?.versions ?? 0;
      return usageBesides(totals, replaced, versions);
    });
  }

  async cleanupRetiredBefore(cutoff: string): Promise<number> {
    return transaction(this.db, () => {
      const rows = this.db
        .prepare(`SELECT generation FROM generations WHERE state = 'retired' AND content_removed = 0 AND retired_at <= ?`)
        .all(cutoff) as { generation: number }[];
      let removed = 0;
      for (const { generation } of rows) {
        removed += Number(this.db.prepare('DELETE FROM chunks WHERE generation = ?').run(generation).changes);
        this.db.prepare('DELETE FROM metadata_leaves WHERE generation = ?').run(generation);
        this.db.prepare('DELETE FROM generation_lanes WHERE generation = ?').run(generation);
        this.db.prepare('UPDATE generations SET content_removed = 1 WHERE generation = ?').run(generation);
      }
      return removed;
    });
  }
}
