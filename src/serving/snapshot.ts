// A Client's immutable serving snapshot and the copy-on-write step that publishes a new one.
// Search holds the snapshot it started with; publishing never changes an existing snapshot.

import type { LoadedGeneration } from '../domain/generation.ts';
import { versionIdentity, versionIdFromKey } from '../domain/identity.ts';
import { buildSegment, chunkInSegment, mergeSegments, segmentVocabulary } from './segment.ts';
import type { Segment } from './segment.ts';
import type { VocabularyParts } from '../text/vocabulary.ts';
import { chunkIdOf } from './served-types.ts';
import type { ServedChunk, ServedVersion } from './served-types.ts';

/** A newly added segment is merged into its predecessor while it is at least this fraction of its size. */
export const SEGMENT_MERGE_RATIO = 0.5;
/** Upper bound on segments per snapshot; past it the smallest neighbours are merged regardless. */
export const MAX_SEGMENTS = 12;

export interface ClientSnapshot {
  readonly clientId: string;
  /** Increases by one with every publication for this Client in this process. */
  readonly sequence: number;
  readonly versions: ReadonlyMap<string, ServedVersion>;
  readonly segments: readonly Segment[];
  /** live[ordinal] === 1 when the chunk belongs to an active generation. */
  readonly live: Uint8Array;
  readonly nextOrdinal: number;
  readonly dimensions: number;
  readonly liveChunkCount: number;
  /** Versions carrying soft-delete markers (hidden unless include_deleted). */
  readonly deletedVersionCount: number;
}

export function emptySnapshot(clientId: string, dimensions: number): ClientSnapshot {
  return { clientId, sequence: 0, versions: new Map(), segments: [], live: new Uint8Array(0), nextOrdinal: 0, dimensions, liveChunkCount: 0, deletedVersionCount: 0 };
}

function vectorNorm(vector: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i] * vector[i];
  return Math.sqrt(sum);
}

function toServedVersion(generation: LoadedGeneration, firstOrdinal: number): ServedVersion {
  const version: ServedVersion = {
    documentId: generation.documentId,
    versionId: versionIdFromKey(generation.versionKey),
    identity: versionIdentity({ documentId: generation.documentId, versionId: versionIdFromKey(generation.versionKey) }),
    generation: generation.generation,
    jobId: generation.jobId,
    createdAt: generation.createdAt,
    activatedAt: generation.activatedAt,
    canonicalMetadata: generation.canonicalMetadata,
    entities: generation.entities,
    embedding: generation.embedding,
    deletion: generation.deletion,
    manifest: generation.manifest,
    leaves: generation.leaves,
    chunks: [],
  };
  version.chunks = generation.chunks.map((chunk, offset) => ({
    ordinal: firstOrdinal + offset,
    chunkId: chunkIdOf(generation.generation, chunk.chunkIndex),
    chunkIndex: chunk.chunkIndex,
    page: chunk.page,
    pageLabel: chunk.pageLabel,
    text: chunk.text,
    entities: chunk.entities,
    vector: chunk.vector,
    norm: vectorNorm(chunk.vector),
    version,
  }));
  return version;
}

export interface SnapshotChange {
  /** Generations that become the active one of their version. */
  activated: LoadedGeneration[];
  /** Version identities that leave the snapshot entirely (hard delete). */
  removed?: string[];
}

/** Publishes a change: returns a new snapshot sharing every untouched segment with the old one. */
export function applyChange(snapshot: ClientSnapshot, change: SnapshotChange): ClientSnapshot {
  const versions = new Map(snapshot.versions);
  let nextOrdinal = snapshot.nextOrdinal;
  const added: ServedChunk[] = [];
  const retired: ServedVersion[] = [];
  const addedVersions: ServedVersion[] = [];
  for (const generation of change.activated) {
    const version = toServedVersion(generation, nextOrdinal);
    nextOrdinal += version.chunks.length;
    const previous = versions.get(version.identity);
    if (previous && previous.generation > version.generation) continue; // never move a version backwards
    if (previous) retired.push(previous);
    versions.set(version.identity, version);
    addedVersions.push(version);
    added.push(...version.chunks);
  }
  for (const identity of change.removed ?? []) {
    const previous = versions.get(identity);
    if (previous) retired.push(previous);
    versions.delete(identity);
  }
  const live = new Uint8Array(Math.max(nextOrdinal, snapshot.live.length));
  live.set(snapshot.live);
  let liveChunkCount = snapshot.liveChunkCount;
  let deletedVersionCount = snapshot.deletedVersionCount;
  for (const version of retired) if (version.deletion.deleted) deletedVersionCount--;
  for (const version of addedVersions) if (version.deletion.deleted) deletedVersionCount++;
  for (const version of retired) {
    for (const chunk of version.chunks) {
      if (live[chunk.ordinal] === 1) liveChunkCount--;
      live[chunk.ordinal] = 0;
    }
  }
  for (const chunk of added) live[chunk.ordinal] = 1;
  liveChunkCount += added.length;
  let segments = snapshot.segments.slice();
  if (added.length > 0) segments.push(buildSegment(added, snapshot.dimensions));
  segments = compact(segments, (ordinal) => live[ordinal] === 1);
  return {
    clientId: snapshot.clientId,
    sequence: snapshot.sequence + 1,
    versions,
    segments,
    live,
    nextOrdinal,
    dimensions: snapshot.dimensions,
    liveChunkCount,
    deletedVersionCount,
  };
}

function hasLiveChunk(segment: Segment, isLive: (ordinal: number) => boolean): boolean {
  return segment.chunks.some((chunk) => isLive(chunk.ordinal));
}

/**
 * Log-structured merging: the newest segment is folded into its predecessor while it has grown to a
 * comparable size, so a Client with n chunks keeps O(log n) segments and each chunk is rebuilt O(log n) times.
 */
function compact(segments: Segment[], isLive: (ordinal: number) => boolean): Segment[] {
  const result = segments.filter((segment) => hasLiveChunk(segment, isLive));
  while (result.length >= 2) {
    const last = result[result.length - 1];
    const before = result[result.length - 2];
    const tooMany = result.length > MAX_SEGMENTS;
    // Sizes count dead chunks too: cheap, and a segment full of dead chunks is worth rewriting anyway.
    if (!tooMany && last.chunks.length < before.chunks.length * SEGMENT_MERGE_RATIO) break;
    result.splice(result.length - 2, 2, mergeSegments([before, last], isLive));
  }
  return result;
}

/** The chunk with this ordinal, live or not, or undefined when no segment holds it any more. */
export function chunkByOrdinal(snapshot: ClientSnapshot, ordinal: number): ServedChunk | undefined {
  const segments = snapshot.segments;
  let low = 0;
  let high = segments.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const segment = segments[middle];
    if (ordinal < segment.minOrdinal) high = middle - 1;
    else if (ordinal > segment.maxOrdinal) low = middle + 1;
    else return chunkInSegment(segment, ordinal);
  }
  return undefined;
}

/**
 * The Client vocabulary of a snapshot (the fuzzy lane) as its segments' vocabularies. Each is built once
 * per immutable segment, so every search of one snapshot corrects against the same words and a new
 * publication only adds the words of its own small segment.
 */
export function snapshotVocabulary(snapshot: ClientSnapshot): VocabularyParts {
  return snapshot.segments.map(segmentVocabulary);
}
