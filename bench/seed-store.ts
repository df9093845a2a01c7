// Seeds a DATA_DIR for benchmarks: SciFact abstracts (10 per document, repeated in rounds) chunked as an upload is,
// embedded with the hashing embedder and written as active generations straight into the durable store,
// so that the service's start-up recovery rebuilds its serving snapshot from them.

import { loadDataset } from './datasets.ts';
import { Storage } from '../src/storage/sqlite/sqlite-storage.ts';
import type { StoragePort } from '../src/storage/port.ts';
import { chunkPages, DEFAULT_CHUNK_OPTIONS } from '../src/ingest/chunk.ts';
import { createHashingEmbedder } from '../src/models/hashing-embedder.ts';
import { emptyEntities } from '../src/domain/entities.ts';
import { lanesAndManifest } from '../src/codec/manifest.ts';
import { detectLanguages } from '../src/ingest/language.ts';
import { canonicalMetadataOf } from '../src/ingest/pipeline.ts';
import { metadataLeaves } from '../src/domain/metadata-leaves.ts';

const ABSTRACTS_PER_DOCUMENT = 10;

/** Derived from the port rather than imported, so that it survives the type moving between modules. */
type GenerationInput = Parameters<ReturnType<StoragePort['client']>['generations']['stageAndActivate']>[0];

interface SeedTarget {
  write(input: GenerationInput): Promise<void>;
  close(): Promise<void>;
}

/** The only code here that touches the storage port: the SQLite files of `dataDir`, or the store `openStorage` opens. */
async function openSeedTarget(dataDir: string, clientId: string, openStorage?: () => Promise<StoragePort>): Promise<SeedTarget> {
  const storage: StoragePort = openStorage ? await openStorage() : new Storage(dataDir);
  const store = await storage.client(clientId);
  return {
    async write(input) {
      const activated = await store.generations.stageAndActivate(input);
      if (activated === null) throw new Error(`generation of ${input.documentId} was not activated`);
    },
    async close() {
      await storage.end();
    },
  };
}

/**
 * Writes about `targetChunks` chunks (exactly, unless the corpus yields none) for `clientId` into `dataDir` (or the
 * store `openStorage` opens); document ids are `${documentPrefix}${round}-${first abstract}`. `custom` gives the nth
 * document its custom metadata (none by default).
 */
export async function seedScifactChunks(
  dataDir: string,
  clientId: string,
  targetChunks: number,
  documentPrefix = 'doc-',
  openStorage?: () => Promise<StoragePort>,
  custom: (documentIndex: number) => Record<string, string | number | boolean> = () => ({}),
): Promise<{ documents: number; chunks: number }> {
  const scifact = loadDataset('scifact', 'train.tsv');
  const embedder = createHashingEmbedder();
  const target = await openSeedTarget(dataDir, clientId, openStorage);
  let chunkCount = 0;
  let documentCount = 0;
  try {
    for (let round = 0; chunkCount < targetChunks; round++) {
      const before = chunkCount;
      for (let start = 0; start < scifact.documents.length && chunkCount < targetChunks; start += ABSTRACTS_PER_DOCUMENT) {
        const group = scifact.documents.slice(start, start + ABSTRACTS_PER_DOCUMENT);
        // One text, chunked as the service chunks an upload by default (CHUNK_TARGET_CHARS, CHUNK_OVERLAP_CHARS): the
        // store is the one POST /embed of that text would have written (bench/ingest-http.ts sends the same), and
        // searches over it cost what they cost over such a store.
        const pages = [{ pageNumber: null, pageLabel: null, text: group.map((doc) => `${doc.title}\n\n${doc.text}`).join('\n\n') }];
        const texts = chunkPages(pages, DEFAULT_CHUNK_OPTIONS).slice(0, targetChunks - chunkCount);
        const vectors = await embedder.embed(texts.map((chunk) => chunk.text));
        const languages = await detectLanguages(texts.map((chunk) => chunk.text));
        const chunks = texts.map((chunk, i) => ({ chunkIndex: chunk.chunkIndex, page: null, pageLabel: null, text: chunk.text, entities: emptyEntities(), vector: vectors[i], language: languages[i] }));
        const documentId = `${documentPrefix}${round}-${start}`;
        const parsed = { mimeType: 'text/markdown', extension: 'md', pages, pageCount: null, textExtraction: 'native' as const, ocrUsed: false, warnings: [], properties: { title: null, author: null, createdAt: null } };
        const metadata = canonicalMetadataOf(parsed, `${documentId}.md`, { status: 'disabled', categories: [] }, custom(documentCount));
        const leaves = metadataLeaves(metadata);
        await target.write({
          documentId,
          versionKey: documentId,
          jobId: null,
          createdAt: new Date().toISOString(),
          canonicalMetadata: metadata,
          entities: emptyEntities(),
          embedding: { dense_model: embedder.model, dense_dimensions: embedder.dimensions, sparse_model: 'bm25', embedded_at: new Date().toISOString() },
          deletion: { deleted: false, deletedAt: null, deletedBy: null },
          chunks,
          leaves,
          ...lanesAndManifest({ documentId, versionId: documentId, jobId: null }, chunks, leaves, null),
        });
        chunkCount += chunks.length;
        documentCount++;
      }
      if (chunkCount === before) break; // an empty corpus would otherwise loop forever
    }
  } finally {
    await target.close();
  }
  return { documents: documentCount, chunks: chunkCount };
}

/**
 * Writes one document with one version per text (version ids v0, v1, ...), one chunk each, the custom metadata
 * empty and the metadata lane indexed: a document with many versions, for lifecycle writes over all of them.
 */
export async function seedDocumentVersions(dataDir: string, clientId: string, documentId: string, texts: readonly string[]): Promise<void> {
  const embedder = createHashingEmbedder();
  const target = await openSeedTarget(dataDir, clientId);
  try {
    for (const [i, text] of texts.entries()) {
      const versionId = `v${i}`;
      const [vector] = await embedder.embed([text]);
      const chunks = [{ chunkIndex: 0, page: null, pageLabel: null, text, entities: emptyEntities(), vector, language: (await detectLanguages([text]))[0] }];
      const pages = [{ pageNumber: null, pageLabel: null, text }];
      const parsed = { mimeType: 'text/plain', extension: 'txt', pages, pageCount: null, textExtraction: 'native' as const, ocrUsed: false, warnings: [], properties: { title: null, author: null, createdAt: null } };
      const metadata = canonicalMetadataOf(parsed, `${documentId}.txt`, { status: 'disabled', categories: [] }, {});
      const leaves = metadataLeaves(metadata);
      await target.write({
        documentId,
        versionKey: versionId,
        jobId: null,
        createdAt: new Date().toISOString(),
        canonicalMetadata: metadata,
        entities: emptyEntities(),
        embedding: { dense_model: embedder.model, dense_dimensions: embedder.dimensions, sparse_model: 'bm25', embedded_at: new Date().toISOString() },
        deletion: { deleted: false, deletedAt: null, deletedBy: null },
        chunks,
        leaves,
        ...lanesAndManifest({ documentId, versionId, jobId: null }, chunks, leaves, null),
      });
    }
  } finally {
    await target.close();
  }
}
