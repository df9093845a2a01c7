// A successor generation: a copy of an active generation with other deletion markers, metadata or leaves,
// with its lane data and manifest made anew. Lifecycle writes, metadata updates and the backfill all republish this way.

import type { DeletionMarkers, GenerationInput, LoadedGeneration } from '../domain/generation.ts';
import { versionIdFromKey } from '../domain/identity.ts';
import { lanesAndManifest } from '../codec/manifest.ts';

export function successorOf(
  loaded: LoadedGeneration,
  changes: { deletion?: DeletionMarkers; canonicalMetadata?: GenerationInput['canonicalMetadata']; leaves?: GenerationInput['leaves']; jobId?: string | null },
): GenerationInput {
  const jobId = changes.jobId === undefined ? loaded.jobId : changes.jobId;
  const leaves = changes.leaves ?? loaded.leaves;
  const canonicalMetadata = changes.canonicalMetadata ?? loaded.canonicalMetadata;
  return {
    documentId: loaded.documentId,
    versionKey: loaded.versionKey,
    jobId,
    createdAt: loaded.createdAt,
    canonicalMetadata,
    entities: loaded.entities,
    embedding: loaded.embedding,
    deletion: changes.deletion ?? loaded.deletion,
    chunks: loaded.chunks,
    leaves,
    // Leaves given anew are indexed now; otherwise the successor keeps its predecessor's state.
    leavesIndexed: changes.leaves !== undefined ? true : loaded.leavesIndexed,
    ...lanesAndManifest({ documentId: loaded.documentId, versionId: versionIdFromKey(loaded.versionKey), jobId }, loaded.chunks, leaves, canonicalMetadata.extracted.title ?? null),
  };
}
