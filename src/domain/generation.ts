// Generations of a Document Version as the whole service speaks of them: chunk records, metadata leaves,
// deletion markers, staged input and stored records. Plain shapes; the storage port persists them.

import type { CanonicalMetadata, JsonObject, JsonValue } from './canonical-metadata.ts';
import type { Entities } from './entities.ts';

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

export const GENERATION_STATES = ['staged', 'active', 'retired'] as const;
export type GenerationState = (typeof GENERATION_STATES)[number];

/** What a writer stages: an immutable generation of one Document Version. */
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
  /**
   * False for data imported from before Metadata Discovery, whose metadata lane was never indexed: the Client's
   * readiness is not_started until a backfill indexes it. Every writer of this service indexes inline (default).
   */
  leavesIndexed?: boolean;
}

export interface GenerationRecord extends Omit<GenerationInput, 'chunks' | 'leaves'> {
  generation: number;
  state: GenerationState;
  stagedAt: string;
  activatedAt: string | null;
  chunkCount: number;
}

export interface LoadedGeneration extends GenerationRecord {
  chunks: ChunkRecord[];
  leaves: MetadataLeaf[];
}

export interface ActivationResult {
  generation: number;
  previousGeneration: number | null;
}
