// The PostgreSQL generation repository of one Client: versions, immutable generations with chunks, vectors,
// metadata leaves and lane data. Staging and activation are single transactions (an activation appends its
// publication-log entry in the same one), as in the SQLite adapter; nothing here decides visibility beyond that.

import type pg from 'pg';
import { clientReadStatement, clientTransaction, sqlIntegers } from './database.ts';
import type { Sql } from './database.ts';
import { asBytes, GENERATION_COLUMNS, readActiveGeneration, readGeneration, readLoadedGenerations, readServingGenerations, toStoredChunk } from './generation-reads.ts';
import { appendLogEntry } from './publication-log.ts';
import type { LogPolicy } from './publication-log.ts';
import { blobToVector, readable, storedChunkText, toGeneration, toManifestRecord, vectorToBlob } from '../shared/generation-records.ts';
import type { GenerationRow, ManifestRow } from '../shared/generation-records.ts';
import type { ActivationVeto, GenerationRepository, ManifestRecord, StoredChunkEntities, StoredChunkText } from '../port.ts';
import type { ActivationResult, ChunkRecord, GenerationInput, GenerationRecord, LoadedGeneration, ServingGeneration } from '../../domain/generation.ts';
import type { UsageBesides } from '../../domain/limits.ts';
import { chunkTextBytes } from '../../domain/limits.ts';
import { allowAnyActivation, GenerationMoved } from '../shared/activation.ts';
import { usageBesides } from '../shared/usage.ts';
import type { ReplacedGenerationRow, UsageTotalsRow } from '../shared/usage.ts';

const MANIFEST_COLUMNS = 'g.generation, g.state, g.document_id, g.version_key, g.job_id, g.chunk_count, g.manifest';

/** The bytes the driver sends for a vector (a Buffer over the same memory, no copy). */
function vectorBytes(vector: Float32Array): Buffer {
  const blob = vectorToBlob(vector);
  return Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength);
}

export class PgGenerationRepository implements GenerationRepository {
  private readonly pool: pg.Pool;
  private readonly clientId: string;
  private readonly log: LogPolicy;

  /** `log`: how activations append to the publication log (each appends one entry). */
  constructor(pool: pg.Pool, clientId: string, log: LogPolicy) {
    this.pool = pool;
    this.clientId = clientId;
    this.log = log;
  }

  private read<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    return clientTransaction(this.pool, this.clientId, 'read', fn);
  }

  private consistent<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    return clientTransaction(this.pool, this.clientId, 'consistent', fn);
  }

  private write<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    return clientTransaction(this.pool, this.clientId, 'write', fn);
  }

  async stage(input: GenerationInput): Promise<number> {
    return this.write((sql) => this.insertGeneration(sql, input));
  }

  async stagedGenerationOf(jobId: string): Promise<number | null> {
    const { rows } = await this.read((sql) =>
      sql.query<{ generation: number }>(`SELECT generation FROM generations WHERE job_id = $1 AND state = 'staged' ORDER BY generation DESC LIMIT 1`, [jobId]),
    );
    return rows[0]?.generation ?? null;
  }

  async discardStaged(generation: number): Promise<void> {
    await this.write((sql) => sql.query(`DELETE FROM generations WHERE generation = $1 AND state = 'staged'`, [generation]));
  }

  async activateStaged(generation: number, allow: ActivationVeto = allowAnyActivation): Promise<ActivationResult | null> {
    return this.write(async (sql) => {
      const staged = await readGeneration(sql, generation);
      if (!staged || staged.state !== 'staged') return null;
      const current = await readActiveGeneration(sql, staged.documentId, staged.versionKey);
      if (!allow(current)) return null;
      await this.activate(sql, staged.documentId, staged.versionKey, generation, current?.generation ?? null, staged.createdAt);
      return { generation, previousGeneration: current?.generation ?? null };
    });
  }

  async stageAndActivate(input: GenerationInput, allow: ActivationVeto = allowAnyActivation): Promise<ActivationResult | null> {
    return this.write(async (sql) => {
      const current = await readActiveGeneration(sql, input.documentId, input.versionKey);
      if (!allow(current)) return null;
      const generation = await this.insertGeneration(sql, input);
      await this.activate(sql, input.documentId, input.versionKey, generation, current?.generation ?? null, input.createdAt);
      return { generation, previousGeneration: current?.generation ?? null };
    });
  }

  async replaceGenerations(replacements: { input: GenerationInput; expected: number | null }[]): Promise<ActivationResult[] | null> {
    try {
      return await this.write(async (sql) => {
        const results: ActivationResult[] = [];
        for (const { input, expected } of replacements) {
          const current = await readActiveGeneration(sql, input.documentId, input.versionKey);
          if ((current?.generation ?? null) !== expected) throw new GenerationMoved();
          const generation = await this.insertGeneration(sql, input);
          await this.activate(sql, input.documentId, input.versionKey, generation, current?.generation ?? null, input.createdAt);
          results.push({ generation, previousGeneration: current?.generation ?? null });
        }
        return results;
      });
    } catch (error) {
      if (error instanceof GenerationMoved) return null;
      throw error;
    }
  }

  /** Inside a write transaction: the generation row, then its chunks, leaves and lane data, one statement each. */
  private async insertGeneration(sql: Sql, input: GenerationInput): Promise<number> {
    const { rows } = await sql.query<{ generation: number }>(
      `INSERT INTO generations (client_id, document_id, version_key, job_id, state, created_at, staged_at, canonical_metadata, entities, embedding,
         deleted, deleted_at, deleted_by, chunk_count, manifest, text_bytes, leaves_indexed)
       VALUES ($1, $2, $3, $4, 'staged', $5, db_now(), $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING generation`,
      [
        this.clientId,
        input.documentId,
        input.versionKey,
        input.jobId,
        input.createdAt,
        JSON.stringify(input.canonicalMetadata),
        JSON.stringify(input.entities),
        JSON.stringify(input.embedding),
        input.deletion.deleted,
        input.deletion.deletedAt,
        input.deletion.deletedBy,
        input.chunks.length,
        JSON.stringify(input.manifest),
        chunkTextBytes(input.chunks),
        input.leavesIndexed !== false,
      ],
    );
    const { generation } = rows[0];
    if (input.chunks.length > 0) {
      await sql.query(
        `INSERT INTO chunks (client_id, generation, chunk_index, page, page_label, text, entities, vector, language, row_first, row_last)
         SELECT $1, $2, c.chunk_index, c.page, c.page_label, c.text, c.entities, c.vector, c.language, c.row_first, c.row_last
         FROM unnest($3::integer[], $4::integer[], $5::text[], $6::text[], $7::text[], $8::bytea[], $9::text[], $10::integer[], $11::integer[])
           AS c (chunk_index, page, page_label, text, entities, vector, language, row_first, row_last)`,
        [
          this.clientId,
          generation,
          input.chunks.map((chunk) => chunk.chunkIndex),
          input.chunks.map((chunk) => chunk.page),
          input.chunks.map((chunk) => chunk.pageLabel),
          input.chunks.map((chunk) => chunk.text),
          input.chunks.map((chunk) => JSON.stringify(chunk.entities)),
          input.chunks.map((chunk) => vectorBytes(chunk.vector)),
          input.chunks.map((chunk) => chunk.language),
          input.chunks.map((chunk) => chunk.rows?.first ?? null),
          input.chunks.map((chunk) => chunk.rows?.last ?? null),
        ],
      );
    }
    if (input.leaves.length > 0) {
      await sql.query(
        `INSERT INTO metadata_leaves (client_id, generation, ordinal, path, value, value_type)
         SELECT $1, $2, l.ordinal - 1, l.path, l.value, l.value_type
         FROM unnest($3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS l (path, value, value_type, ordinal)`,
        [
          this.clientId,
          generation,
          input.leaves.map((leaf) => JSON.stringify(leaf.path)),
          input.leaves.map((leaf) => JSON.stringify(leaf.value)),
          input.leaves.map((leaf) => leaf.valueType),
        ],
      );
    }
    if (input.lanes) {
      await sql.query('INSERT INTO generation_lanes (client_id, generation, lanes) VALUES ($1, $2, $3)', [
        this.clientId,
        generation,
        Buffer.from(input.lanes.buffer, input.lanes.byteOffset, input.lanes.byteLength),
      ]);
    }
    return generation;
  }

  /** Inside a write transaction: retire, activate, point the version at it, and log the publication. */
  private async activate(sql: Sql, documentId: string, versionKey: string, generation: number, previous: number | null, createdAt: string): Promise<void> {
    if (previous !== null) await sql.query(`UPDATE generations SET state = 'retired', retired_at = db_now() WHERE generation = $1`, [previous]);
    await sql.query(`UPDATE generations SET state = 'active', activated_at = db_now() WHERE generation = $1`, [generation]);
    await sql.query(
      `INSERT INTO versions (client_id, document_id, version_key, active_generation, created_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (client_id, document_id, version_key) DO UPDATE SET active_generation = excluded.active_generation`,
      [this.clientId, documentId, versionKey, generation, createdAt],
    );
    await appendLogEntry(sql, this.clientId, this.log, { kind: 'activate', documentId, versionKey, generation });
  }

  async activeGeneration(documentId: string, versionKey: string): Promise<GenerationRecord | null> {
    return this.read((sql) => readActiveGeneration(sql, documentId, versionKey));
  }

  async generation(generation: number): Promise<GenerationRecord | null> {
    return this.read((sql) => readGeneration(sql, generation));
  }

  async manifest(generation: number): Promise<ManifestRecord | null> {
    const { rows } = await this.read((sql) => sql.query<ManifestRow>(`SELECT ${MANIFEST_COLUMNS} FROM generations g WHERE g.generation = $1`, [generation]));
    return rows[0] ? toManifestRecord(rows[0]) : null;
  }

  async activeManifest(documentId: string, versionKey: string): Promise<ManifestRecord | null> {
    const { rows } = await this.read((sql) =>
      sql.query<ManifestRow>(
        `SELECT ${MANIFEST_COLUMNS} FROM versions v JOIN generations g ON g.client_id = v.client_id AND g.generation = v.active_generation
         WHERE v.document_id = $1 AND v.version_key = $2`,
        [documentId, versionKey],
      ),
    );
    return rows[0] ? toManifestRecord(rows[0]) : null;
  }

  async loadGeneration(generation: number): Promise<LoadedGeneration | null> {
    const [loaded] = await this.consistent((sql) => readLoadedGenerations(sql, [generation]));
    return loaded ? readable(loaded) : null;
  }

  async chunkTexts(keys: readonly { generation: number; chunkIndex: number }[]): Promise<(StoredChunkText | null)[]> {
    const rows = await this.chunkColumns<{ text: string | null; language: string | null; row_first: number | null; row_last: number | null }>(keys, 'c.text, c.language, c.row_first, c.row_last');
    return rows.map((row) => (row.text === null ? null : storedChunkText({ text: row.text, language: row.language, row_first: row.row_first, row_last: row.row_last })));
  }

  async chunkVectors(keys: readonly { generation: number; chunkIndex: number }[]): Promise<(Float32Array | null)[]> {
    const rows = await this.chunkColumns<{ vector: Buffer | null }>(keys, 'c.vector');
    return rows.map((row) => (row.vector === null ? null : blobToVector(asBytes(row.vector))));
  }

  /** `columns` of the chunks (`c`) at these keys, one row per key in the order asked (all null where one is gone). */
  private async chunkColumns<Row extends pg.QueryResultRow>(keys: readonly { generation: number; chunkIndex: number }[], columns: string): Promise<Row[]> {
    if (keys.length === 0) return [];
    // One statement for every key: the keys joined to the chunks' primary key, answered in the order asked. Every
    // search reads its page's chunks so: in one round trip (clientReadStatement), its keys written in as integers.
    const generations = sqlIntegers(keys.map((key) => key.generation), 'bigint');
    const chunkIndexes = sqlIntegers(keys.map((key) => key.chunkIndex), 'integer');
    return clientReadStatement<Row>(
      this.pool,
      this.clientId,
      `SELECT ${columns} FROM unnest(${generations}, ${chunkIndexes}) WITH ORDINALITY AS k (generation, chunk_index, ordinal)
       LEFT JOIN chunks c ON c.generation = k.generation AND c.chunk_index = k.chunk_index
       ORDER BY k.ordinal`,
    );
  }

  async chunkRange(generation: number, offset: number, limit: number): Promise<ChunkRecord[]> {
    const { rows } = await this.read((sql) =>
      sql.query<{ chunk_index: number; page: number | null; page_label: string | null; text: string; entities: string; vector: Buffer; language: string | null; row_first: number | null; row_last: number | null }>(
        'SELECT chunk_index, page, page_label, text, entities, vector, language, row_first, row_last FROM chunks WHERE generation = $1 ORDER BY chunk_index LIMIT $2 OFFSET $3',
        [generation, limit, offset],
      ),
    );
    return rows.map(toStoredChunk);
  }

  async chunkEntities(generation: number): Promise<StoredChunkEntities[]> {
    const { rows } = await this.read((sql) =>
      sql.query<{ chunk_index: number; entities: string }>('SELECT chunk_index, entities FROM chunks WHERE generation = $1 ORDER BY chunk_index', [generation]),
    );
    return rows.map((row) => ({ chunkIndex: row.chunk_index, entitiesJson: row.entities }));
  }

  async activeGenerationsOf(documentId: string): Promise<GenerationRecord[]> {
    const { rows } = await this.read((sql) =>
      sql.query<GenerationRow>(
        `SELECT ${GENERATION_COLUMNS} FROM versions v JOIN generations g ON g.client_id = v.client_id AND g.generation = v.active_generation
         WHERE v.document_id = $1 ORDER BY v.version_key`,
        [documentId],
      ),
    );
    return rows.map(toGeneration);
  }

  async activeGenerationsAfter(cursor: { documentId: string; versionKey: string } | null, limit: number): Promise<LoadedGeneration[]> {
    return this.consistent(async (sql) => {
      const { rows } = await sql.query<{ generation: number }>(
        `SELECT v.active_generation AS generation FROM versions v
         WHERE v.active_generation IS NOT NULL
           AND (v.document_id, v.version_key) > ($1, $2)
           AND NOT EXISTS (SELECT 1 FROM purge_journal p WHERE p.document_id = v.document_id AND p.version_key = v.version_key)
         ORDER BY v.document_id, v.version_key LIMIT $3`,
        [cursor?.documentId ?? '', cursor?.versionKey ?? '', limit],
      );
      // Unreadable ones come too, named as such: a backfill says the Client needs repair instead of failing blind.
      const loaded = await readLoadedGenerations(sql, rows.map((row) => row.generation));
      return loaded.filter((generation) => generation.state === 'active');
    });
  }

  async activeVersionCount(): Promise<number> {
    const { rows } = await this.read((sql) =>
      sql.query<{ n: number }>(
        `SELECT count(*) AS n FROM generations g WHERE g.state = 'active'
           AND NOT EXISTS (SELECT 1 FROM purge_journal p WHERE p.document_id = g.document_id AND p.version_key = g.version_key)`,
      ),
    );
    return rows[0].n;
  }

  async servedGenerationIds(): Promise<number[]> {
    const { rows } = await this.read((sql) =>
      sql.query<{ generation: number }>(
        `SELECT g.generation FROM generations g
         WHERE g.state = 'active'
           AND NOT EXISTS (SELECT 1 FROM purge_journal p WHERE p.document_id = g.document_id AND p.version_key = g.version_key)
         ORDER BY g.generation`,
      ),
    );
    return rows.map((row) => row.generation);
  }

  async loadActiveGenerations(generations: readonly number[], options: { content?: boolean } = {}): Promise<ServingGeneration[]> {
    if (generations.length === 0) return [];
    const loaded = await this.consistent((sql) => readServingGenerations(sql, generations, options.content ?? true));
    return loaded.filter((generation) => generation.state === 'active');
  }

  async hasUnindexedLeaves(): Promise<boolean> {
    const { rows } = await this.read((sql) => sql.query<{ found: boolean }>(`SELECT EXISTS (SELECT 1 FROM generations WHERE state = 'active' AND NOT leaves_indexed) AS found`));
    return rows[0].found;
  }

  async usage(besides: { documentId: string; versionKey: string }): Promise<UsageBesides> {
    return this.consistent(async (sql) => {
      // Running totals (kept by triggers, migrations.ts) less the version an upload would replace (usageBesides).
      const totals = (await sql.query<UsageTotalsRow>('SELECT documents, chunks, text_bytes FROM usage_totals')).rows[0] ?? {
        documents: 0,
        chunks: 0,
        text_bytes: 0,
      };
      const replaced = (
        await sql.query<ReplacedGenerationRow>(`SELECT chunk_count, text_bytes FROM generations WHERE state = 'active' AND document_id = $1 AND version_key = $2`, [
          besides.documentId,
          besides.versionKey,
        ])
      ).rows[0];
      const versions = (await sql.query<{ versions: number }>('SELECT versions FROM active_documents WHERE document_id = $1', [besides.documentId])).rows[0]?.versions ?? 0;
      return usageBesides(totals, replaced, versions);
    });
  }

  async cleanupRetiredBefore(cutoff: string): Promise<number> {
    return this.write(async (sql) => {
      const { rows } = await sql.query<{ generation: number }>(
        `UPDATE generations SET content_removed = true WHERE state = 'retired' AND NOT content_removed AND retired_at <= $1::timestamptz RETURNING generation`,
        [cutoff],
      );
      if (rows.length === 0) return 0;
      const generations = rows.map((row) => row.generation);
      const removed = await sql.query('DELETE FROM chunks WHERE generation = ANY($1::bigint[])', [generations]);
      await sql.query('DELETE FROM metadata_leaves WHERE generation = ANY($1::bigint[])', [generations]);
      await sql.query('DELETE FROM generation_lanes WHERE generation = ANY($1::bigint[])', [generations]);
      return removed.rowCount ?? 0;
    });
  }
}
