// Plain shapes of what a serving snapshot holds: versions of the active generations, and references to their
// chunks. Objects are frozen in spirit: a change makes new objects, so a reader holding a snapshot never sees
// it move. Chunk text, vectors and entities stay in the store; a snapshot holds what ranking and filters read.

import type { CanonicalMetadata, JsonObject } from '../domain/canonical-metadata.ts';
import type { Entities } from '../domain/entities.ts';
import type { ChunkRecord, DeletionMarkers, MetadataLeaf } from '../domain/generation.ts';
import type { Evidence } from '../codec/evidence.ts';

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
  /**
   * The digest of its lane data that its manifest records (codec/manifest.ts recordedLanesDigest), null when it records
   * none: what the segment cache checks a generation against. The manifest itself is verified on entry and not
   * held (about 1 KB a version as parsed JSON).
   */
  lanesDigest: string | null;
  /**
   * The digest of its chunks' entities that its manifest records (codec/manifest.ts recordedEntitiesDigest), null when it
   * records none: taken on entry, what the text route checks the entities it reads against.
   */
  entitiesDigest: string | null;
  leaves: MetadataLeaf[];
  /** Its chunks hold the ordinals firstOrdinal .. firstOrdinal + chunkCount - 1, in document order. */
  firstOrdinal: number;
  chunkCount: number;
}

/** A chunk as a read sees it: its place in the index, its version and what filters and evidence rows read. */
export interface ServedChunk extends Pick<ChunkRecord, 'chunkIndex' | 'page' | 'pageLabel'> {
  /** Global ordinal inside the Client's index; stable for the chunk's lifetime. */
  ordinal: number;
  chunkId: string;
  version: ServedVersion;
  /** Hash of its stored text (codec/generation-lanes.ts chunkTextHash): a text read for an answer is checked against it. */
  textHash: number;
}

export function chunkIdOf(generation: number, chunkIndex: number): string {
  return `g${generation}-c${chunkIndex}`;
}
