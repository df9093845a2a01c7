// One Client's durable state: versions, immutable generations with chunks, vectors and metadata leaves.
// Staging and activation are single transactions; nothing here decides visibility rules beyond that.

import type { Database } from './sqlite.ts';
import { transaction } from './sqlite.ts';
import type { CanonicalMetadata, JsonObject, JsonValue } from '../domain/canonical-metadata.ts';
import type { Entities } from '../domain/entities.ts';

export interface ChunkRecord {
  chunkIndex: number;
  page: number | null;
  pageLabel: string | null;
  text: string;
  entities: Entities;
  vector: Float32Array;
}

export interface MetadataLeaf {
  path: string[];
  value: JsonValue;
  valueType: string;
}

export interface DeletionMarkers {
  deleted: boolean;
  deletedAt: string | null;
  deletedBy: string | null;
}

export interface GenerationInput {
  documentId: string;
  versionKey: string;
  jobId: string | null;
  /** When the Document Version's content was created (kept across metadata-only generations). */
  createdAt: string;
  canonicalMetadata: CanonicalMetadata;
  entities: Entities;
  embedding: JsonObject;
  deletion: DeletionMarkers;
  chunks: ChunkRecord[];
  leaves: MetadataLeaf[];
  manifest: JsonObject;
}

export interface GenerationRecord extends Omit<GenerationInput, 'chunks' | 'leaves'> {
  generation: number;
  state: 'staged' | 'active' | 'retired';
  stagedAt: string;
  activatedAt: string | null;
  chunkCount: number;
}

export interface LoadedGeneration extends GenerationRecord {
  chunks: ChunkRecord[];
  leaves: MetadataLeaf[];
}

interface GenerationRow {
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
}

interface ChunkRow {
  chunk_index: number;
  page: number | null;
  page_label: string | null;
  text: string;
  entities: string;
  vector: Uint8Array;
}

function toGeneration(row: GenerationRow): GenerationRecord {
  return {
    generation: row.generation,
    documentId: row.document_id,
    versionKey: row.version_key,
    jobId: row.job_id,
    state: row.state,
    createdAt: row.created_at,
    stagedAt: row.staged_at,
    activatedAt: row.activated_at,
    canonicalMetadata: JSON.parse(row.canonical_metadata),
    entities: JSON.parse(row.entities),
    embedding: JSON.parse(row.embedding),
    deletion: { deleted: row.deleted === 1, deletedAt: row.deleted_at, deletedBy: row.deleted_by },
    chunkCount: row.chunk_count,
    manifest: JSON.parse(row.manifest),
  };
}

function vectorToBlob(vector: Float32Array): Uint8Array {
  return new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength);
}

function blobToVector(blob: Uint8Array): Float32Array {
  // Copy: the blob's offset need not be 4-byte aligned.
  return new Float32Array(blob.slice().buffer);
}

function toChunk(row: ChunkRow): ChunkRecord {
  return {
    chunkIndex: row.chunk_index,
    page: row.page,
    pageLabel: row.page_label,
    text: row.text,
    entities: JSON.parse(row.entities),
    vector: blobToVector(row.vector),
  };
}

/** A version's active generation changed between read and write (a source-generation race). */
export class GenerationMoved extends Error {
  constructor() {
    super('the active generation moved');
    this.name = 'GenerationMoved';
  }
}

export interface ActivationResult {
  generation: number;
  previousGeneration: number | null;
}

export class ClientStore {
  readonly clientId: string;
  private readonly db: Database;
  private readonly now: () => number;

  constructor(clientId: string, db: Database, now: () => number = Date.now) {
    this.clientId = clientId;
    this.db = db;
    this.now = now;
  }

  close(): void {
    this.db.close();
  }

  /**
   * Writes a staged generation and, in the same transaction, activates it when `beforeActivate` agrees.
   * `beforeActivate` sees the version's current active generation and may veto (return false): the
   * staged rows are then rolled back and null is returned. Visibility changes happen only on commit.
   */
  stageAndActivate(input: GenerationInput, beforeActivate: (current: GenerationRecord | null) => boolean = () => true): ActivationResult | null {
    return transaction(this.db, () => {
      const current = this.activeGeneration(input.documentId, input.versionKey);
      if (!beforeActivate(current)) return null;
      const generation = this.insertGeneration(input);
      this.activate(input.documentId, input.versionKey, generation, current?.generation ?? null, input.createdAt);
      return { generation, previousGeneration: current?.generation ?? null };
    });
  }

  /**
   * Stages and activates several generations in one transaction, each replacing the generation its caller
   * read (`expected`). If any version moved meanwhile, nothing is written and null is returned.
   */
  replaceGenerations(replacements: { input: GenerationInput; expected: number | null }[]): ActivationResult[] | null {
    try {
      return this.replaceAll(replacements);
    } catch (error) {
      if (error instanceof GenerationMoved) return null;
      throw error;
    }
  }

  private replaceAll(replacements: { input: GenerationInput; expected: number | null }[]): ActivationResult[] {
    return transaction(this.db, () => {
      const results: ActivationResult[] = [];
      for (const { input, expected } of replacements) {
        const current = this.activeGeneration(input.documentId, input.versionKey);
        if ((current?.generation ?? null) !== expected) throw new GenerationMoved();
        const generation = this.insertGeneration(input);
        this.activate(input.documentId, input.versionKey, generation, current?.generation ?? null, input.createdAt);
        results.push({ generation, previousGeneration: current?.generation ?? null });
      }
      return results;
    });
  }

  private insertGeneration(input: GenerationInput): number {
    const at = new Date(this.now()).toISOString();
    const row = this.db
      .prepare(
        `INSERT INTO generations (document_id, version_key, job_id, state, created_at, staged_at, canonical_metadata, entities, embedding,
           deleted, deleted_at, deleted_by, chunk_count, manifest)
         VALUES (?, ?, ?, 'staged', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING generation`,
      )
      .get(
        input.documentId,
        input.versionKey,
        input.jobId,
        input.createdAt,
        at,
        JSON.stringify(input.canonicalMetadata),
        JSON.stringify(input.entities),
        JSON.stringify(input.embedding),
        input.deletion.deleted ? 1 : 0,
        input.deletion.deletedAt,
        input.deletion.deletedBy,
        input.chunks.length,
        JSON.stringify(input.manifest),
      ) as { generation: number };
    const insertChunk = this.db.prepare(
      'INSERT INTO chunks (generation, chunk_index, page, page_label, text, entities, vector) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    for (const chunk of input.chunks) {
      insertChunk.run(row.generation, chunk.chunkIndex, chunk.page, chunk.pageLabel, chunk.text, JSON.stringify(chunk.entities), vectorToBlob(chunk.vector));
    }
    const insertLeaf = this.db.prepare('INSERT INTO metadata_leaves (generation, ordinal, path, value, value_type) VALUES (?, ?, ?, ?, ?)');
    input.leaves.forEach((leaf, ordinal) => {
      insertLeaf.run(row.generation, ordinal, JSON.stringify(leaf.path), JSON.stringify(leaf.value), leaf.valueType);
    });
    return row.generation;
  }

  private activate(documentId: string, versionKey: string, generation: number, previous: number | null, createdAt: string): void {
    const at = new Date(this.now()).toISOString();
    if (previous !== null) {
      this.db.prepare(`UPDATE generations SET state = 'retired', retired_at = ? WHERE generation = ?`).run(at, previous);
    }
    this.db.prepare(`UPDATE generations SET state = 'active', activated_at = ? WHERE generation = ?`).run(at, generation);
    this.db
      .prepare(
        `INSERT INTO versions (document_id, version_key, active_generation, created_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (document_id, version_key) DO UPDATE SET active_generation = excluded.active_generation`,
      )
      .run(documentId, versionKey, generation, createdAt);
  }

  activeGeneration(documentId: string, versionKey: string): GenerationRecord | null {
    const row = this.db
      .prepare(
        `SELECT g.* FROM versions v JOIN generations g ON g.generation = v.active_generation
         WHERE v.document_id = ? AND v.version_key = ?`,
      )
      .get(documentId, versionKey) as GenerationRow | undefined;
    return row ? toGeneration(row) : null;
  }

  generation(generation: number): GenerationRecord | null {
    const row = this.db.prepare('SELECT * FROM generations WHERE generation = ?').get(generation) as GenerationRow | undefined;
    return row ? toGeneration(row) : null;
  }

  /** Only the manifest of a generation (what publication-ready polls may read). */
  manifest(generation: number): { state: string; documentId: string; versionKey: string; manifest: JsonObject } | null {
    const row = this.db.prepare('SELECT state, document_id, version_key, manifest FROM generations WHERE generation = ?').get(generation) as
      | { state: string; document_id: string; version_key: string; manifest: string }
      | undefined;
    return row ? { state: row.state, documentId: row.document_id, versionKey: row.version_key, manifest: JSON.parse(row.manifest) } : null;
  }

  loadGeneration(generation: number): LoadedGeneration | null {
    const record = this.generation(generation);
    if (!record) return null;
    const chunks = (this.db.prepare('SELECT * FROM chunks WHERE generation = ? ORDER BY chunk_index').all(generation) as unknown as ChunkRow[]).map(toChunk);
    const leaves = (this.db.prepare('SELECT path, value, value_type FROM metadata_leaves WHERE generation = ? ORDER BY ordinal').all(generation) as {
      path: string;
      value: string;
      value_type: string;
    }[]).map((row) => ({ path: JSON.parse(row.path), value: JSON.parse(row.value), valueType: row.value_type }));
    return { ...record, chunks, leaves };
  }

  /** Active generations of every version of one document. */
  activeGenerationsOf(documentId: string): GenerationRecord[] {
    const rows = this.db
      .prepare(
        `SELECT g.* FROM versions v JOIN generations g ON g.generation = v.active_generation
         WHERE v.document_id = ? ORDER BY v.version_key`,
      )
      .all(documentId) as unknown as GenerationRow[];
    return rows.map(toGeneration);
  }

  /**
   * Every active generation with its chunks, in activation order (start-up snapshot rebuild). Versions
   * under an unfinished hard-delete purge are left out: their purge resumes when the request is repeated.
   */
  *activeGenerations(): Generator<LoadedGeneration> {
    const ids = this.db
      .prepare(
        `SELECT g.generation FROM generations g
         WHERE g.state = 'active'
           AND NOT EXISTS (SELECT 1 FROM purge_journal p WHERE p.document_id = g.document_id AND p.version_key = g.version_key)
         ORDER BY g.generation`,
      )
      .all() as { generation: number }[];
    for (const { generation } of ids) {
      const loaded = this.loadGeneration(generation);
      if (loaded) yield loaded;
    }
  }

  /** Records the intent to purge these versions before anything is removed (the hard-delete journal). */
  beginPurge(documentId: string, versionKeys: string[]): void {
    const at = new Date(this.now()).toISOString();
    transaction(this.db, () => {
      const insert = this.db.prepare('INSERT OR IGNORE INTO purge_journal (document_id, version_key, started_at) VALUES (?, ?, ?)');
      for (const versionKey of versionKeys) insert.run(documentId, versionKey, at);
    });
  }

  /** Version keys of this document whose purge was started and not finished. */
  openPurges(documentId: string): string[] {
    return (this.db.prepare('SELECT version_key FROM purge_journal WHERE document_id = ? ORDER BY version_key').all(documentId) as { version_key: string }[]).map(
      (row) => row.version_key,
    );
  }

  /** Physically removes every generation of a version, its chunks and leaves, and closes its journal entry. */
  purgeVersion(documentId: string, versionKey: string): number {
    return transaction(this.db, () => {
      const chunks = this.db
        .prepare('SELECT COUNT(*) AS n FROM chunks c JOIN generations g ON g.generation = c.generation WHERE g.document_id = ? AND g.version_key = ?')
        .get(documentId, versionKey) as { n: number };
      this.db.prepare('DELETE FROM generations WHERE document_id = ? AND version_key = ?').run(documentId, versionKey);
      this.db.prepare('DELETE FROM versions WHERE document_id = ? AND version_key = ?').run(documentId, versionKey);
      this.db.prepare('DELETE FROM purge_journal WHERE document_id = ? AND version_key = ?').run(documentId, versionKey);
      return chunks.n;
    });
  }

  /** Counts what is left of a version in every lane (used to verify a purge). */
  remainingRecords(documentId: string, versionKey: string): number {
    const row = this.db.prepare('SELECT COUNT(*) AS n FROM generations WHERE document_id = ? AND version_key = ?').get(documentId, versionKey) as { n: number };
    return row.n;
  }

  /** Drops the chunk and leaf rows of retired generations; their manifests stay for successor checks. */
  cleanupRetired(generations: number[]): number {
    let removed = 0;
    for (const generation of generations) {
      removed += Number(this.db.prepare(`DELETE FROM chunks WHERE generation = ? AND ? IN (SELECT generation FROM generations WHERE state = 'retired')`).run(generation, generation).changes);
      this.db.prepare(`DELETE FROM metadata_leaves WHERE generation = ? AND ? IN (SELECT generation FROM generations WHERE state = 'retired')`).run(generation, generation);
    }
    return removed;
  }
}
