// The content lane: normalized query -> sparse (BM25) and dense (cosine) chunk hits -> weighted fusion by
// alpha -> chunk hits grouped into Document Versions. alpha 0 never runs dense, alpha 1 never runs sparse.

import type { ClientSnapshot } from '../serving/snapshot.ts';
import { versionOfOrdinal } from '../serving/snapshot.ts';
import type { ServedVersion } from '../serving/served-types.ts';
import type { Embedder } from '../models/embedder.ts';
import { searchBm25 } from './bm25.ts';
import { searchDense } from './dense-lane.ts';
import type { LaneResult } from './dense-lane.ts';
import { readOverNetwork } from './network-read.ts';
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
  version: ServedVersion;
  score: number;
  tieBreak: number;
  /** Matched chunks of this version, best first. */
  chunks: ChunkScore[];
}

export interface ContentLaneResult {
  versions: VersionHit[];
  exhausted: boolean;
  queryTerms: string[];
}

function emptyLane(): LaneResult {
  return { hits: [], matched: 0, exhausted: true };
}

export async function searchContent(
  snapshot: ClientSnapshot,
  normalizedQuery: string,
  alpha: number,
  eligible: Uint8Array,
  embedder: Embedder,
  candidateCap: number = DEFAULT_CANDIDATE_CAP,
  depth = 0,
): Promise<ContentLaneResult> {
  const queryTerms = analyzeQueryTerms(normalizedQuery);
  const sparse: LaneResult =
    alpha < 1 && queryTerms.length > 0
      ? (() => {
          const { hits, matched } = searchBm25(snapshot.segments.map((segment) => segment.bm25), queryTerms, {
            limit: candidateCap,
            liveById: eligible,
          });
          return { hits: hits.map((hit) => ({ ordinal: hit.id, score: hit.score })), matched, exhausted: matched <= candidateCap };
        })()
      : emptyLane();
  let dense = emptyLane();
  if (alpha > 0) {
    // The query embedding may cross the network (a remote embedder): rule 12 applies to it, not to the scan.
    const [queryVector] = await readOverNetwork(() => embedder.embed([normalizedQuery], { singleAttempt: true }));
    dense = searchDense(snapshot.segments, queryVector, eligible, { cap: candidateCap, depth });
  }

  const fused = fuseLanes(sparse, dense, alpha);

  // Keyed by the served version itself: every chunk of a version resolves to the one object its segment holds.
  const byVersion = new Map<ServedVersion, VersionHit>();
  for (const [ordinal, { score, tieBreak }] of fused) {
    const version = versionOfOrdinal(snapshot, ordinal);
    if (!version || snapshot.live[ordinal] !== 1) {
      // SPEC.md rule 11: a lane returned a point the authoritative snapshot cannot back with evidence.
      const lane = sparse.hits.some((hit) => hit.ordinal === ordinal) ? 'content.sparse' : 'content.dense';
      throw new ServiceError('stored_evidence_inconsistent', 'Stored evidence is inconsistent with retrieval contributions', {
        details: { code: 'stored_evidence_inconsistent', lane, point: ordinal, snapshot_sequence: snapshot.sequence },
      });
    }
    let entry = byVersion.get(version);
    if (!entry) {
      entry = { version, score: Number.NEGATIVE_INFINITY, tieBreak: Number.NEGATIVE_INFINITY, chunks: [] };
      byVersion.set(version, entry);
    }
    entry.chunks.push({ ordinal, score, tieBreak });
    if (score > entry.score || (score === entry.score && tieBreak > entry.tieBreak)) {
      entry.score = score;
      entry.tieBreak = tieBreak;
    }
  }
  const versions = [...byVersion.values()];
  // Within a version, ordinals follow document order, so equal scores keep the earlier chunk first.
  for (const entry of versions) if (entry.chunks.length > 1) entry.chunks.sort((a, b) => b.score - a.score || b.tieBreak - a.tieBreak || a.ordinal - b.ordinal);
  versions.sort(compareVersionHits);
  return { versions, exhausted: sparse.exhausted && dense.exhausted, queryTerms };
}

/** Higher score first; ties broken by identity so equal scores always page the same way. */
export function compareVersionHits(a: VersionHit, b: VersionHit): number {
  if (b.score !== a.score) return b.score - a.score;
  if (b.tieBreak !== a.tieBreak) return b.tieBreak - a.tieBreak;
  return a.version.identity < b.version.identity ? -1 : a.version.identity > b.version.identity ? 1 : 0;
}
