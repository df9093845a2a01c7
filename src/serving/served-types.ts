// Plain shapes of what a serving snapshot holds: versions of the active generations and their chunks.
// Objects are frozen in spirit: a change makes new objects, so a reader holding a snapshot never sees it move.

import type { CanonicalMetadata, JsonObject } from '../domain/canonical-metadata.ts';
import type { Entities } from '../domain/entities.ts';
import type { ChunkRecord, DeletionMarkers, MetadataLeaf } from '../domain/generation.ts';
import type { Evidence } from './evidence.ts';

export interface ServedVersion {
  documentId: string;
  versionId: string | null;
  /** documentId + version key; unique inside one Client. */
  identity: string;
  generation: number;
  jobId: string | null;
  createdAt: string;
  activatedAt: string | null;
  canonicalMetadata: CanonicalMetadata;
  entities: Entities;
  embedding: JsonObject;
  deletion: DeletionMarkers;
  /** The generation's publication evidence, verified when it entered the snapshot. */
  evidence: Evidence;
  manifest: JsonObject;
  leaves: MetadataLeaf[];
  /** Chunks in document order. */
  chunks: ServedChunk[];
}

/**
 * A chunk as served: its place in the index, its version and what filters and evidence rows read. Its vector
 * and entities stay in the store (read for the rows of an answer); the segment holds its int8 codes.
 */
export interface ServedChunk extends Omit<ChunkRecord, 'vector' | 'entities'> {
  /** Global ordinal inside the Client's index; stable for the chunk's lifetime. */
  ordinal: number;
  chunkId: string;
  version: ServedVersion;
}

export function chunkIdOf(generation: number, chunkIndex: number): string {
  return `g${generation}-c${chunkIndex}`;
}
