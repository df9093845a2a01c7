// A Client's immutable serving snapshot and the copy-on-write step that publishes a new one.
// Search holds the snapshot it started with; publishing never changes an existing snapshot.

import type { ServingGeneration } from '../domain/generation.ts';
import { lanesServable, VERIFIED } from '../codec/evidence.ts';
import type { Evidence } from '../codec/evidence.ts';
import { versionIdentity, versionIdFromKey } from '../domain/identity.ts';
import { chunkAtRow, chunkInSegment, hasLiveRows, inlineSegmentBuilder, rowOfOrdinal, sourceOf} from './segment.ts';
import type { Segment, SegmentBuilder, SegmentPart } from './segment.ts';
import type { VocabularyParts } from '../text/vocabulary.ts';
import type { ServedChunk, ServedVersion } from './served-types.ts';
import { recordedEntitiesDigest, recordedLanesDigest } from '../codec/manifest.ts';
import { sharedValue } from './shared-values.ts';

/**
 * Segments merge in runs of this many of one size class, so each chunk is rebuilt about log4(n) times, not
 * log2(n) as when merging pairs: during bulk ingest merges are most of what an api process spends.
 */
export const SEGMENT_MERGE_FACTOR = 4;
/** Size class 0 holds segments below SEGMENT_CLASS_BASE_ROWS * SEGMENT_MERGE_FACTOR rows; each class is that factor larger. */
export const SEGMENT_CLASS_BASE_ROWS = 64;
/** Upper bound on segments per snapshot; past it the two newest are merged regardless. */
export const MAX_SEGMENTS = 24;
/**
 * A segment whose rows are at least this share dead (their versions replaced or deleted) is rewritten without
 * them. Size-class runs form at the newest end, so without this an old segment kept by a few live chunks would
 * hold every dead row beside them: memory would grow with publications, not with what is served.
 */
export const SEGMENT_DEAD_SHARE = 0.5;
/** ...once it holds at least this many dead rows, so that small segments are not rewritten for a few. */
export const SEGMENT_DEAD_MIN_ROWS = SEGMENT_CLASS_BASE_ROWS;

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
  /** Their evidence as verified on entry (serving-index.ts); a generation without an entry counts as verified. */
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

/** The size class of a segment of `rows` rows (dead rows count too: a segment full of them is worth rewriting). */
export function sizeClass(rows: number): number {
  let sizeClass = 0;
  for (let bound = SEGMENT_CLASS_BASE_ROWS * SEGMENT_MERGE_FACTOR; rows >= bound; bound *= SEGMENT_MERGE_FACTOR) sizeClass++;
  return sizeClass;
}

/** Rows of a segment whose version is still served (a version's chunks are live or dead together). */
export function liveRowsOf(segment: Segment, live: Uint8Array): number {
  let rows = 0;
  for (const version of segment.versions) if (version.chunkCount > 0 && live[version.firstOrdinal] === 1) rows += version.chunkCount;
  return rows;
}

/**
 * The segment with the most dead rows among those due a rewrite (SEGMENT_DEAD_SHARE, SEGMENT_DEAD_MIN_ROWS), or
 * null. Asked after every publication, so the snapshot's dead rows in all bound the search first: with none (bulk
 * ingest) no segment's versions are counted, and a segment too large to be half dead is never counted.
 */
function mostlyDeadSegment(snapshot: ClientSnapshot): Segment | null {
  const deadInAll = snapshot.segments.reduce((sum, segment) => sum + segment.rows, 0) - snapshot.liveChunkCount;
  if (deadInAll < SEGMENT_DEAD_MIN_ROWS) return null;
  let chosen: Segment | null = null;
  let chosenDead = 0;
  for (const segment of snapshot.segments) {
    if (segment.rows * SEGMENT_DEAD_SHARE > deadInAll) continue;
    const dead = segment.rows - liveRowsOf(segment, snapshot.live);
    if (dead >= SEGMENT_DEAD_MIN_ROWS && dead >= SEGMENT_DEAD_SHARE * segment.rows && dead > chosenDead) {
      chosen = segment;
      chosenDead = dead;
    }
  }
  return chosen;
}

/** The newest run of SEGMENT_MERGE_FACTOR adjacent segments of one size class, or null. */
function sizeClassRun(segments: readonly Segment[]): Segment[] | null {
  for (let end = segments.length; end >= SEGMENT_MERGE_FACTOR; end--) {
    const run = segments.slice(end - SEGMENT_MERGE_FACTOR, end);
    const head = sizeClass(run[0].rows);
    if (run.every((segment) => sizeClass(segment.rows) === head)) return run;
  }
  return null;
}

/**
 * Log-structured merging: once SEGMENT_MERGE_FACTOR adjacent segments are of one size class, they merge into one
 * of a larger class, so a Client with n chunks keeps O(log n) segments and each chunk is rebuilt O(log n) times.
 * Publications append, so such a run forms at the newest end; older runs form when rewrites shrink segments.
 * Past MAX_SEGMENTS the two newest merge regardless. Otherwise a segment mostly made of dead rows is rewritten
 * alone (a run of one), so the rows held stay within about twice the live ones. Returns the adjacent run to
 * merge next, or null.
 */
export function compactionPlan(snapshot: ClientSnapshot): Segment[] | null {
  const segments = snapshot.segments;
  if (segments.length > MAX_SEGMENTS) return segments.slice(-2);
  const run = sizeClassRun(segments);
  if (run) return run;
  const mostlyDead = mostlyDeadSegment(snapshot);
  return mostlyDead ? [mostlyDead] : null;
}

/**
 * The merge a Client's segments get once its publications pause (serving-index.ts SEGMENT_SETTLE_MS): its newest
 * segments into one, reaching back over each older segment at most SEGMENT_MERGE_FACTOR times the rows taken so far.
 * Size-class runs must be adjacent and of one class, so bulk ingest leaves a dozen or more segments of mixed sizes
 * (measured: 24 after 100,000 chunks over HTTP), and a search pays for each: its own term lookups, and its own graph
 * walk or exact scan. Settled, a Client is one segment, or a few each over SEGMENT_MERGE_FACTOR times the rows of
 * all newer ones; a large segment is rewritten only once the newer rows reach a share of it, so that each row is
 * rebuilt about log(n) times whatever the pauses. Null when nothing would merge.
 */
export function settleMergePlan(snapshot: ClientSnapshot): Segment[] | null {
  const segments = snapshot.segments;
  let start = segments.length - 1;
  if (start < 1) return null;
  let rows = segments[start].rows;
  while (start > 0 && segments[start - 1].rows <= SEGMENT_MERGE_FACTOR * rows) {
    start--;
    rows += segments[start].rows;
  }
  return segments.length - start >= 2 ? segments.slice(start) : null;
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

/** Runs merges until the policy asks for none (inline: tests and tools; api processes compact in the background). */
export async function compactFully(snapshot: ClientSnapshot, builder: SegmentBuilder = inlineSegmentBuilder): Promise<ClientSnapshot> {
  let current = snapshot;
  for (let plan = compactionPlan(current); plan; plan = compactionPlan(current)) {
    current = replaceSegments(current, plan, await builder.merge(plan, current.live))!;
  }
  return current;
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
