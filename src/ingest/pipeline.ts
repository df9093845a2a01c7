// The ingestion pipeline of one upload: parse -> chunk -> enrich (entities, classification) -> embed.
// It returns what a generation needs and never touches storage or publication.
//
// Per-document limits (docs/configuration.md "Limits"): a document over one is TRUNCATED, not failed. The parser stops reading at
// the character, page, sheet and cell limits (memory stays bounded while parsing), chunking stops at the chunk limit,
// and only then are entities, classification and embeddings computed, so the cost is never paid beyond the limit.
// What is indexed is the document's beginning, complete up to the cut; the cut is never silent: each limit hit adds
// a metadata.quality.warnings entry and the job ends partial_failed with an error naming the limits (jobs/embed-job.ts).
// Why truncate rather than fail: the uploads that reach these limits are real (exports, books, logs); their first
// 2 M characters are searchable and useful, re-uploading cannot make them smaller, and the caller is told exactly
// what was left out, so nothing is indexed half-way by accident. A caller who wants all-or-nothing treats
// partial_failed as a failure and deletes the document.

import type { ParsedDocument } from './parsed-document.ts';
import { IngestError } from './parsed-document.ts';
import { chunkPages } from './chunk.ts';
import { markdownTitle } from './parsers/text.ts';
import type { ChunkOptions, TextChunk } from './chunk.ts';
import type { Embedder } from '../models/embedder.ts';
import type { Entities } from '../domain/entities.ts';
import { aggregateEntities } from './entities/aggregate.ts';
import type { CanonicalMetadata, JsonObject } from '../domain/canonical-metadata.ts';
import { CANONICAL_SCHEMA_VERSION } from '../domain/canonical-metadata.ts';
import type { ClassificationStatus } from '../domain/job-states.ts';
import type { ChunkRecord } from '../domain/generation.ts';
import type { ChunkLanguage } from '../domain/chunk-language.ts';
import { RetryableJobError } from '../domain/jobs.ts';
import type { DocumentLimits } from '../domain/limits.ts';
import type { Truncation } from './parsed-document.ts';

/** Chunks embedded per provider call. */
export const EMBED_BATCH_SIZE = 64;

export interface ClassificationOutcome {
  status: ClassificationStatus;
  categories: string[];
}

export interface IngestDependencies {
  parse(bytes: Buffer, filename: string): Promise<ParsedDocument>;
  /** The entities of each chunk's text, in order (a worker process extracts them on its lanes thread). */
  extractEntities(texts: readonly string[]): Promise<Entities[]>;
  /** The language of each chunk's text, in order (on the lanes thread too); it chooses the chunk's analyzer. */
  detectLanguages(texts: readonly string[]): Promise<ChunkLanguage[]>;
  classify(text: string): Promise<ClassificationOutcome>;
  embedder: Embedder;
  chunkOptions: ChunkOptions;
  /** Per-document limits; `parse` applies those of parsing, the pipeline the character limit of text uploads and the chunk limit. */
  limits: Pick<DocumentLimits, 'maxChars' | 'maxChunks'>;
  /** Called between stages so the job can renew its lease (and tests can pause). */
  onStage(stage: 'parsed' | 'chunked' | 'enriched' | 'embedded'): Promise<void>;
  /** Told how many pages of a parsed file got their text from OCR (for metrics). */
  onOcrPages?(pages: number): void;
}

/** Pages whose text came from OCR: those marked so, or every page of a document read by OCR alone (an image). */
export function ocrPageCount(parsed: ParsedDocument): number {
  if (parsed.textExtraction === 'ocr') return Math.max(1, parsed.pages.length);
  return parsed.pages.filter((page) => page.textExtraction === 'ocr').length;
}

export type IngestSource =
  | { kind: 'text'; text: string; filename: string | null }
  | { kind: 'file'; bytes: Buffer; filename: string }
  /**
   * An imported version (POST /admin/clients/{client_id}/import): its chunks and canonical metadata as exported,
   * kept as they are (nothing is parsed, chunked or classified again); they are embedded, and their entities and
   * languages found, as an upload's are.
   */
  | { kind: 'chunks'; chunks: readonly Omit<TextChunk, 'charCount'>[]; canonical: CanonicalMetadata; filename: string | null };

export interface IngestOutput {
  chunks: ChunkRecord[];
  failedChunks: number;
  entities: Entities;
  classification: ClassificationOutcome;
  canonicalMetadata: CanonicalMetadata;
  embedding: JsonObject;
  firstError: string | null;
  /** Per-document limits that cut the document short (empty: it was indexed whole). */
  truncations: Truncation[];
}

function textDocument(full: string, filename: string | null, maxChars: number): ParsedDocument {
  const extension = filename?.includes('.') ? filename.split('.').pop()!.toLowerCase() : 'txt';
  const text = full.length > maxChars ? full.slice(0, maxChars) : full;
  const cut = text.length < full.length;
  return {
    mimeType: extension === 'md' ? 'text/markdown' : 'text/plain',
    extension,
    pages: [{ pageNumber: null, pageLabel: null, text }],
    pageCount: null,
    textExtraction: 'native',
    ocrUsed: false,
    warnings: cut ? [charactersWarning(maxChars)] : [],
    properties: { title: extension === 'md' ? markdownTitle(text) : null, author: null, createdAt: null },
    truncations: cut ? [{ limit: 'characters', max: maxChars }] : [],
  };
}

function charactersWarning(max: number): string {
  return `Text beyond ${max} characters was dropped (limit); only the beginning of the document is indexed.`;
}

/** Chunks of the document up to the chunk limit; a longer document is cut there, with a warning and a truncation. */
function limitedChunks(parsed: ParsedDocument, deps: IngestDependencies): { chunks: TextChunk[]; truncations: Truncation[] } {
  const max = deps.limits.maxChunks;
  const chunks = chunkPages(parsed.pages, deps.chunkOptions, max);
  const truncations = [...(parsed.truncations ?? [])];
  if (chunks.length > max) {
    chunks.length = max;
    truncations.push({ limit: 'chunks', max });
    parsed.warnings.push(`Chunks beyond the first ${max} were not indexed (limit); only the beginning of the document is indexed.`);
  }
  return { chunks, truncations };
}

export function canonicalMetadataOf(
  parsed: ParsedDocument,
  filename: string | null,
  classification: ClassificationOutcome,
  custom: JsonObject,
): CanonicalMetadata {
  return {
    schema_version: CANONICAL_SCHEMA_VERSION,
    source: { filename, mime_type: parsed.mimeType, extension: parsed.extension },
    document: { page_count: parsed.pageCount },
    location: { page_number: null, page_label: null, chunk_index: null },
    classification: { status: classification.status, categories: classification.categories },
    quality: { text_extraction: parsed.textExtraction, ocr_used: parsed.ocrUsed, warnings: parsed.warnings },
    extracted: { title: parsed.properties.title, author: parsed.properties.author, created_at: parsed.properties.createdAt },
    custom,
  };
}

/** What embedding starts from: the chunks of a parsed document, or an imported version's as exported. */
interface ChunkedDocument {
  textChunks: Omit<TextChunk, 'charCount'>[];
  truncations: Truncation[];
  /** The version's canonical metadata from its classification; an imported version's as it was exported. */
  canonical: ((classification: ClassificationOutcome) => CanonicalMetadata) | CanonicalMetadata;
  extraction: string;
}

async function chunkedDocument(source: IngestSource, custom: JsonObject, deps: IngestDependencies): Promise<ChunkedDocument> {
  if (source.kind === 'chunks') {
    return { textChunks: [...source.chunks], truncations: [], canonical: source.canonical, extraction: source.canonical.quality.text_extraction };
  }
  const parsed = source.kind === 'text' ? textDocument(source.text, source.filename, deps.limits.maxChars) : await deps.parse(source.bytes, source.filename);
  const ocrPages = ocrPageCount(parsed);
  if (ocrPages > 0) deps.onOcrPages?.(ocrPages);
  await deps.onStage('parsed');
  const { chunks, truncations } = limitedChunks(parsed, deps);
  return { textChunks: chunks, truncations, canonical: (classification) => canonicalMetadataOf(parsed, source.filename, classification, custom), extraction: parsed.textExtraction };
}

export async function runIngest(source: IngestSource, custom: JsonObject, deps: IngestDependencies, chunkerName: string): Promise<IngestOutput> {
  const document = await chunkedDocument(source, custom, deps);
  const { textChunks, truncations } = document;
  if (textChunks.length === 0) throw new IngestError('no_text', 'The document contains no extractable text');
  await deps.onStage('chunked');
  // Entities and languages are found beside classification and embedding (on another thread where the caller has one).
  const texts = textChunks.map((chunk) => chunk.text);
  const extracting = deps.extractEntities(texts);
  const detecting = deps.detectLanguages(texts);
  // Awaited below; a failure meanwhile must not be an unhandled rejection.
  extracting.catch(() => {});
  detecting.catch(() => {});
  // An imported version keeps the classification it was exported with.
  const classification = typeof document.canonical === 'function' ? await deps.classify(textChunks.map((chunk) => chunk.text).join('\n\n')) : document.canonical.classification;
  await deps.onStage('enriched');

  const embedded: { chunk: (typeof textChunks)[number]; at: number; vector: Float32Array }[] = [];
  let failedChunks = 0;
  let firstError: string | null = null;
  for (let start = 0; start < textChunks.length; start += EMBED_BATCH_SIZE) {
    const batch = textChunks.slice(start, start + EMBED_BATCH_SIZE);
    let vectors: Float32Array[];
    try {
      vectors = await deps.embedder.embed(batch.map((chunk) => chunk.text));
    } catch (error) {
      if (error instanceof IngestError && error.transient) throw error;
      // A provider that may recover (timeouts, 429, 5xx) fails the attempt, not the chunks: the job retries.
      if ((error as { retryable?: unknown }).retryable === true) {
        throw new RetryableJobError(`Embedding provider unavailable: ${(error as Error).message}`, { cause: error });
      }
      failedChunks += batch.length;
      firstError ??= `Embedding failed: ${(error as Error).message}`;
      continue;
    }
    batch.forEach((chunk, offset) => embedded.push({ chunk, at: start + offset, vector: vectors[offset] }));
  }
  const chunkEntities = await extracting;
  const languages = await detecting;
  const chunks: ChunkRecord[] = embedded.map(({ chunk, at, vector }) => ({
    chunkIndex: chunk.chunkIndex,
    page: chunk.page,
    pageLabel: chunk.pageLabel,
    text: chunk.text,
    entities: chunkEntities[at],
    vector,
    language: languages[at],
    ...(chunk.rows ? { rows: chunk.rows } : {}),
  }));
  await deps.onStage('embedded');
  return {
    chunks,
    failedChunks,
    entities: aggregateEntities(chunks.map((chunk) => chunk.entities)),
    classification,
    canonicalMetadata: typeof document.canonical === 'function' ? document.canonical(classification) : document.canonical,
    embedding: {
      dense_model: deps.embedder.model,
      dense_dimensions: deps.embedder.dimensions,
      dense_runtime: deps.embedder.provider,
      sparse_model: 'bm25',
      embedded_at: new Date().toISOString(),
      embedding_version: '1',
      chunker: chunkerName,
      extraction: document.extraction,
    },
    firstError,
    truncations,
  };
}
