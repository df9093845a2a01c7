// Generations of a Document Version as the whole service speaks of them: chunk records, metadata leaves,
// deletion markers, staged input and stored records. Plain shapes; the storage port persists them.

import type { CanonicalMetadata, JsonObject, JsonValue } from './canonical-metadata.ts';
import type { Entities } from './entities.ts';
import type { ChunkLanguage } from './chunk-language.ts';
import type { RowRange } from './row-range.ts';

export interface ChunkRecord {
  chunkIndex: number;
  page: number | null;
  pageLabel: string | null;
  text: string;
  entities: Entities;
  vector: Float32Array;
  /** Detected at indexing; null for a chunk indexed before languages were recorded. */
  language: ChunkLanguage | null;
  /** The spreadsheet rows the chunk holds; null or absent for other chunks and for chunks stored before rows were. */
  rows?: RowRange | null;
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
   * The generation's lane data in its persisted binary form (codec/lanes-encoding.ts), written with it so
   * that api processes load it instead of re-indexing the chunks; its digest is in the manifest.
   */
  lanes?: Uint8Array;
  /**
   * False for data imported from before Metadata Discovery, whose metadata lane was never indexed: the Client's
   * readiness is not_started until a backfill indexes it. Every writer of this service indexes inline (default).
   */
  leavesIndexed?: boolean;
}

export interface GenerationRecord extends Omit<GenerationInput, 'chunks' | 'leaves' | 'lanes'> {
  generation: number;
  state: GenerationState;
  stagedAt: string;
  activatedAt: string | null;
  chunkCount: number;
  /**
   * What of the stored generation does not parse (its columns, or its metadata leaves): such a generation is
   * malformed evidence, never served, and no successor is built from it (loading it whole throws
   * UnreadableGeneration). Absent when everything read.
   */
  unreadable?: string[];
}

/** A stored generation whose JSON does not parse, met by a read that cannot do without it (a 500). */
export class UnreadableGeneration extends Error {
  constructor(generation: number, parts: readonly string[]) {
    super(`stored generation ${generation} is unreadable (${parts.join(', ')})`);
    this.name = 'UnreadableGeneration';
  }
}

export interface LoadedGeneration extends GenerationRecord {
  chunks: ChunkRecord[];
  leaves: MetadataLeaf[];
  lanes?: Uint8Array | null;
}

/**
 * A generation as an api process loads it to serve: its record, leaves and persisted lane data, without its
 * chunks; chunks are present only for a generation stored without lane data (written before lanes existed).
 */
export interface ServingGeneration extends GenerationRecord {
  leaves: MetadataLeaf[];
  lanes?: Uint8Array | null;
  chunks?: ChunkRecord[];
}

export interface ActivationResult {
  generation: number;
  previousGeneration: number | null;
}
