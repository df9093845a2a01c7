// A Client's immutable serving snapshot and the copy-on-write step that publishes a new one.
// Search holds the snapshot it started with; publishing never changes an existing snapshot.

import type { ServingGeneration } from '../domain/generation.ts';
import { lanesServable, VERIFIED } from '../codec/evidence.ts';
import type { Evidence } from '../codec/evidence.ts';
import { versionIdentity, versionIdFromKey } from '../domain/identity.ts';
import { chunkAtRow, chunkInSegment, hasLiveRows, inlineSegmentBuilder, rowOfOrdinal } from './segment.ts';
import type { Segment, SegmentBuilder } from './segment.ts';
import { sourceOf } from './segment-assembler.ts';
import type { SegmentPart } from './segment-assembler.ts';
import type { VocabularyParts } from '../text/vocabulary.ts';
import type { ServedChunk, ServedVersion } from './served-types.ts';
import { recordedEntitiesDigest, recordedLanesDigest } from '../codec/manifest.ts';
import { sharedValue } from './shared-values.ts';

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

function toServedVersion(generation: ServingGeneration, firstOrdinal: number, evidence: Evidence): ServedVersion {
  return {
    documentId: generation.documentId,
    versionId: versionIdFromKey(generation.versionKey),
    identity: versionIdentity({ documentId: generation.documentId, versionId: versionIdFromKey(generation.versionKey) }),
    generation: generation.generation,
    jobId: generation.jobId,
    createdAt: generation.createdAt,
    activatedAt: generation.activatedAt,
    // Parts equal to other versions' are held once (shared-values.ts).
    canonicalMetadata: sharedValue(generation.canonicalMetadata),
    entities: sharedValue(generation.entities),
    embedding: sharedValue(generation.embedding),
    deletion: sharedValue(generation.deletion),
    evidence,
    lanesDigest: recordedLanesDigest(generation.manifest),
    entitiesDigest: recordedEntitiesDigest(generation.manifest),
    leaves: sharedValue(generation.leaves),
    firstOrdinal,
    chunkCount: generation.chunkCount,
  };
}

export interface SnapshotChange {
  /** Generations that become the active one of their version. */
  activated: ServingGeneration[];
  /** Their evidence as verified on entry (client-loader.ts evidenceOf); a generation without an entry counts as verified. */
  evidence?: ReadonlyMap<number, Evidence>;
  /** Version identities that leave the snapshot entirely (hard delete). */
  removed?: string[];
}

/** A change worked out against a snapshot: everything but the new segment, which may be built elsewhere. */
export interface PlannedChange {
  versions: Map<string, ServedVersion>;
  live: Uint8Array;
  nextOrdinal: number;
  liveChunkCount: number;
  deletedVersionCount: number;
  /** The generations that entered with chunks, at their first ordinals: the new segment's content. */
  added: SegmentPart[];
  /** Their versions, in the same order (a version entering without rows is in `versions` only). */
  addedVersions: ServedVersion[];
}

export function planChange(snapshot: ClientSnapshot, change: SnapshotChange): PlannedChange {
  const versions = new Map(snapshot.versions);
  let nextOrdinal = snapshot.nextOrdinal;
  const added: SegmentPart[] = [];
  const retired: ServedVersion[] = [];
  const addedVersions: ServedVersion[] = [];
  const indexedVersions: ServedVersion[] = [];
  for (const generation of change.activated) {
    const version = toServedVersion(generation, nextOrdinal, change.evidence?.get(generation.generation) ?? VERIFIED);
    nextOrdinal += version.chunkCount;
    const previous = versions.get(version.identity);
    if (previous && previous.generation > version.generation) continue; // never move a version backwards
    if (previous) retired.push(previous);
    versions.set(version.identity, version);
    addedVersions.push(version);
    // Lane data that is not the bytes its manifest recorded is never decoded (codec/evidence.ts): the version is served
    // without rows, so no lane can rank it, and reads that would need it still fail closed on its evidence.
    if (version.chunkCount > 0 && lanesServable(version.evidence)) {
      added.push({ firstOrdinal: version.firstOrdinal, source: sourceOf(generation) });
      indexedVersions.push(version);
    }
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
    for (let ordinal = version.firstOrdinal; ordinal < version.firstOrdinal + version.chunkCount; ordinal++) {
      if (live[ordinal] === 1) liveChunkCount--;
      live[ordinal] = 0;
    }
  }
  for (const version of addedVersions) {
    live.fill(1, version.firstOrdinal, version.firstOrdinal + version.chunkCount);
    liveChunkCount += version.chunkCount;
  }
  return { versions, live, nextOrdinal, liveChunkCount, deletedVersionCount, added, addedVersions: indexedVersions };
}

/**
 * Publishes a planned change on `snapshot` (the one it was planned against, or a later one that differs only
 * by compacted segments): a new snapshot sharing every untouched segment; segments left with no live chunk go.
 */
export function commitChange(snapshot: ClientSnapshot, plan: PlannedChange, segment: Segment | null): ClientSnapshot {
  const segments = [...snapshot.segments, ...(segment ? [segment] : [])].filter((candidate) => hasLiveRows(candidate, plan.live));
  return {
    clientId: snapshot.clientId,
    sequence: snapshot.sequence + 1,
    versions: plan.versions,
    segments,
    live: plan.live,
    nextOrdinal: plan.nextOrdinal,
    dimensions: snapshot.dimensions,
    liveChunkCount: plan.liveChunkCount,
    deletedVersionCount: plan.deletedVersionCount,
  };
}

/** Publishes a change: the new chunks become one new segment (built by `builder`); nothing is merged here. */
export async function applyChange(snapshot: ClientSnapshot, change: SnapshotChange, builder: SegmentBuilder = inlineSegmentBuilder): Promise<ClientSnapshot> {
  const plan = planChange(snapshot, change);
  const segment = plan.added.length > 0 ? await builder.build(plan.added, plan.addedVersions, snapshot.dimensions) : null;
  return commitChange(snapshot, plan, segment);
}

/** Rows of a segment whose version is still served (a version's chunks are live or dead together). */
export function liveRowsOf(segment: Segment, live: Uint8Array): number {
  let rows = 0;
  for (const version of segment.versions) if (version.chunkCount > 0 && live[version.firstOrdinal] === 1) rows += version.chunkCount;
  return rows;
}

/**
 * Replaces merged segments by their merge in the current snapshot, if they are all still there (a merge
 * runs while publications go on; only segments change, so versions and liveness are kept as they are now).
 * Null when the snapshot moved on in a way that makes the merge stale.
 */
export function replaceSegments(snapshot: ClientSnapshot, inputs: readonly Segment[], merged: Segment): ClientSnapshot | null {
  const at = snapshot.segments.indexOf(inputs[0]);
  if (at < 0 || inputs.some((input, offset) => snapshot.segments[at + offset] !== input)) return null;
  const segments = snapshot.segments.slice();
  segments.splice(at, inputs.length, ...(merged.rows > 0 ? [merged] : []));
  return { ...snapshot, segments };
}

/** The index of the segment holding this ordinal, or -1 when none holds it any more. */
export function segmentIndexOf(snapshot: ClientSnapshot, ordinal: number): number {
  const segments = snapshot.segments;
  let low = 0;
  let high = segments.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const segment = segments[middle];
    if (ordinal < segment.minOrdinal) high = middle - 1;
    else if (ordinal > segment.maxOrdinal) low = middle + 1;
    else return middle;
  }
  return -1;
}

/** The segment holding this ordinal, or undefined when none holds it any more. */
function segmentOf(snapshot: ClientSnapshot, ordinal: number): Segment | undefined {
  const at = segmentIndexOf(snapshot, ordinal);
  return at < 0 ? undefined : snapshot.segments[at];
}

const generationNumberings = new WeakMap<ClientSnapshot, Int32Array>();

/**
 * One numbering of every generation a snapshot's segments hold: segment s's generation g is number
 * bases[s] + g, and bases[segments.length] is how many there are. Computed once per snapshot, so a search can
 * group chunks by version with integers instead of looking versions up as objects.
 */
export function generationNumbering(snapshot: ClientSnapshot): Int32Array {
  let bases = generationNumberings.get(snapshot);
  if (bases === undefined) {
    bases = new Int32Array(snapshot.segments.length + 1);
    snapshot.segments.forEach((segment, s) => (bases![s + 1] = bases![s] + segment.versions.length));
    generationNumberings.set(snapshot, bases);
  }
  return bases;
}

/** The chunks of a served version, in document order (what chunk-level filters read). */
export function chunksOf(snapshot: ClientSnapshot, version: ServedVersion): ServedChunk[] {
  const segment = version.chunkCount > 0 ? segmentOf(snapshot, version.firstOrdinal) : undefined;
  const row = segment ? rowOfOrdinal(segment, version.firstOrdinal) : -1;
  if (!segment || row < 0) return [];
  return Array.from({ length: version.chunkCount }, (_, offset) => chunkAtRow(segment, row + offset));
}

/** The chunk with this ordinal, live or not, or undefined when no segment holds it any more. */
export function chunkByOrdinal(snapshot: ClientSnapshot, ordinal: number): ServedChunk | undefined {
  const segment = segmentOf(snapshot, ordinal);
  return segment ? chunkInSegment(segment, ordinal) : undefined;
}

/**
 * The Client vocabulary of a snapshot (the fuzzy lane) as its segments' vocabularies. Each is built once
 * per immutable segment, so every search of one snapshot corrects against the same words and a new
 * publication only adds the words of its own small segment.
 */
export function snapshotVocabulary(snapshot: ClientSnapshot): VocabularyParts {
  return snapshot.segments.map((segment) => segment.vocabulary);
}
