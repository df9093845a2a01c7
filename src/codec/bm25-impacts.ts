// Per-block impact bounds of a BM25 segment's postings: for every run of IMPACT_BLOCK postings of a term, the largest
// BM25F term frequency (both fields length-normalized and weighted into one, before saturation) any of them has,
// under the segment's own average field lengths. A keyword search turns them into score bounds under its snapshot's
// statistics (impactScale), which is what lets it skip blocks and terms that cannot reach its best k.
// Segments are immutable, so a term's bounds are computed once per segment, on the first search that reads the term
// (one pass over its postings), and kept beside the segment for as long as it is held.

import type { Bm25Segment } from './bm25-segment.ts';

/** Postings per bounded block: a block's bound is read in place of its postings when it cannot reach the best k. */
export const IMPACT_BLOCK = 128;
/** log2(IMPACT_BLOCK): a posting's block within its term. */
export const IMPACT_BLOCK_SHIFT = 7;

/** The field normalization a segment's bounds are computed for (a search with other settings gets bounds of its own). */
export interface ImpactSettings {
  /** Body length normalization, in [0, 1]. */
  readonly b: number;
  /** Title length normalization, in [0, 1]. */
  readonly titleB: number;
  /** A title occurrence counts this many body occurrences (at least 0). */
  readonly titleWeight: number;
}

export interface Bm25Impacts {
  readonly settings: ImpactSettings;
  /** The segment's own average field lengths, which the bounds are normalized by. */
  readonly avgTextLength: number;
  readonly avgTitleLength: number;
  /** Term t's blocks are blockStarts[t] to blockStarts[t + 1]: its postings from postingStarts[t], IMPACT_BLOCK at a time. */
  readonly blockStarts: Uint32Array;
  /** Per block, the largest normalized term frequency of its postings (rounded up); valid once its term is computed. */
  readonly blockBounds: Float32Array;
  /** Per term, the largest of its block bounds; -1 until the term's bounds are computed (termImpacts). */
  readonly termBounds: Float32Array;
}

/** A bound stored in 32 bits is rounded up so that it still bounds what it was computed from. */
const ROUND_UP = 1 + 2 ** -22;

function settingsKey(settings: ImpactSettings): string {
  return `${settings.b}/${settings.titleB}/${settings.titleWeight}`;
}

const cache = new WeakMap<Bm25Segment, Map<string, Bm25Impacts>>();

/** The segment's impacts for these settings, with no term computed yet the first time (O(terms)). */
export function impactsOf(segment: Bm25Segment, settings: ImpactSettings): Bm25Impacts {
  let bySettings = cache.get(segment);
  if (bySettings === undefined) cache.set(segment, (bySettings = new Map()));
  const key = settingsKey(settings);
  const known = bySettings.get(key);
  if (known !== undefined) return known;
  const terms = segment.postingStarts.length - 1;
  const blockStarts = new Uint32Array(terms + 1);
  for (let t = 0; t < terms; t++) {
    const postings = segment.postingStarts[t + 1] - segment.postingStarts[t];
    blockStarts[t + 1] = blockStarts[t] + Math.ceil(postings / IMPACT_BLOCK);
  }
  const impacts: Bm25Impacts = {
    settings: { b: settings.b, titleB: settings.titleB, titleWeight: settings.titleWeight },
    avgTextLength: segment.docCount > 0 ? segment.totalTextLength / segment.docCount : 0,
    avgTitleLength: segment.docCount > 0 ? segment.totalTitleLength / segment.docCount : 0,
    blockStarts,
    blockBounds: new Float32Array(blockStarts[terms]),
    termBounds: new Float32Array(terms).fill(-1),
  };
  bySettings.set(key, impacts);
  return impacts;
}

/** 1 / (1 - b + b * length / average), 0 for an empty field (it holds no occurrence). */
function inverseNorm(length: number, b: number, average: number): number {
  return length === 0 || average === 0 ? 0 : 1 / (1 - b + (b * length) / average);
}

/** Computes term t's block bounds if no search has yet; returns the term's bound (the largest of its blocks). */
export function termImpacts(impacts: Bm25Impacts, segment: Bm25Segment, t: number): number {
  const known = impacts.termBounds[t];
  if (known >= 0) return known;
  const { b, titleB, titleWeight } = impacts.settings;
  const { avgTextLength, avgTitleLength, blockBounds } = impacts;
  const docs = segment.postingDocs;
  const textTfs = segment.postingTextTf;
  const titleTfs = segment.postingTitleTf;
  const from = segment.postingStarts[t];
  const end = segment.postingStarts[t + 1];
  let block = impacts.blockStarts[t];
  let termBound = 0;
  for (let start = from; start < end; start += IMPACT_BLOCK, block++) {
    const stop = Math.min(end, start + IMPACT_BLOCK);
    let most = 0;
    for (let p = start; p < stop; p++) {
      const d = docs[p];
      const tf = textTfs[p] * inverseNorm(segment.textLengths[d], b, avgTextLength) + titleWeight * titleTfs[p] * inverseNorm(segment.titleLengths[d], titleB, avgTitleLength);
      if (tf > most) most = tf;
    }
    const bound = Math.fround(most * ROUND_UP);
    blockBounds[block] = bound;
    if (bound > termBound) termBound = bound;
  }
  impacts.termBounds[t] = termBound;
  return termBound;
}

/**
 * How much larger a normalized term frequency can be under a search's average lengths than under the segment's own.
 * For length L, (1 - b + b L / segmentAverage) / (1 - b + b L / searchAverage) grows with L towards
 * searchAverage / segmentAverage when the search's average is the larger, and stays at most 1 otherwise; the
 * segment's bounds times this bound the search's frequencies. Infinity when the search counts no length at all
 * while the segment has some (its statistics then give every length the same factor: no bound can be scaled).
 */
export function impactScale(impacts: Bm25Impacts, searchAvgTextLength: number, searchAvgTitleLength: number): number {
  const text = fieldScale(impacts.avgTextLength, searchAvgTextLength);
  const title = fieldScale(impacts.avgTitleLength, searchAvgTitleLength);
  return Math.max(text, title);
}

function fieldScale(segmentAverage: number, searchAverage: number): number {
  // A segment whose field is empty everywhere has no frequency in it to scale.
  if (segmentAverage === 0) return 1;
  if (searchAverage === 0) return Number.POSITIVE_INFINITY;
  return Math.max(1, searchAverage / segmentAverage);
}
