// The content lane: normalized query -> sparse (BM25) and dense (cosine) chunk hits -> weighted fusion by
// alpha -> chunk hits grouped into Document Versions. alpha 0 never runs dense, alpha 1 never runs sparse.

import type { ClientSnapshot } from '../serving/snapshot.ts';
import { generationNumbering, segmentIndexOf } from '../serving/snapshot.ts';
import { generationOfOrdinalIn } from '../serving/segment.ts';
import type { ServedVersion } from '../serving/served-types.ts';
import type { Embedder } from '../models/embedder.ts';
import { searchBm25 } from './bm25.ts';
import { graphWalks, searchDense } from './dense-lane.ts';
import type { GraphProposals, ThreadedGraphWalks } from '../serving/graphs/threaded-graph-walks.ts';
import type { LaneResult } from './dense-lane.ts';
import { readOverNetwork } from './network-read.ts';
import { DEFAULT_RANKED_ROWS, DENSE_RESCORE_CHUNKS, rescoreDenseHead } from './dense-rescore.ts';
import type { ChunkVectorReader } from './dense-rescore.ts';
import { DENSE_EVIDENCE_FLOOR, fuseLanes } from './fusion.ts';
import { ServiceError } from '../domain/service-error.ts';
import { analyzeQueryTerms } from '../text/analyzer.ts';
import type { SynonymTerm } from './synonyms.ts';

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
 * The arrays a search fuses and groups its candidates in, kept for the next search instead of allocated anew:
 * they are written and read only in the synchronous part of searchContent, after its last await, and what outlives
 * it (the ranked head's chunks, the matched versions) is copied out. Allocated per search, they were about 110 KB
 * of ArrayBuffers each time; a search in flight across an await (16 hybrid searches at once in one process) keeps
 * its buffers past a young-generation collection, so they waited for a full one while V8 let up to 64 MiB of such
 * buffers build up, and the allocator's heap kept the high-water mark: in-process at 100,000 chunks, 16 at once,
 * the main malloc heap grew from 8 to 77 MiB (RSS 336 to 442 MiB). They hold room for the most candidates a search
 * has had: both lanes' hits, at most twice SEARCH_CANDIDATE_CAP (about 140 KB at the default 1,000).
 */
class GroupingScratch {
  capacity = 0;
  // The fused candidates (fusion.ts FusedCandidates).
  fusedOrdinals = new Int32Array(0);
  fusedScores = new Float64Array(0);
  fusedTieBreaks = new Float64Array(0);
  // The candidates grouped: candidate i's ordinal, score and tie-break, and the next candidate of its version.
  ordinals = new Int32Array(0);
  scores = new Float64Array(0);
  tieBreaks = new Float64Array(0);
  next = new Int32Array(0);
  // Per slot (a version): its first candidate, best score and tie-break, and where the snapshot holds it.
  heads = new Int32Array(0);
  bestScores = new Float64Array(0);
  bestTieBreaks = new Float64Array(0);
  segmentOf = new Int32Array(0);
  generationOf = new Int32Array(0);

  /** Room for `size` candidates (and as many slots), grown by doubling. */
  ensure(size: number): this {
    if (size <= this.capacity) return this;
    const capacity = Math.max(size, 2 * this.capacity);
    this.capacity = capacity;
    this.fusedOrdinals = new Int32Array(capacity);
    this.fusedScores = new Float64Array(capacity);
    this.fusedTieBreaks = new Float64Array(capacity);
    this.ordinals = new Int32Array(capacity);
    this.scores = new Float64Array(capacity);
    this.tieBreaks = new Float64Array(capacity);
    this.next = new Int32Array(capacity);
    this.heads = new Int32Array(capacity);
    this.bestScores = new Float64Array(capacity);
    this.bestTieBreaks = new Float64Array(capacity);
    this.segmentOf = new Int32Array(capacity);
    this.generationOf = new Int32Array(capacity);
    return this;
  }
}

/** Searches run one at a time on a thread, and only searchContent's synchronous part uses it. */
const scratch = new GroupingScratch();

/**
 * The fused candidates grouped by version without an object per chunk or per version, in the scratch arrays: each
 * version (a slot) has its best score, tie-break and place in the snapshot, and its chunks are a linked list over
 * the candidates. Valid until searchContent returns; the ranked head is copied out (RankedChunks).
 */
class CandidateGroups {
  readonly arrays: GroupingScratch;
  /** Slots in use: versions matched. */
  count = 0;
  private readonly snapshot: ClientSnapshot;

  constructor(snapshot: ClientSnapshot, arrays: GroupingScratch) {
    this.snapshot = snapshot;
    this.arrays = arrays;
  }

  versionOf(slot: number): ServedVersion {
    return this.snapshot.segments[this.arrays.segmentOf[slot]].versions[this.arrays.generationOf[slot]];
  }

  /** The rank order of compareVersionHits over slots; a version is looked up only when scores and tie-breaks tie. */
  readonly compareSlots = (a: number, b: number): number =>
    compareScores(this.arrays.bestScores[a], this.arrays.bestTieBreaks[a], this.arrays.bestScores[b], this.arrays.bestTieBreaks[b]) ||
    compareIdentities(this.versionOf(a).identity, this.versionOf(b).identity);
}

/** Slot of each generation number in the search running now (-1: none); searches run one at a time on a thread. */
let slotScratchArray = new Int32Array(0);

function slotScratch(size: number): Int32Array {
  if (slotScratchArray.length < size) slotScratchArray = new Int32Array(Math.max(size, 2 * slotScratchArray.length)).fill(-1);
  return slotScratchArray;
}

/**
 * The chunks of the ranked versions, copied out of the scratch in one array of (ordinal, score, tie-break) triples:
 * version i's are triples starts[i] to starts[i + 1], in no particular order until listed.
 */
class RankedChunks {
  readonly triples: Float64Array;
  readonly starts: number[];

  constructor(groups: CandidateGroups, slots: readonly number[]) {
    const { heads, next, ordinals, scores, tieBreaks } = groups.arrays;
    this.starts = [0];
    let total = 0;
    for (const slot of slots) {
      for (let at = heads[slot]; at >= 0; at = next[at]) total++;
      this.starts.push(total);
    }
    this.triples = new Float64Array(3 * total);
    let i = 0;
    for (const slot of slots) {
      for (let at = heads[slot]; at >= 0; at = next[at]) {
        this.triples[i++] = ordinals[at];
        this.triples[i++] = scores[at];
        this.triples[i++] = tieBreaks[at];
      }
    }
  }

  chunksOf(index: number): ChunkScore[] {
    const chunks: ChunkScore[] = [];
    for (let t = this.starts[index]; t < this.starts[index + 1]; t++) chunks.push({ ordinal: this.triples[3 * t], score: this.triples[3 * t + 1], tieBreak: this.triples[3 * t + 2] });
    // Equal scores keep the earlier chunk (document order) first.
    if (chunks.length > 1) chunks.sort((a, b) => b.score - a.score || b.tieBreak - a.tieBreak || a.ordinal - b.ordinal);
    return chunks;
  }
}

class GroupedVersionHit implements VersionHit {
  readonly version: ServedVersion;
  readonly score: number;
  readonly tieBreak: number;
  private readonly ranked: RankedChunks;
  private readonly index: number;
  private listed: ChunkScore[] | null = null;

  constructor(groups: CandidateGroups, slot: number, ranked: RankedChunks, index: number) {
    this.version = groups.versionOf(slot);
    this.score = groups.arrays.bestScores[slot];
    this.tieBreak = groups.arrays.bestTieBreaks[slot];
    this.ranked = ranked;
    this.index = index;
  }

  get chunks(): readonly ChunkScore[] {
    return (this.listed ??= this.ranked.chunksOf(this.index));
  }
}

/** The version a generation number (generationNumbering) names. */
function versionOfNumber(snapshot: ClientSnapshot, numbering: Int32Array, number: number): ServedVersion {
  // The last segment whose first number is at most `number`.
  let low = 0;
  let high = snapshot.segments.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (numbering[middle] <= number) low = middle;
    else high = middle - 1;
  }
  return snapshot.segments[low].versions[number - numbering[low]];
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
 * `readVectors`: the store's float32 vectors, which the dense lane's best rows are rescored with (dense-rescore.ts);
 * `unfiltered`: the chunks the request may see before its filters, when they narrowed `eligible` to fewer. Scores
 * must not depend on which candidates a filter removed (SPEC.md search rule 7): the sparse scores are divided by
 * the best of these, and the dense rows rescored are those an unfiltered search rescores;
 * `synonymTerms`: the Client's synonyms of the query's words (synonyms.ts), which the sparse lane also matches;
 * `preset`: the lanes' queries given outright instead of from `normalizedQuery` (POST /similar: a document's most
 * distinctive terms and the mean of its chunks' vectors, similar.ts).
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
  unfiltered: Uint8Array | null = null,
  synonymTerms: readonly SynonymTerm[] = [],
  preset: { terms: string[]; vector: Float32Array | null } | null = null,
): Promise<ContentLaneResult> {
  const widened = preset ? { terms: preset.terms, idfCaps: undefined } : withSynonymTerms(analyzeQueryTerms(normalizedQuery), synonymTerms);
  const queryTerms = widened.terms;
  const runSparse = alpha < 1 && queryTerms.length > 0;
  let queryVector: Float32Array | null = null;
  let proposals: Promise<GraphProposals> | null = null;
  if (preset) {
    queryVector = alpha > 0 ? preset.vector : null;
    if (queryVector && runSparse && graphThread) proposals = graphThread.start(queryVector, graphWalks(snapshot.segments, queryVector, eligible, depth));
  } else if (alpha > 0) {
    // The query embedding may cross the network (a remote embedder): rule 12 applies to it, not to the scan.
    [queryVector] = await readOverNetwork(() => embedder.embed([normalizedQuery], { singleAttempt: true }));
    // With a sparse lane to run meanwhile, the graphs are walked on the graph thread.
    if (runSparse && graphThread) proposals = graphThread.start(queryVector, graphWalks(snapshot.segments, queryVector, eligible, depth));
  }
  const filtered = unfiltered !== null && unfiltered !== eligible;
  let sparseBest: number | undefined;
  const sparse: LaneResult = runSparse
    ? (() => {
        const { hits, matched, best } = searchBm25(snapshot.segments.map((segment) => segment.bm25), queryTerms, {
          limit: candidateCap,
          liveById: eligible,
          ordered: false,
          // Whether more chunks match than the cap is all the lane reports of its matches (exhausted).
          countUpTo: candidateCap,
          // The same scoring pass reports the best score before the filters, fusion's normalizer.
          bestAmongById: filtered ? unfiltered : undefined,
          idfCaps: widened.idfCaps,
        });
        sparseBest = best;
        return { hits: hits.map((hit) => ({ ordinal: hit.id, score: hit.score })), matched, exhausted: matched <= candidateCap };
      })()
    : emptyLane();
  const denseOptions = { cap: candidateCap, depth, ordered: false };
  const dense = queryVector ? searchDense(snapshot.segments, queryVector, eligible, { ...denseOptions, proposals: proposals ? await proposals : undefined }) : emptyLane();
  if (queryVector && readVectors) {
    // A filtered request rescores what the unfiltered dense search would: it is run for that alone (its
    // cosines by code equal the filtered search's for every row both find).
    const before = filtered && dense.hits.length > 0 ? searchDense(snapshot.segments, queryVector, unfiltered, denseOptions).hits : undefined;
    await rescoreDenseHead(snapshot, dense.hits, queryVector, Math.max(DEFAULT_RANKED_ROWS, depth), Math.max(DENSE_RESCORE_CHUNKS, depth), readVectors, before);
  }

  const arrays = scratch.ensure(sparse.hits.length + dense.hits.length);
  const fused = fuseLanes(sparse, dense, alpha, DENSE_EVIDENCE_FLOOR, { ordinals: arrays.fusedOrdinals, scores: arrays.fusedScores, tieBreaks: arrays.fusedTieBreaks }, sparseBest);

  // Grouped by generation number (generationNumbering), an integer per version: a version object is read
  // once per ranked version, not once per chunk.
  const numbering = generationNumbering(snapshot);
  const slotOf = slotScratch(numbering[numbering.length - 1]);
  const groups = new CandidateGroups(snapshot, arrays);
  const { ordinals, scores, tieBreaks, next, heads, bestScores, bestTieBreaks, segmentOf, generationOf } = arrays;
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
        segmentOf[slot] = s;
        generationOf[slot] = generation;
        heads[slot] = -1;
        bestScores[slot] = score;
        bestTieBreaks[slot] = tieBreak;
      } else if (score > bestScores[slot] || (score === bestScores[slot] && tieBreak > bestTieBreaks[slot])) {
        bestScores[slot] = score;
        bestTieBreaks[slot] = tieBreak;
      }
      ordinals[at] = ordinal;
      scores[at] = score;
      tieBreaks[at] = tieBreak;
      next[at] = heads[slot];
      heads[slot] = at;
    }
  } finally {
    for (const number of numbers) slotOf[number] = -1;
  }
  const slots: number[] = [];
  for (let slot = 0; slot < groups.count; slot++) slots.push(slot);
  const head = rankHead(slots, ordered, groups.compareSlots);
  const ranked = new RankedChunks(groups, head);
  const versions = head.map((slot, index) => new GroupedVersionHit(groups, slot, ranked, index));
  // Slot i's version is generation number numbers[i]: the matched versions outlive the scratch by their numbers.
  const matchedVersions = function* (): Iterable<ServedVersion> {
    for (const number of numbers) yield versionOfNumber(snapshot, numbering, number);
  };
  return { versions, total: groups.count, matchedVersions, exhausted: sparse.exhausted && dense.exhausted, queryTerms };
}

/**
 * The query's terms and, once each, those of its synonyms, which the keyword lane matches too; and for each added
 * term, the query's terms it stands for. A synonym rarer than the word it stands for would otherwise score above
 * that word (its own, higher idf): the lane weighs it no more than them (Bm25SearchOptions.idfCaps).
 */
function withSynonymTerms(queryTerms: string[], synonymTerms: readonly SynonymTerm[]): { terms: string[]; idfCaps: Map<string, string[]> } {
  const idfCaps = new Map<string, string[]>();
  if (synonymTerms.length === 0) return { terms: queryTerms, idfCaps };
  const own = new Set(queryTerms);
  const terms = new Set(queryTerms);
  for (const synonym of synonymTerms) {
    const standsFor = synonym.triggers.flatMap((words) => words.flatMap((word) => analyzeQueryTerms(word)));
    for (const term of analyzeQueryTerms(synonym.term)) {
      terms.add(term);
      if (own.has(term)) continue;
      idfCaps.set(term, [...(idfCaps.get(term) ?? []), ...standsFor]);
    }
  }
  return { terms: [...terms], idfCaps };
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
