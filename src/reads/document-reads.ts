// Document reads (GET /documents, GET /document/{id}/text) served from the Client's serving snapshot after
// the read guard, so a read sees exactly one published state, current as of its start.

import type { ReadGuard } from '../serving/read-guard.ts';
import { chunkByOrdinal, chunksOf } from '../serving/snapshot.ts';
import type { ClientSnapshot } from '../serving/snapshot.ts';
import type { ServedVersion } from '../serving/served-types.ts';
import { chunkIdOf } from '../serving/served-types.ts';
import { ServiceError } from '../domain/service-error.ts';
import type { JsonObject, JsonValue } from '../domain/canonical-metadata.ts';
import type { DeletionFields, DocumentListPage, DocumentSummary, DocumentTextResource } from '../domain/responses.ts';
import { isJsonObject } from '../domain/canonical-metadata.ts';
import { compileFilters } from '../search/filters.ts';
import { requireEvidenceOrUnavailable } from '../search/evidence-gate.ts';
import { storedTextVerifies } from '../search/chunk-texts.ts';
import { withinConfinement } from '../search/key-filter.ts';
import type { Confinement } from '../search/key-filter.ts';
import type { TextReadLimits } from '../domain/limits.ts';
import type { ChunkRecord } from '../domain/generation.ts';
import type { StoredChunkEntities } from '../storage/port.ts';
import { chunkEntitiesEvidence } from '../codec/manifest.ts';
import { FACET_LIMIT, countFacets } from '../search/facets.ts';
import type { FacetSpec } from '../search/facets.ts';
import { sortByKeys } from '../search/sort.ts';
import type { SortKey } from '../search/sort.ts';

/** Reads chunks of a generation from the durable store, in document order (the snapshot holds no vectors). */
export type ChunkReader = (clientId: string, generation: number, offset: number, limit: number) => Promise<ChunkRecord[]>;
/** Reads every chunk's entities of a generation as stored (JSON text), in document order. */
export type ChunkEntitiesReader = (clientId: string, generation: number) => Promise<StoredChunkEntities[]>;

export interface TextReadRequest {
  includeDeleted: boolean;
  includeVector: boolean;
  /** Index (in document order) of the first chunk to return; default 0. */
  chunkOffset?: number;
  /** Chunks to return at most; default and ceiling: TextReadLimits.maxChunks. */
  chunkLimit?: number;
  /** The versions the caller's key confines its reads to (key-filter.ts); absent or null: none. */
  confinement?: Confinement | null;
}

export interface ListRequest {
  limit: number;
  offset: number;
  metadataFilter: string | undefined;
  includeDeleted: boolean;
  /** The versions the caller's key confines its reads to (key-filter.ts); absent or null: none. */
  confinement?: Confinement | null;
  /** Facets counted over every listed version (search/facets.ts); none: the page has no facets. */
  facets?: FacetSpec[];
  facetLimit?: number;
  /** Sort keys (search/sort.ts) before the identity order, which breaks their ties. */
  sort?: SortKey[];
}

export interface ModelInfo {
  denseModel: string;
  denseDimensions: number;
  denseRuntime: string;
  sparseModel: string;
  rerankerModel: string;
  classifierModel: string;
  classifierModelFile: string | null;
  classificationEnabled: boolean;
}

function vectorNorm(vector: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i] * vector[i];
  return Math.sqrt(sum);
}

/** Parses metadata_filter: a JSON object, or the simplified form key:value[,key:value...]. */
export function parseMetadataFilter(raw: string | undefined): Record<string, string | number | boolean> {
  if (raw === undefined || raw.trim() === '') return {};
  const text = raw.trim();
  let parsed: unknown;
  if (text.startsWith('{') || text.startsWith('[') || text.startsWith('"') || !text.includes(':')) {
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new ServiceError('invalid_metadata_filter_json', 'Invalid metadata_filter JSON');
    }
    if (!isJsonObject(parsed)) throw new ServiceError('metadata_filter_not_object', 'metadata_filter must be a JSON object');
  } else {
    parsed = Object.fromEntries(
      text.split(',').map((pair) => {
        const at = pair.indexOf(':');
        const key = pair.slice(0, at).trim();
        const value = pair.slice(at + 1).trim();
        return [key, value === 'true' ? true : value === 'false' ? false : /^-?\d+$/.test(value) ? Number(value) : value];
      }),
    );
  }
  const filter = parsed as Record<string, JsonValue>;
  for (const value of Object.values(filter)) {
    const scalar = typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isInteger(value));
    if (!scalar) throw new ServiceError('metadata_filter_invalid', 'metadata_filter values must be scalar strings, booleans or integers');
  }
  return filter as Record<string, string | number | boolean>;
}

function deletionFields(version: ServedVersion): DeletionFields {
  return { deleted: version.deletion.deleted, deleted_at: version.deletion.deletedAt, deleted_by: version.deletion.deletedBy };
}

function byIdentity(a: ServedVersion, b: ServedVersion): number {
  return a.documentId < b.documentId ? -1 : a.documentId > b.documentId ? 1 : (a.versionId ?? '') < (b.versionId ?? '') ? -1 : (a.versionId ?? '') > (b.versionId ?? '') ? 1 : 0;
}

/** Latest version first: newest valid created_at, then the newest generation. */
function newestFirst(a: ServedVersion, b: ServedVersion): number {
  const left = Date.parse(a.createdAt);
  const right = Date.parse(b.createdAt);
  if (left !== right) return (Number.isFinite(right) ? right : -Infinity) - (Number.isFinite(left) ? left : -Infinity);
  return b.generation - a.generation;
}

/** Versions of one document together, in document order. */
function groupByDocument(versions: ServedVersion[]): ServedVersion[][] {
  const groups = new Map<string, ServedVersion[]>();
  for (const version of versions) {
    const group = groups.get(version.documentId);
    if (group) group.push(version);
    else groups.set(version.documentId, [version]);
  }
  return [...groups.values()];
}

/** A list row for one version, or for a document's versions together (version_id null when several). */
function summaryOf(versions: ServedVersion[]): { row: DocumentSummary; version: ServedVersion } {
  const latest = [...versions].sort(newestFirst)[0];
  return {
    version: latest,
    row: {
      document_id: latest.documentId,
      version_id: versions.length === 1 ? latest.versionId : null,
      metadata: latest.canonicalMetadata as unknown as JsonObject,
      chunk_count: versions.reduce((sum, version) => sum + version.chunkCount, 0),
      created_at: latest.createdAt,
    },
  };
}

/**
 * The text route returns only chunk text its generation published, as search does (chunk-texts.ts): each chunk of
 * the window is checked against the hash its lane data recorded for the chunk at that place in document order.
 * Text changed in the store since publication fails the read closed with the route's 503 (its status list has no
 * 500), never served.
 */
function requireVerifiedChunks(snapshot: ClientSnapshot, version: ServedVersion, offset: number, chunks: readonly ChunkRecord[]): void {
  chunks.forEach((stored, position) => {
    const served = chunkByOrdinal(snapshot, version.firstOrdinal + offset + position);
    if (!served || served.version.generation !== version.generation || !storedTextVerifies(served, stored.chunkIndex, stored.text)) {
      throw unverified(version, 'text');
    }
  });
}

function unverified(version: ServedVersion, what: 'text' | 'entities'): ServiceError {
  return new ServiceError('publication_authority_inconsistent', `Stored chunk ${what} of generation ${version.generation}: not what its publication evidence records`);
}

export class DocumentService {
  private readonly readGuard: ReadGuard;
  private readonly models: () => ModelInfo;
  private readonly textLimits: TextReadLimits;
  private readonly readChunks: ChunkReader;
  private readonly readEntities: ChunkEntitiesReader;

  constructor(readGuard: ReadGuard, models: () => ModelInfo, textLimits: TextReadLimits, readChunks: ChunkReader, readEntities: ChunkEntitiesReader) {
    this.readGuard = readGuard;
    this.models = models;
    this.textLimits = textLimits;
    this.readChunks = readChunks;
    this.readEntities = readEntities;
  }

  async list(clientId: string, request: ListRequest): Promise<DocumentListPage> {
    const filter = parseMetadataFilter(request.metadataFilter);
    const compiled = compileFilters(filter);
    const { snapshot } = await this.readGuard.guard(clientId);
    const rows = [...snapshot.versions.values()]
      .filter((version) => (request.includeDeleted || !version.deletion.deleted) && withinConfinement(version, request.confinement ?? null))
      .filter((version) => compiled.matchesVersion(version) && (!compiled.hasChunkConditions || chunksOf(snapshot, version).some((chunk) => compiled.matchesChunk(chunk))))
      .sort(byIdentity);
    requireEvidenceOrUnavailable(rows);
    // SPEC.md: with publication, one row per (document_id, version_id); without, one row per document.
    const grouped = this.readGuard.enabled ? rows.map((version) => summaryOf([version])) : groupByDocument(rows).map(summaryOf);
    const versionChunks = (version: ServedVersion) => chunksOf(snapshot, version);
    // A row sorts by the version it shows (a document's latest, without publication).
    const summaries = request.sort && request.sort.length > 0 ? sortByKeys(grouped, request.sort, (summary) => summary.version, versionChunks) : grouped;
    const page = summaries.slice(request.offset, request.offset + request.limit).map((summary) => {
      const { row, version } = summary;
      return request.includeDeleted ? { ...row, ...deletionFields(version) } : row;
    });
    const answer: DocumentListPage = { documents: page, total: summaries.length, limit: request.limit, offset: request.offset, has_more: summaries.length > request.offset + request.limit };
    // Facets count Document Versions, every one the filter kept, whatever the page; a list is exact.
    if (request.facets && request.facets.length > 0) answer.facets = countFacets(request.facets, rows, request.facetLimit ?? FACET_LIMIT.default, false, versionChunks);
    return answer;
  }

  /**
   * GET /document/{id}/text. One answer is bounded (docs/configuration.md "Limits"): from chunk_offset, at most chunk_limit chunks
   * (TEXT_READ_MAX_CHUNKS by default and at most) and TEXT_READ_MAX_CHARS characters of chunk text (a first chunk
   * longer than that is still returned whole). chunk_count stays the document's true count; chunks_truncated says
   * chunks follow this answer and next_chunk_offset (null at the end) is where the next page starts.
   */
  async text(clientId: string, documentId: string, options: TextReadRequest): Promise<DocumentTextResource> {
    const { snapshot } = await this.readGuard.guard(clientId);
    const candidates = [...snapshot.versions.values()]
      .filter((version) => version.documentId === documentId && (options.includeDeleted || !version.deletion.deleted) && withinConfinement(version, options.confinement ?? null))
      .sort(newestFirst);
    const version = candidates[0];
    if (!version) throw new ServiceError('document_not_found', 'Document not found');
    // Which version is the latest can be proven only when every candidate's evidence verifies.
    requireEvidenceOrUnavailable(candidates);
    const metadata = version.canonicalMetadata;
    const offset = options.chunkOffset ?? 0;
    const page = this.chunkPage(await this.storedChunks(clientId, version, offset, options.chunkLimit), options.chunkLimit);
    requireVerifiedChunks(snapshot, version, offset, page);
    await this.requireVerifiedEntities(clientId, version, offset, page);
    const next = offset + page.length < version.chunkCount ? offset + page.length : null;
    const body: DocumentTextResource = {
      document_id: version.documentId,
      version_id: version.versionId,
      chunk_count: version.chunkCount,
      created_at: version.createdAt,
      chunk_offset: offset,
      chunks_truncated: next !== null,
      next_chunk_offset: next,
      chunks: page.map((chunk) => ({
        id: chunkIdOf(version.generation, chunk.chunkIndex),
        index: chunk.chunkIndex,
        page: chunk.page,
        // Extensions beside SPEC's chunk fields: the page's label (a sheet's name) and a spreadsheet chunk's rows.
        ...(chunk.pageLabel ? { page_label: chunk.pageLabel } : {}),
        ...(chunk.rows ? { rows: chunk.rows } : {}),
        text: chunk.text,
        char_count: chunk.text.length,
        entities: chunk.entities as unknown as JsonObject,
        vector_dim: chunk.vector.length,
        norm: vectorNorm(chunk.vector),
        vector: options.includeVector ? Array.from(chunk.vector) : null,
        language: chunk.language,
      })),
      metadata: metadata as unknown as JsonObject,
      classification: { categories: metadata.classification.categories, status: metadata.classification.status },
      entities: version.entities as unknown as JsonObject,
      embedding: this.embeddingOf(version),
    };
    if (options.includeDeleted) Object.assign(body, deletionFields(version));
    return body;
  }

  /**
   * The entities of the chunks returned, checked against the digest the version's manifest recorded over every
   * chunk's entities: a window that is the whole document is checked as read; otherwise the other chunks' entities
   * are read as stored, and the window's take their place as this answer returns them. A generation written before
   * manifests recorded entities has nothing to check them against (its text still is checked).
   */
  private async requireVerifiedEntities(clientId: string, version: ServedVersion, offset: number, page: readonly ChunkRecord[]): Promise<void> {
    if (version.entitiesDigest === null) return;
    const returned = page.map((chunk) => ({ chunkIndex: chunk.chunkIndex, entitiesJson: JSON.stringify(chunk.entities) }));
    const whole = offset === 0 && page.length === version.chunkCount;
    const chunks = whole ? returned : await this.readEntities(clientId, version.generation);
    if (!whole) {
      if (chunks.length !== version.chunkCount) throw new ServiceError('publication_unavailable', 'The version changed while it was read; retry');
      chunks.splice(offset, returned.length, ...returned);
    }
    if (chunkEntitiesEvidence(chunks).digest !== version.entitiesDigest) throw unverified(version, 'entities');
  }

  private maxChunksOf(limit: number | undefined): number {
    return Math.min(limit ?? this.textLimits.maxChunks, this.textLimits.maxChunks);
  }

  /**
   * The stored chunks of one answer's window. The version's generation is immutable while it is served; a
   * window the store can no longer fill means a purge removed it after this read's snapshot: retry.
   */
  private async storedChunks(clientId: string, version: ServedVersion, offset: number, limit: number | undefined): Promise<ChunkRecord[]> {
    const expected = Math.max(0, Math.min(this.maxChunksOf(limit), version.chunkCount - offset));
    if (expected === 0) return [];
    const chunks = await this.readChunks(clientId, version.generation, offset, expected);
    if (chunks.length !== expected) throw new ServiceError('publication_unavailable', 'The version changed while it was read; retry');
    return chunks;
  }

  /** The chunks of one answer from a window read at its offset: within the chunk and character bounds. */
  private chunkPage<T extends { text: string }>(chunks: readonly T[], limit: number | undefined): T[] {
    const maxChunks = this.maxChunksOf(limit);
    const page: T[] = [];
    let chars = 0;
    for (let index = 0; index < chunks.length && page.length < maxChunks; index++) {
      const chunk = chunks[index]!;
      if (page.length > 0 && chars + chunk.text.length > this.textLimits.maxChars) break;
      page.push(chunk);
      chars += chunk.text.length;
    }
    return page;
  }

  /** Provenance rule: captured when the four historical model fields were recorded at indexing. */
  private embeddingOf(version: ServedVersion): JsonObject {
    const stored = version.embedding;
    const models = this.models();
    const captured = ['dense_model', 'dense_dimensions', 'sparse_model', 'embedded_at'].every((field) => stored[field] !== undefined && stored[field] !== null);
    const indexing: JsonObject = captured
      ? {
          provenance: 'captured',
          dense_model: stored.dense_model,
          dense_dimensions: stored.dense_dimensions,
          sparse_model: stored.sparse_model,
          embedded_at: stored.embedded_at,
          embedding_version: stored.embedding_version ?? null,
          dense_runtime: stored.dense_runtime ?? null,
          chunker: stored.chunker ?? null,
          extraction: stored.extraction ?? null,
        }
      : {
          provenance: 'current_config',
          dense_model: models.denseModel,
          dense_dimensions: models.denseDimensions,
          sparse_model: models.sparseModel,
          embedded_at: null,
          embedding_version: null,
          dense_runtime: models.denseRuntime,
          chunker: null,
          extraction: null,
        };
    return {
      ...indexing,
      reranker_model: models.rerankerModel,
      reranker_scope: 'query_time',
      classifier_model: models.classifierModel,
      classifier_model_file: models.classifierModelFile,
      classifier_scope: 'classification_only',
      classification_enabled: models.classificationEnabled,
    };
  }
}
