// Writes Document Versions straight into the suites' durable store (test-store.ts), as another process (an
// import tool) would: through the one publisher, so that every api process learns of them from the log.

import { openTestStorage } from './test-store.ts';
import { Publisher } from '../../src/publication/publisher.ts';
import { createHashingEmbedder } from '../../src/models/hashing-embedder.ts';
import { emptyEntities } from '../../src/domain/entities.ts';
import { computeManifest, lanesAndManifest } from '../../src/codec/manifest.ts';
import { canonicalMetadataOf } from '../../src/ingest/pipeline.ts';
import { metadataLeaves } from '../../src/domain/metadata-leaves.ts';
import { versionKey } from '../../src/domain/identity.ts';
import type { JsonObject } from '../../src/domain/canonical-metadata.ts';

/**
 * Seeds `versions.length` versions of one document, one chunk each (or one per entry of `chunks`), embedded
 * with the default hashing embedder; `custom` metadata is the same for all, and `staleLeaves` leaves their metadata lane unindexed.
 */
export async function seedVersions(
  dataDir: string,
  clientId: string,
  documentId: string,
  versions: { versionId: string; text: string; chunks?: string[] }[],
  options: { custom?: JsonObject; staleLeaves?: boolean; withoutLanes?: boolean } = {},
): Promise<void> {
  const storage = await openTestStorage(dataDir);
  const publisher = new Publisher(storage, { enabled: true });
  const embedder = createHashingEmbedder();
  try {
    for (const { versionId, text, chunks: chunkTexts = [text] } of versions) {
      const vectors = await embedder.embed(chunkTexts);
      const pages = [{ pageNumber: null, pageLabel: null, text }];
      const parsed = { mimeType: 'text/plain', extension: 'txt', pages, pageCount: null, textExtraction: 'native' as const, ocrUsed: false, warnings: [], properties: { title: null, author: null, createdAt: null } };
      const canonicalMetadata = canonicalMetadataOf(parsed, `${documentId}.txt`, { status: 'disabled', categories: [] }, options.custom ?? {});
      // Stale leaves: data written before Metadata Discovery indexed them (what a backfill repairs).
      const leaves = options.staleLeaves ? [] : metadataLeaves(canonicalMetadata);
      const chunks = chunkTexts.map((chunkText, chunkIndex) => ({ chunkIndex, page: null, pageLabel: null, text: chunkText, entities: emptyEntities(), vector: vectors[chunkIndex], language: null }));
      const activation = await publisher.stageAndActivate(clientId, {
        documentId,
        versionKey: versionKey(versionId),
        jobId: null,
        createdAt: new Date().toISOString(),
        canonicalMetadata,
        entities: emptyEntities(),
        embedding: {},
        deletion: { deleted: false, deletedAt: null, deletedBy: null },
        chunks,
        leaves,
        // Lane data as this service's writers store it; without it, as data written before lanes were persisted.
        ...(options.withoutLanes
          ? { manifest: computeManifest({ documentId, versionId, jobId: null }, chunks, leaves) as unknown as JsonObject }
          : lanesAndManifest({ documentId, versionId, jobId: null }, chunks, leaves, null)),
        leavesIndexed: !options.staleLeaves,
      });
      if (!activation) throw new Error(`version ${versionId} was not activated`);
    }
  } finally {
    await storage.end();
  }
}
