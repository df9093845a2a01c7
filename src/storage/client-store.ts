// One Client's durable state: versions, immutable generations with chunks, vectors and metadata leaves.
// Staging and activation are single transactions; nothing here decides visibility rules beyond that.

import type { Database } from './sqlite.ts';
import { cachedStatement, readTransaction, transaction } from './sqlite.ts';
import type { JsonObject } from '../domain/canonical-metadata.ts';
import { blankCanonicalMetadata, hasCanonicalShape, isJsonObject } from '../domain/canonical-metadata.ts';
import { emptyEntities } from '../domain/entities.ts';
import type { Entities } from '../domain/entities.ts';
import type { ActivationResult, ChunkRecord, GenerationInput, GenerationRecord, LoadedGeneration, MetadataLeaf, ServingGeneration } from '../domain/generation.ts';
import { UnreadableGeneration } from '../domain/generation.ts';
import type { PublicationLogEntry } from '../domain/publication-log.ts';
import type { UsageBesides } from '../domain/limits.ts';

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
  leaves_indexed: number;
}

interface ChunkRow {
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
function toGeneration(row: GenerationRow): GenerationRecord {
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
function readable<T extends GenerationRecord>(record: T): T {
  if (record.unreadable) throw new UnreadableGeneration(record.generation, record.unreadable);
  return record;
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

/** A generation's publication record: its manifest and the identity it was published under. */
export interface ManifestRecord {
  generation: number;
  state: string;
  documentId: string;
  versionKey: string;
  jobId: string | null;
  chunkCount: number;
  /** Parsed manifest JSON, or null when the stored text is not JSON (corrupt evidence). */
  manifest: JsonObject | null;
}

interface ManifestRow {
  generation: number;
  state: string;
  document_id: string;
  version_key: string;
  job_id: string | null;
  chunk_count: number;
  manifest: string;
}

function toManifestRecord(row: ManifestRow): ManifestRecord {
  let manifest: JsonObject | null;
  try {
    manifest = JSON.parse(row.manifest);
  } catch {
    manifest = null;
  }
  return { generation: row.generation, state: row.state, documentId: row.document_id, versionKey: row.version_key, jobId: row.job_id, chunkCount: row.chunk_count, manifest };
}

/** A version's active generation changed between read and write (a source-generation race). */
export class GenerationMoved extends Error {
  constructor() {
    super('the active generation moved');
    this.name = 'GenerationMoved';
  }
}


/** What a follower must apply to move from one log position to the head, read in one consistent state. */
export interface PublicationChanges {
  head: number;
  /** The oldest entry still in the log (0 when the log is empty). */
  floor: number;
  entries: PublicationLogEntry[];
  /** The generations named by the entries that are still active, as serving loads them. */
  generations: Map<number, ServingGeneration>;
}

/** The log is compacted on every this-many-th append (a cheap indexed delete). */
export const PUBLICATION_LOG_COMPACTION_EVERY = 64;

/**
 * Chunk texts read by one statement (an answer of 10 versions with up to 3 evidence items each asks for 30):
 * one statement for the whole answer costs about two thirds of one per generation, measured. A statement is
 * prepared once for each batch size up to this.
 */
export const CHUNK_TEXT_READ_BATCH = 32;

interface LogRow {
  seq: number;
  kind: 'activate' | 'remove';
  document_id: string;
  version_key: string;
  generation: number | null;
}

/**
 * How a store reaches its database: `open` connects (again after `release`), `used` tells the owner which
 * connections are in use, so that it can keep only a bounded number open (storage.ts).
 */
export interface ClientConnection {
  open(): Database;
  used?(store: ClientStore): void;
}

export class ClientStore {
  readonly clientId: string;
  private readonly connection: ClientConnection;
  private openDb: Database | null = null;
  private closed = false;
  private readonly now: () => number;
  private readonly logRetained: number;

  constructor(clientId: string, connection: ClientConnection, options: { now?: () => number; logRetained: number }) {
    this.clientId = clientId;
    this.connection = connection;
    this.now = options.now ?? Date.now;
    this.logRetained = options.logRetained;
  }

  /**
   * The open connection, connected on first use after `release`. Every statement of a method runs
   * synchronously on it (no method awaits between statements), so a release between two calls never splits
   * a transaction or a consistent read.
   */
  private get db(): Database {
    if (this.closed) throw new Error(`the store of Client ${this.clientId} is closed`);
    this.openDb ??= this.connection.open();
    this.connection.used?.(this);
    return this.openDb;
  }

  /** Whether the store holds an open connection now. */
  get isConnected(): boolean {
    return this.openDb !== null;
  }

  /** Closes the connection (and its page cache and prepared statements); the next call connects again. */
  release(): void {
    const db = this.openDb;
    this.openDb = null;
    db?.close();
  }

  close(): void {
    this.release();
    this.closed = true;
  }

  private at(): string {
    return new Date(this.now()).toISOString();
  }

  /** Writes a generation in state staged (invisible to every read) and returns its number. */
  async stage(input: GenerationInput): Promise<number> {
    return transaction(this.db, () => this.insertGeneration(input));
  }

  /** The staged generation a job left behind while it waited for publication, if any. */
  async stagedGenerationOf(jobId: string): Promise<number | null> {
    const row = this.db.prepare(`SELECT generation FROM generations WHERE job_id = ? AND state = 'staged' ORDER BY generation DESC LIMIT 1`).get(jobId) as
      | { generation: number }
      | undefined;
    return row?.generation ?? null;
  }

  /** Removes a staged generation that will never be activated (its job was superseded or failed). */
  async discardStaged(generation: number): Promise<void> {
    this.db.prepare(`DELETE FROM generations WHERE generation = ? AND state = 'staged'`).run(generation);
  }

  /**
   * Activates a staged generation when `allow` agrees, in one transaction that also retires the version's
   * previous generation and appends the publication log entry. Null when vetoed or no longer staged.
   */
  async activateStaged(generation: number, allow: (current: GenerationRecord | null) => boolean = () => true): Promise<ActivationResult | null> {
    return transaction(this.db, () => {
      const staged = this.generationSync(generation);
      if (!staged || staged.state !== 'staged') return null;
      const current = this.activeGenerationSync(staged.documentId, staged.versionKey);
      if (!allow(current)) return null;
      this.activate(staged.documentId, staged.versionKey, generation, current?.generation ?? null, staged.createdAt);
      return { generation, previousGeneration: current?.generation ?? null };
    });
  }

  /** Stages and activates one generation in a single transaction when `allow` agrees; null when vetoed. */
  async stageAndActivate(input: GenerationInput, allow: (current: GenerationRecord | null) => boolean = () => true): Promise<ActivationResult | null> {
    return transaction(this.db, () => {
      const current = this.activeGenerationSync(input.documentId, input.versionKey);
      if (!allow(current)) return null;
      const generation = this.insertGeneration(input);
      this.activate(input.documentId, input.versionKey, generation, current?.generation ?? null, input.createdAt);
      return { generation, previousGeneration: current?.generation ?? null };
    });
  }

  /**
   * Stages and activates several generations in one transaction, each replacing the generation its caller
   * read (`expected`). If any version moved meanwhile, nothing is written and null is returned.
   */
  async replaceGenerations(replacements: { input: GenerationInput; expected: number | null }[]): Promise<ActivationResult[] | null> {
    try {
      return transaction(this.db, () =>
        replacements.map(({ input, expected }) => {
          const current = this.activeGenerationSync(input.documentId, input.versionKey);
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
    const row = this.db
      .prepare(
        `INSERT INTO generations (document_id, version_key, job_id, state, created_at, staged_at, canonical_metadata, entities, embedding,
           deleted, deleted_at, deleted_by, chunk_count, manifest, text_bytes, leaves_indexed)
         VALUES (?, ?, ?, 'staged', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING generation`,
      )
      .get(
        input.documentId,
        input.versionKey,
        input.jobId,
        input.createdAt,
        this.at(),
        JSON.stringify(input.canonicalMetadata),
        JSON.stringify(input.entities),
        JSON.stringify(input.embedding),
        input.deletion.deleted ? 1 : 0,
        input.deletion.deletedAt,
        input.deletion.deletedBy,
        input.chunks.length,
        JSON.stringify(input.manifest),
        input.chunks.reduce((sum, chunk) => sum + Buffer.byteLength(chunk.text, 'utf8'), 0),
        input.leavesIndexed === false ? 0 : 1,
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
    if (input.lanes) this.db.prepare('INSERT INTO generation_lanes (generation, lanes) VALUES (?, ?)').run(row.generation, input.lanes);
    return row.generation;
  }

  /** Inside a write transaction: retire, activate, point the version at it, and log the publication. */
  private activate(documentId: string, versionKey: string, generation: number, previous: number | null, createdAt: string): void {
    const at = this.at();
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
    this.appendLog('activate', documentId, versionKey, generation);
  }

  /** Appends one log entry and drops entries older than the retained window (followers that far behind rebuild). */
  private appendLog(kind: 'activate' | 'remove', documentId: string, versionKey: string, generation: number | null): void {
    const { seq } = this.db
      .prepare('INSERT INTO publication_log (kind, document_id, version_key, generation, at) VALUES (?, ?, ?, ?, ?) RETURNING seq')
      .get(kind, documentId, versionKey, generation, this.at()) as { seq: number };
    if (seq % PUBLICATION_LOG_COMPACTION_EVERY === 0) this.db.prepare('DELETE FROM publication_log WHERE seq <= ?').run(seq - this.logRetained);
  }

  private activeGenerationSync(documentId: string, versionKey: string): GenerationRecord | null {
    const row = this.db
      .prepare(
        `SELECT g.* FROM versions v JOIN generations g ON g.generation = v.active_generation
         WHERE v.document_id = ? AND v.version_key = ?`,
      )
      .get(documentId, versionKey) as GenerationRow | undefined;
    return row ? toGeneration(row) : null;
  }

  /** The generation's record as stored, unreadable parts named (GenerationRecord.unreadable). */
  private generationSync(generation: number): GenerationRecord | null {
    const row = cachedStatement(this.db, 'SELECT * FROM generations WHERE generation = ?').get(generation) as GenerationRow | undefined;
    return row ? toGeneration(row) : null;
  }

  private chunksSync(generation: number): ChunkRecord[] {
    return (this.db.prepare('SELECT * FROM chunks WHERE generation = ? ORDER BY chunk_index').all(generation) as unknown as ChunkRow[]).map(toChunk);
  }

  /** The generation's metadata leaves; one that does not parse is left out and named in `unreadable`. */
  private leavesSync(generation: number, unreadable: string[]): MetadataLeaf[] {
    const rows = cachedStatement(this.db, 'SELECT path, value, value_type FROM metadata_leaves WHERE generation = ? ORDER BY ordinal').all(generation) as {
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

  private lanesSync(generation: number): Uint8Array | null {
    const row = cachedStatement(this.db, 'SELECT lanes FROM generation_lanes WHERE generation = ?').get(generation) as { lanes: Uint8Array } | undefined;
    return row ? row.lanes : null;
  }

  private loadGenerationSync(generation: number): LoadedGeneration | null {
    const loaded = this.storedLoadedGenerationSync(generation);
    return loaded ? readable(loaded) : null;
  }

  /** The whole generation as stored, what does not parse named in `unreadable` (its chunks left out then). */
  private storedLoadedGenerationSync(generation: number): LoadedGeneration | null {
    const record = this.generationSync(generation);
    if (!record) return null;
    const unreadable = [...(record.unreadable ?? [])];
    const leaves = this.leavesSync(generation, unreadable);
    const chunks = this.storedChunksSync(generation, unreadable);
    return { ...record, ...(unreadable.length > 0 ? { unreadable } : {}), chunks, leaves };
  }

  /** The generation's chunks; none when one does not read, named in `unreadable`. */
  private storedChunksSync(generation: number, unreadable: string[]): ChunkRecord[] {
    try {
      return this.chunksSync(generation);
    } catch {
      unreadable.push('chunks');
      return [];
    }
  }

  /**
   * What serving needs of a generation: its record, leaves and lane data; its chunks only when it has no lane
   * data. What does not parse is named in `unreadable`, not thrown: serving treats it as malformed evidence.
   */
  private servingGenerationSync(generation: number): ServingGeneration | null {
    const record = this.generationSync(generation);
    if (!record) return null;
    const unreadable = [...(record.unreadable ?? [])];
    const leaves = this.leavesSync(generation, unreadable);
    const lanes = this.lanesSync(generation);
    const served: ServingGeneration = lanes ? { ...record, leaves, lanes } : { ...record, leaves, lanes: null, chunks: this.storedChunksSync(generation, unreadable) };
    if (unreadable.length > 0) served.unreadable = unreadable;
    return served;
  }

  async activeGeneration(documentId: string, versionKey: string): Promise<GenerationRecord | null> {
    return this.activeGenerationSync(documentId, versionKey);
  }

  async generation(generation: number): Promise<GenerationRecord | null> {
    return this.generationSync(generation);
  }

  /** Only the manifest of a generation (what publication-ready polls may read). */
  async manifest(generation: number): Promise<ManifestRecord | null> {
    const row = this.db.prepare('SELECT generation, state, document_id, version_key, job_id, chunk_count, manifest FROM generations WHERE generation = ?').get(generation) as
      | ManifestRow
      | undefined;
    return row ? toManifestRecord(row) : null;
  }

  /** The manifest record of a version's active generation (successor verification reads nothing else). */
  async activeManifest(documentId: string, versionKey: string): Promise<ManifestRecord | null> {
    const row = this.db
      .prepare(
        `SELECT g.generation, g.state, g.document_id, g.version_key, g.job_id, g.chunk_count, g.manifest
         FROM versions v JOIN generations g ON g.generation = v.active_generation WHERE v.document_id = ? AND v.version_key = ?`,
      )
      .get(documentId, versionKey) as ManifestRow | undefined;
    return row ? toManifestRecord(row) : null;
  }

  async loadGeneration(generation: number): Promise<LoadedGeneration | null> {
    return this.loadGenerationSync(generation);
  }

  /**
   * The stored texts of these chunks (null where a chunk is gone: its generation was purged since), in the
   * order asked: what a search reads for the rows of its answer.
   */
  async chunkTexts(keys: readonly { generation: number; chunkIndex: number }[]): Promise<(string | null)[]> {
    // Chunks of a generation never change, so the reads need no enclosing transaction. Each batch of keys is
    // one statement: a lookup of (generation, chunk_index) pairs in the primary key.
    const out: (string | null)[] = keys.map(() => null);
    for (let from = 0; from < keys.length; from += CHUNK_TEXT_READ_BATCH) {
      const batch = keys.slice(from, from + CHUNK_TEXT_READ_BATCH);
      const read = cachedStatement(this.db, `SELECT generation, chunk_index, text FROM chunks WHERE (generation, chunk_index) IN (VALUES ${batch.map(() => '(?, ?)').join(', ')})`);
      const rows = read.all(...batch.flatMap((key) => [key.generation, key.chunkIndex])) as { generation: number; chunk_index: number; text: string }[];
      const texts = new Map(rows.map((row) => [`${row.generation}:${row.chunk_index}`, row.text]));
      batch.forEach((key, at) => {
        out[from + at] = texts.get(`${key.generation}:${key.chunkIndex}`) ?? null;
      });
    }
    return out;
  }

  /** Up to `limit` chunks of a generation from the `offset`-th in document order (the rows of one answer). */
  async chunkRange(generation: number, offset: number, limit: number): Promise<ChunkRecord[]> {
    const rows = this.db
      .prepare('SELECT * FROM chunks WHERE generation = ? ORDER BY chunk_index LIMIT ? OFFSET ?')
      .all(generation, limit, offset) as unknown as ChunkRow[];
    return rows.map(toChunk);
  }

  /** Active generations of every version of one document. */
  async activeGenerationsOf(documentId: string): Promise<GenerationRecord[]> {
    const rows = this.db
      .prepare(
        `SELECT g.* FROM versions v JOIN generations g ON g.generation = v.active_generation
         WHERE v.document_id = ? ORDER BY v.version_key`,
      )
      .all(documentId) as unknown as GenerationRow[];
    return rows.map(toGeneration);
  }

  private servedGenerationIdsSync(): number[] {
    return (this.db
      .prepare(
        `SELECT g.generation FROM generations g
         WHERE g.state = 'active'
           AND NOT EXISTS (SELECT 1 FROM purge_journal p WHERE p.document_id = g.document_id AND p.version_key = g.version_key)
         ORDER BY g.generation`,
      )
      .all() as { generation: number }[]).map((row) => row.generation);
  }

  /**
   * The next active versions (not under purge) after `cursor` in identity order, loaded: a scan that can
   * stop and resume where it left off, since a replacement keeps its version's place.
   */
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
    return readTransaction(this.db, () => rows.flatMap(({ generation }) => {
      const loaded = this.storedLoadedGenerationSync(generation);
      return loaded?.state === 'active' ? [loaded] : [];
    }));
  }

  /** How many active versions (not under purge) the Client has. */
  async activeVersionCount(): Promise<number> {
    const row = this.db
      .prepare(
        `SELECT COUNT(*) AS n FROM generations g WHERE g.state = 'active'
           AND NOT EXISTS (SELECT 1 FROM purge_journal p WHERE p.document_id = g.document_id AND p.version_key = g.version_key)`,
      )
      .get() as { n: number };
    return row.n;
  }

  /** Active generations a serving snapshot holds (not under purge), in activation order: ids only. */
  async servedGenerationIds(): Promise<number[]> {
    return this.servedGenerationIdsSync();
  }

  /** These generations as serving loads them, those still active only (a rebuild loads them in batches). */
  async loadActiveGenerations(generations: readonly number[]): Promise<ServingGeneration[]> {
    return readTransaction(this.db, () => generations.flatMap((generation) => {
      const loaded = this.servingGenerationSync(generation);
      return loaded?.state === 'active' ? [loaded] : [];
    }));
  }

  private logHeadSync(until?: string): number {
    const row = (until === undefined
      ? cachedStatement(this.db, 'SELECT MAX(seq) AS head FROM publication_log').get()
      : cachedStatement(this.db, 'SELECT MAX(seq) AS head FROM publication_log WHERE at <= ?').get(until)) as { head: number | null };
    return row.head ?? 0;
  }

  /**
   * The sequence number of the newest publication (0 before the first): one indexed read. With `until`
   * (an ISO time), the newest one committed at or before it (what FENCING pins reads to).
   */
  async logHead(until?: string): Promise<number> {
    return this.logHeadSync(until);
  }

  /**
   * Entries after `since` up to the head (or the last one committed by `until`), at most `maxEntries` of
   * them, and the still-active generations they name, read in one transaction so a generation retired
   * later cannot be half-read.
   */
  async changesSince(since: number, maxEntries: number, until?: string): Promise<PublicationChanges> {
    return readTransaction(this.db, () => {
      const head = this.logHeadSync(until);
      const floorRow = this.db.prepare('SELECT MIN(seq) AS floor FROM publication_log').get() as { floor: number | null };
      const floor = floorRow.floor ?? 0;
      const generations = new Map<number, ServingGeneration>();
      if (head <= since || head - since > maxEntries || floor > since + 1) return { head, floor, entries: [], generations };
      const rows = this.db
        .prepare('SELECT seq, kind, document_id, version_key, generation FROM publication_log WHERE seq > ? AND seq <= ? ORDER BY seq')
        .all(since, head) as unknown as LogRow[];
      const entries = rows.map((row) => ({ seq: row.seq, kind: row.kind, documentId: row.document_id, versionKey: row.version_key, generation: row.generation }));
      for (const entry of entries) {
        if (entry.generation === null || generations.has(entry.generation)) continue;
        const loaded = this.servingGenerationSync(entry.generation);
        if (loaded && loaded.state === 'active') generations.set(entry.generation, loaded);
      }
      return { head, floor, entries, generations };
    });
  }

  /** Records the intent to purge these versions and hides them (a removal in the log), in one transaction. */
  async beginPurge(documentId: string, versionKeys: string[]): Promise<void> {
    const at = this.at();
    transaction(this.db, () => {
      const insert = this.db.prepare('INSERT OR IGNORE INTO purge_journal (document_id, version_key, started_at) VALUES (?, ?, ?)');
      for (const versionKey of versionKeys) {
        insert.run(documentId, versionKey, at);
        this.appendLog('remove', documentId, versionKey, null);
      }
    });
  }

  /** Version keys of this document whose purge was started and not finished. */
  async openPurges(documentId: string): Promise<string[]> {
    return (this.db.prepare('SELECT version_key FROM purge_journal WHERE document_id = ? ORDER BY version_key').all(documentId) as { version_key: string }[]).map(
      (row) => row.version_key,
    );
  }

  /** Physically removes every generation of a version, its chunks and leaves, and closes its journal entry. */
  async purgeVersion(documentId: string, versionKey: string): Promise<number> {
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
  async remainingRecords(documentId: string, versionKey: string): Promise<number> {
    const row = this.db.prepare('SELECT COUNT(*) AS n FROM generations WHERE document_id = ? AND version_key = ?').get(documentId, versionKey) as { n: number };
    return row.n;
  }

  /** Drops the chunk and leaf rows of retired generations; their manifests stay for successor checks. */
  /**
   * Removes the chunks, leaves and lane data of generations retired at or before `cutoff` (an ISO time), which
   * no current read can need any more; their generation rows and manifests stay for successor verification.
   * Returns the chunk rows removed.
   */
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


  /**
   * What the Client holds over its active generations (per-Client quotas), without the given Document Version
   * (the one an upload would replace): running totals, never a sum over the generations or their chunks.
   */
  async usage(besides: { documentId: string; versionKey: string }): Promise<UsageBesides> {
    return readTransaction(this.db, () => {
      // Running totals (kept by triggers, client-migrations.ts) less the version an upload would replace.
      const totals = cachedStatement(this.db, 'SELECT documents, chunks, text_bytes FROM usage_totals WHERE id = 1').get() as { documents: number; chunks: number; text_bytes: number };
      const replaced = cachedStatement(this.db, `SELECT chunk_count, text_bytes FROM generations WHERE state = 'active' AND document_id = ? AND version_key = ?`).get(
        besides.documentId,
        besides.versionKey,
      ) as { chunk_count: number; text_bytes: number } | undefined;
      const versions = (cachedStatement(this.db, 'SELECT versions FROM active_documents WHERE document_id = ?').get(besides.documentId) as { versions: number } | undefined)?.versions ?? 0;
      const otherVersions = versions - (replaced ? 1 : 0);
      return {
        documents: totals.documents - (replaced && otherVersions === 0 ? 1 : 0),
        chunks: totals.chunks - (replaced?.chunk_count ?? 0),
        textBytes: totals.text_bytes - (replaced?.text_bytes ?? 0),
        documentPresent: otherVersions > 0,
      };
    });
  }

  /** The stored schema of the lanes (content, dense vectors, metadata leaves, generations and their log). */
  async laneSchemas(): Promise<string[]> {
    const rows = this.db
      .prepare(
        `SELECT type, name, sql FROM sqlite_master WHERE tbl_name IN ('versions', 'generations', 'chunks', 'metadata_leaves', 'publication_log')
         AND sql IS NOT NULL ORDER BY type, name`,
      )
      .all() as { type: string; name: string; sql: string }[];
    return rows.map((row) => `${row.type} ${row.name}: ${row.sql}`);
  }

  /** True when an active generation's metadata lane was never indexed (pre-discovery data). */
  async hasUnindexedLeaves(): Promise<boolean> {
    const row = this.db.prepare(`SELECT EXISTS (SELECT 1 FROM generations WHERE state = 'active' AND leaves_indexed = 0) AS found`).get() as { found: number };
    return row.found === 1;
  }

  /** A cheap read that proves the Client's database answers (health probes). */
  async probe(): Promise<void> {
    this.db.prepare('SELECT 1 FROM publication_log LIMIT 1').get();
  }
}
