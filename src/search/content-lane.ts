// The content lane: normalized query -> sparse (BM25) and dense (cosine) chunk hits -> weighted fusion by
// alpha -> chunk hits grouped into Document Versions. alpha 0 never runs dense, alpha 1 never runs sparse.

import type { ClientSnapshot } from '../serving/snapshot.ts';
import { generationNumbering, segmentIndexOf } from '../serving/snapshot.ts';
import { generationOfOrdinalIn } from '../serving/segment.ts';
import type { ServedVersion } from '../serving/served-types.ts';
import type { Embedder } from '../models/embedder.ts';
import { searchBm25 } from './bm25.ts';
import { graphWalks, searchDense } from './dense-lane.ts';
import type { GraphProposals, ThreadedGraphWalks } from '../serving/threaded-graph-walks.ts';
import type { LaneResult } from './dense-lane.ts';
import { readOverNetwork } from './network-read.ts';
import { DEFAULT_RANKED_ROWS, DENSE_RESCORE_CHUNKS, rescoreDenseHead } from './dense-rescore.ts';
import type { ChunkVectorReader } from './dense-rescore.ts';
import { fuseLanes } from './fusion.ts';
import { ServiceError } from '../domain/service-error.ts';
import { analyzeQueryTerms } from '../text/analyzer.ts';

/** Default bounded scan cap of each lane: more matching chunks than this make totals a lower bound. */
export const DEFAULT_CANDIDATE_CAP = 1000;

/** A matched chunk by ordinal: the few a response shows are resolved to chunks (chunkByOrdinal) when rendered. */
export interface ChunkScore {
  ordinal: number;
  score: number;
  tieBreak: number;
}

export interface VersionHit {
  readonly version: ServedVersion;
  readonly score: number;
  readonly tieBreak: number;
  /** Matched chunks of this version, best first (listed when first read: most hits are never rendered). */
  readonly chunks: readonly ChunkScore[];
}

export interface ContentLaneResult {
  /** The best `ordered` matched versions (searchContent) in rank order: all of them when `ordered` covers them. */
  versions: VersionHit[];
  /** Versions matched in all; `versions` lists the first of them. */
  total: number;
  /** Every matched version, in no particular order (the rows an answer counts, for its evidence check). */
  matchedVersions(): Iterable<ServedVersion>;
  exhausted: boolean;
  queryTerms: string[];
}

function emptyLane(): LaneResult {
  return { hits: [], matched: 0, exhausted: true };
}

/**
 * The fused candidates grouped by version without an object per chunk or per version: each version (a slot) has
 * its best score, tie-break and place in the snapshot in typed arrays, and its chunks are a linked list over the
 * candidate arrays. Objects (GroupedVersionHit, ChunkScore) are made only for the versions a response ranks.
 */
class CandidateGroups {
  readonly ordinals: Int32Array;
  readonly scores: Float64Array;
  readonly tieBreaks: Float64Array;
  /** Next candidate of the same version, or -1; heads[slot] is a version's first. */
  readonly next: Int32Array;
  readonly heads: Int32Array;
  /** Per slot: the version's best score and tie-break, and where the snapshot holds it (segment, generation). */
  readonly bestScores: Float64Array;
  readonly bestTieBreaks: Float64Array;
  readonly segmentOf: Int32Array;
  readonly generationOf: Int32Array;
  /** Slots in use: versions matched. */
  count = 0;
  private readonly snapshot: ClientSnapshot;

  constructor(snapshot: ClientSnapshot, size: number) {
    this.snapshot = snapshot;
    this.ordinals = new Int32Array(size);
    this.scores = new Float64Array(size);
    this.tieBreaks = new Float64Array(size);
    this.next = new Int32Array(size);
    this.heads = new Int32Array(size);
    this.bestScores = new Float64Array(size);
    this.bestTieBreaks = new Float64Array(size);
    this.segmentOf = new Int32Array(size);
    this.generationOf = new Int32Array(size);
  }

  versionOf(slot: number): ServedVersion {
    return this.snapshot.segments[this.segmentOf[slot]].versions[this.generationOf[slot]];
  }

  /** The rank order of compareVersionHits over slots; a version is looked up only when scores and tie-breaks tie. */
  readonly compareSlots = (a: number, b: number): number =>
    compareScores(this.bestScores[a], this.bestTieBreaks[a], this.bestScores[b], this.bestTieBreaks[b]) || compareIdentities(this.versionOf(a).identity, this.versionOf(b).identity);

  chunksOf(slot: number): ChunkScore[] {
    const chunks: ChunkScore[] = [];
    for (let at = this.heads[slot]; at >= 0; at = this.next[at]) chunks.push({ ordinal: this.ordinals[at], score: this.scores[at], tieBreak: this.tieBreaks[at] });
    // Equal scores keep the earlier chunk (document order) first.
    if (chunks.length > 1) chunks.sort((a, b) => b.score - a.score || b.tieBreak - a.tieBreak || a.ordinal - b.ordinal);
    return chunks;
  }

  *versions(): Iterable<ServedVersion> {
    for (let slot = 0; slot < this.count; slot++) yield this.versionOf(slot);
  }
}

/** Slot of each generation number in the search running now (-1: none); searches run one at a time on a thread. */
let slotScratchArray = new Int32Array(0);

function slotScratch(size: number): Int32Array {
  if (slotScratchArray.length < size) slotScratchArray = new Int32Array(Math.max(size, 2 * slotScratchArray.length)).fill(-1);
  return slotScratchArray;
}

class GroupedVersionHit implements VersionHit {
  readonly version: ServedVersion;
  readonly score: number;
  readonly tieBreak: number;
  private readonly groups: CandidateGroups;
  private readonly slot: number;
  private listed: ChunkScore[] | null = null;

  constructor(groups: CandidateGroups, slot: number) {
    this.version = groups.versionOf(slot);
    this.score = groups.bestScores[slot];
    this.tieBreak = groups.bestTieBreaks[slot];
    this.groups = groups;
    this.slot = slot;
  }

  get chunks(): readonly ChunkScore[] {
    return (this.listed ??= this.groups.chunksOf(this.slot));
  }
}

/**
 * The best `count` of `items` by `compare`, in rank order: a page needs its rows ranked, while totals and evidence
 * checks only need every version counted. Sorts `items` when the head is a large share of them.
 */
export function rankHead<T>(items: T[], count: number, compare: (a: T, b: T) => number): T[] {
  if (count >= items.length / 4) return items.sort(compare).slice(0, count);
  // A bounded heap of the best `count`, worst at the root: most items lose to the root in one comparison.
  const heap: T[] = [];
  const worse = (a: T, b: T) => compare(a, b) > 0;
  for (const item of items) {
    if (heap.length < count) {
      heap.push(item);
      for (let i = heap.length - 1; i > 0; ) {
        const parent = (i - 1) >> 1;
        if (!worse(heap[i], heap[parent])) break;
        [heap[i], heap[parent]] = [heap[parent], heap[i]];
        i = parent;
      }
      continue;
    }
    if (count === 0 || !worse(heap[0], item)) continue;
    heap[0] = item;
    for (let i = 0; ; ) {
      const left = 2 * i + 1;
      let worst = i;
      if (left < heap.length && worse(heap[left], heap[worst])) worst = left;
      if (left + 1 < heap.length && worse(heap[left + 1], heap[worst])) worst = left + 1;
      if (worst === i) break;
      [heap[i], heap[worst]] = [heap[worst], heap[i]];
      i = worst;
    }
  }
  return heap.sort(compare);
}

/**
 * `depth`: rows the caller needs ranked well (the dense lane's graphs propose at least this many);
 * `ordered`: how many versions must come out in rank order (all of them when another lane merges by rank);
 * `graphThread`: where the dense lane's graph walks run while the sparse lane runs here, when given;
 * `readVectors`: the store's float32 vectors, which the dense lane's best rows are rescored with (dense-rescore.ts).
 */
export async function searchContent(
  snapshot: ClientSnapshot,
  normalizedQuery: string,
  alpha: number,
  eligible: Uint8Array,
  embedder: Embedder,
  candidateCap: number = DEFAULT_CANDIDATE_CAP,
  depth = 0,
  ordered = Number.POSITIVE_INFINITY,
  graphThread: ThreadedGraphWalks | null = null,
  readVectors: ChunkVectorReader | null = null,
): Promise<ContentLaneResult> {
  const queryTerms = analyzeQueryTerms(normalizedQuery);
  const runSparse = alpha < 1 && queryTerms.length > 0;
  let queryVector: Float32Array | null = null;
  let proposals: Promise<GraphProposals> | null = null;
  if (alpha > 0) {
    // The query embedding may cross the network (a remote embedder): rule 12 applies to it, not to the scan.
    [queryVector] = await readOverNetwork(() => embedder.embed([normalizedQuery], { singleAttempt: true }));
    // With a sparse lane to run meanwhile, the graphs are walked on the graph thread.
    if (runSparse && graphThread) proposals = graphThread.start(queryVector, graphWalks(snapshot.segments, queryVector, eligible, depth));
  }
  const sparse: LaneResult = runSparse
    ? (() => {
        const { hits, matched } = searchBm25(snapshot.segments.map((segment) => segment.bm25), queryTerms, {
          limit: candidateCap,
          liveById: eligible,
          ordered: false,
          // Whether more chunks match than the cap is all the lane reports of its matches (exhausted).
          countUpTo: candidateCap,
        });
        return { hits: hits.map((hit) => ({ ordinal: hit.id, score: hit.score })), matched, exhausted: matched <= candidateCap };
      })()
    : emptyLane();
  const dense = queryVector ? searchDense(snapshot.segments, queryVector, eligible, { cap: candidateCap, depth, ordered: false, proposals: proposals ? await proposals : undefined }) : emptyLane();
  if (queryVector && readVectors) await rescoreDenseHead(snapshot, dense.hits, queryVector, Math.max(DEFAULT_RANKED_ROWS, depth), Math.max(DENSE_RESCORE_CHUNKS, depth), readVectors);

  const fused = fuseLanes(sparse, dense, alpha);

  // Grouped by generation number (generationNumbering), an integer per version: a version object is read
  // once per ranked version, not once per chunk.
  const numbering = generationNumbering(snapshot);
  const slotOf = slotScratch(numbering[numbering.length - 1]);
  const groups = new CandidateGroups(snapshot, fused.size);
  const numbers: number[] = [];
  try {
    for (let at = 0; at < fused.size; at++) {
      const ordinal = fused.ordinals[at];
      const s = segmentIndexOf(snapshot, ordinal);
      const generation = s < 0 ? -1 : generationOfOrdinalIn(snapshot.segments[s], ordinal);
      if (generation < 0 || snapshot.live[ordinal] !== 1) {
        // SPEC.md rule 11: a lane returned a point the authoritative snapshot cannot back with evidence.
        const lane = sparse.hits.some((hit) => hit.ordinal === ordinal) ? 'content.sparse' : 'content.dense';
        throw new ServiceError('stored_evidence_inconsistent', 'Stored evidence is inconsistent with retrieval contributions', {
          details: { code: 'stored_evidence_inconsistent', lane, point: ordinal, snapshot_sequence: snapshot.sequence },
        });
      }
      const number = numbering[s] + generation;
      const score = fused.scores[at];
      const tieBreak = fused.tieBreaks[at];
      let slot = slotOf[number];
      if (slot < 0) {
        slot = groups.count++;
        slotOf[number] = slot;
        numbers.push(number);
        groups.segmentOf[slot] = s;
        groups.generationOf[slot] = generation;
        groups.heads[slot] = -1;
        groups.bestScores[slot] = score;
        groups.bestTieBreaks[slot] = tieBreak;
      } else if (score > groups.bestScores[slot] || (score === groups.bestScores[slot] && tieBreak > groups.bestTieBreaks[slot])) {
        groups.bestScores[slot] = score;
        groups.bestTieBreaks[slot] = tieBreak;
      }
      groups.ordinals[at] = ordinal;
      groups.scores[at] = score;
      groups.tieBreaks[at] = tieBreak;
      groups.next[at] = groups.heads[slot];
      groups.heads[slot] = at;
    }
  } finally {
    for (const number of numbers) slotOf[number] = -1;
  }
  const slots: number[] = [];
  for (let slot = 0; slot < groups.count; slot++) slots.push(slot);
  const versions = rankHead(slots, ordered, groups.compareSlots).map((slot) => new GroupedVersionHit(groups, slot));
  return { versions, total: groups.count, matchedVersions: () => groups.versions(), exhausted: sparse.exhausted && dense.exhausted, queryTerms };
}

/** Higher score first; ties broken by identity so equal scores always page the same way. */
export function compareVersionHits(a: VersionHit, b: VersionHit): number {
  return compareScores(a.score, a.tieBreak, b.score, b.tieBreak) || compareIdentities(a.version.identity, b.version.identity);
}

/** Higher score first, then higher tie-break; 0 when both tie. */
function compareScores(scoreA: number, tieBreakA: number, scoreB: number, tieBreakB: number): number {
  if (scoreB !== scoreA) return scoreB - scoreA;
  return tieBreakB - tieBreakA;
}

function compareIdentities(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
