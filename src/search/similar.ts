// POST /similar: the Document Versions most like a given one, by both parts of the content lane. The source's
// keyword query is its most distinctive terms (its term frequencies weighted by BM25's idf over the Client),
// its dense query the mean of its chunks' stored vectors; every version of its document is excluded from the
// candidates, and filters, include_deleted, a key's confinement and the fail-closed rules are those of search.

import type { ClientSnapshot } from '../serving/snapshot.ts';
import { chunksOf } from '../serving/snapshot.ts';
import type { ServedVersion } from '../serving/served-types.ts';
import type { SearchAnswer, SearchHit } from '../domain/responses.ts';
import { ServiceError } from '../domain/service-error.ts';
import { versionIdentity } from '../domain/identity.ts';
import { analyzeFields } from '../text/analyzer.ts';
import { idOf } from '../text/string-table.ts';
import { bm25Idf, BM25_K1 } from './bm25.ts';
import { readChunkTexts } from './chunk-texts.ts';
import type { StoredChunkText } from '../storage/port.ts';
import { compileFilters } from './filters.ts';
import { confinedFilters, withinConfinement } from './key-filter.ts';
import type { Confinement } from './key-filter.ts';
import { everyVersionProven, requireEvidence } from './evidence-gate.ts';
import { searchContent } from './content-lane.ts';
import { contentEvidence, eligibility, eligibilityBeforeFilters, evidenceChunks, rowMetadata } from './search-service.ts';
import type { SearchDependencies } from './search-service.ts';

/** Terms of the source that make its keyword query: enough to say what it is about, few enough to stay cheap. */
export const SIMILAR_QUERY_TERMS = 25;
/** Chunks of the source read to find its terms and its mean vector: a long document is known by its opening. */
export const SIMILAR_SOURCE_CHUNKS = 64;
/** POST /similar `limit`. */
export const SIMILAR_LIMIT = { min: 1, max: 100, default: 10 } as const;

export interface SimilarRequest {
  documentId: string;
  /** The version to start from; absent: the document's latest visible one. */
  versionId: string | null | undefined;
  limit: number;
  filters: unknown;
  includeDeleted: boolean;
  confinement?: Confinement | null;
}

/** Latest first: newest created_at, then the newest generation (as GET /document/{id}/text picks one). */
function newestFirst(a: ServedVersion, b: ServedVersion): number {
  const left = Date.parse(a.createdAt);
  const right = Date.parse(b.createdAt);
  if (left !== right) return (Number.isFinite(right) ? right : -Infinity) - (Number.isFinite(left) ? left : -Infinity);
  return b.generation - a.generation;
}

/** The version the request starts from; another Client's, an invisible or an unknown one is the same 404. */
function sourceVersion(snapshot: ClientSnapshot, request: SimilarRequest): ServedVersion {
  const visible = (version: ServedVersion | undefined): version is ServedVersion =>
    version !== undefined && version.documentId === request.documentId && (request.includeDeleted || !version.deletion.deleted) && withinConfinement(version, request.confinement ?? null);
  const version =
    request.versionId !== undefined && request.versionId !== null
      ? snapshot.versions.get(versionIdentity({ documentId: request.documentId, versionId: request.versionId }))
      : [...snapshot.versions.values()].filter(visible).sort(newestFirst)[0];
  if (!visible(version)) throw new ServiceError('document_not_found', 'Document not found');
  return version;
}

/** The source's most distinctive index terms: tf saturated as BM25 does, times idf over the Client's segments. */
export function distinctiveTerms(snapshot: ClientSnapshot, texts: readonly string[], count = SIMILAR_QUERY_TERMS): string[] {
  const frequencies = new Map<string, number>();
  for (const text of texts) for (const term of analyzeFields(text).text) frequencies.set(term, (frequencies.get(term) ?? 0) + 1);
  const docCount = snapshot.segments.reduce((sum, segment) => sum + segment.bm25.docCount, 0);
  const weighted = [...frequencies].map(([term, tf]) => {
    let df = 0;
    for (const { bm25 } of snapshot.segments) {
      const t = idOf(bm25.terms, term);
      if (t >= 0) df += bm25.postingStarts[t + 1] - bm25.postingStarts[t];
    }
    return { term, weight: bm25Idf(docCount, df) * ((tf * (BM25_K1 + 1)) / (tf + BM25_K1)) };
  });
  weighted.sort((a, b) => b.weight - a.weight || (a.term < b.term ? -1 : 1));
  return weighted.slice(0, count).map((entry) => entry.term);
}

/** The mean of the vectors given, unit length; null when there are none. */
export function meanVector(vectors: readonly (Float32Array | null)[]): Float32Array | null {
  const present = vectors.filter((vector): vector is Float32Array => vector !== null);
  if (present.length === 0) return null;
  const mean = new Float32Array(present[0].length);
  for (const vector of present) for (let i = 0; i < mean.length; i++) mean[i] += vector[i];
  const norm = Math.hypot(...mean);
  if (norm > 0) for (let i = 0; i < mean.length; i++) mean[i] /= norm;
  return mean;
}

/** Eligibility without any chunk of the document's versions (a copy: the snapshot's own arrays are shared). */
function withoutDocument(snapshot: ClientSnapshot, eligible: Uint8Array, documentId: string): Uint8Array {
  const copy = new Uint8Array(eligible);
  for (const version of snapshot.versions.values()) {
    if (version.documentId === documentId) copy.fill(0, version.firstOrdinal, version.firstOrdinal + version.chunkCount);
  }
  return copy;
}

export class SimilarService {
  private readonly deps: SearchDependencies;

  constructor(deps: SearchDependencies) {
    this.deps = deps;
  }

  async similar(clientId: string, request: SimilarRequest): Promise<SearchAnswer> {
    const started = performance.now();
    const guard = await this.deps.readGuard.guard(clientId);
    const snapshot = guard.snapshot;
    const confinement = request.confinement ?? null;
    const source = sourceVersion(snapshot, request);
    // Its content is what the query is made of: it must be what was published.
    requireEvidence([source]);
    const sourceChunks = chunksOf(snapshot, source).slice(0, SIMILAR_SOURCE_CHUNKS);
    const knownTexts = new Map<number, StoredChunkText>();
    await readChunkTexts(this.deps.readTexts, clientId, sourceChunks, knownTexts);
    const terms = distinctiveTerms(snapshot, sourceChunks.map((chunk) => knownTexts.get(chunk.ordinal)!.text));
    const vector = meanVector(await this.deps.readVectors(clientId, sourceChunks.map((chunk) => ({ generation: chunk.version.generation, chunkIndex: chunk.chunkIndex }))));

    const callerFilters = compileFilters(request.filters);
    const filters = confinedFilters(callerFilters, confinement);
    const eligibleAll = eligibility(snapshot, filters, request.includeDeleted);
    const unfilteredAll = eligibilityBeforeFilters(snapshot, callerFilters, confinement, request.includeDeleted, eligibleAll);
    const eligible = withoutDocument(snapshot, eligibleAll, source.documentId);
    const unfiltered = unfilteredAll === eligibleAll ? eligible : withoutDocument(snapshot, unfilteredAll, source.documentId);
    const alpha = vector === null ? 0 : this.deps.defaultAlpha;
    const content = await searchContent(
      snapshot, '', alpha, eligible, this.deps.embedder, this.deps.candidateCap, request.limit, request.limit, null,
      (keys) => this.deps.readVectors(clientId, keys), unfiltered, [], { terms, vector },
    );
    if (!everyVersionProven(snapshot)) requireEvidence(content.matchedVersions());
    const page = content.versions.slice(0, request.limit);
    await readChunkTexts(this.deps.readTexts, clientId, page.flatMap((hit) => evidenceChunks(snapshot, hit)), knownTexts);
    const results = page.map((hit, index): SearchHit => ({
      rank: index + 1,
      document_version: { document_id: hit.version.documentId, version_id: hit.version.versionId },
      canonical_metadata: rowMetadata(snapshot, { version: hit.version, content: hit }),
      retrieval_contributions: [{ lane: 'content', rank: index + 1 }],
      content_evidence: contentEvidence(snapshot, hit, false, content.queryTerms, knownTexts),
      metadata_evidence: { items: [], total: 0, truncated: false },
    }));
    const empty = results.length === 0;
    return {
      results,
      meta: {
        query: '',
        total: empty ? 0 : content.total,
        total_is_lower_bound: empty ? false : !content.exhausted,
        offset: 0,
        limit: request.limit,
        has_more: content.total > request.limit,
        query_time_ms: Math.round(performance.now() - started),
        retrieval: { alpha, reranked: false, reranked_count: 0 },
        applied_filters: filters.applied,
        publication_view: guard.view,
      },
    };
  }
}
