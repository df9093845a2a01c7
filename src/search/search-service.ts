// POST /search: guard publication, normalize the query, run the lanes of the scope, rerank a prefix,
// page and count Document Versions. Every row comes from the one snapshot taken at request start.

import type { ReadGuard } from '../serving/read-guard.ts';
import type { ClientSnapshot } from '../serving/snapshot.ts';
import { chunkByOrdinal, chunksOf, snapshotVocabulary } from '../serving/snapshot.ts';
import { readChunkTexts } from './chunk-texts.ts';
import type { ChunkTextReader } from './chunk-texts.ts';
import type { StoredChunkText } from '../storage/port.ts';
import type { ServedChunk, ServedVersion } from '../serving/served-types.ts';
import type { Embedder } from '../models/embedder.ts';
import type { Reranker } from '../models/reranker.ts';
import type { ReadinessState } from '../domain/job-states.ts';
import { ServiceError } from '../domain/service-error.ts';
import type { ContentEvidenceItem, DocumentVersionRef, Evidence, MetadataEvidenceItem, RetrievalContribution, SearchAnswer, SearchHit, SearchMeta } from '../domain/responses.ts';
import type { JsonObject } from '../domain/canonical-metadata.ts';
import { compileFilters } from './filters.ts';
import { readOverNetwork } from './network-read.ts';
import { everyVersionProven, requireEvidence } from './evidence-gate.ts';
import type { CompiledFilters } from './filters.ts';
import { confinedFilters, withinConfinement } from './key-filter.ts';
import type { Confinement } from './key-filter.ts';
import { searchContent } from './content-lane.ts';
import type { ThreadedGraphWalks } from '../serving/graphs/threaded-graph-walks.ts';
import type { VersionHit } from './content-lane.ts';
import { normalizeContentQuery } from '../text/query-normalizer.ts';
import type { SynonymExpander } from './synonyms.ts';
import { highlightSpans } from './highlight.ts';
import { MetadataLane, metadataHighlights } from './metadata-lane.ts';
import type { MetadataVersionHit } from './metadata-lane.ts';
import { RERANK_PREFIX_CAP } from '../spec-limits.ts';
import { FACET_LIMIT, countFacets } from './facets.ts';
import type { FacetSpec } from './facets.ts';
import { sortByKeys } from './sort.ts';
import type { SortKey } from './sort.ts';

/** Content evidence items shown per row; `total` still counts every matched chunk. */
export const MAX_EVIDENCE_ITEMS = 3;

export type SearchScope = 'content' | 'metadata' | 'both';

export interface SearchRequest {
  query: string;
  scope: SearchScope;
  alpha: number | undefined;
  limit: number;
  offset: number;
  filters: unknown;
  rerank: boolean;
  topKRerank: number;
  includeDeleted: boolean;
  highlight: boolean;
  /** The versions the caller's key confines its reads to (key-filter.ts); absent or null: none. */
  confinement?: Confinement | null;
  /** Facets to count over the matched versions (facets.ts); none: the answer has no meta.facets. */
  facets?: FacetSpec[];
  facetLimit?: number;
  /** Sort keys (sort.ts); none: relevance order. */
  sort?: SortKey[];
}

export interface SearchDependencies {
  readGuard: ReadGuard;
  /** The Client's Metadata Discovery readiness (reads/discovery-readiness.ts). */
  readiness: (clientId: string) => Promise<{ state: ReadinessState }>;
  embedder: Embedder;
  reranker: Reranker;
  defaultAlpha: number;
  /** Bounded scan cap per lane (SEARCH_CANDIDATE_CAP). */
  candidateCap: number;
  /** Stored chunk text for the rows of an answer and the reranked prefix (the snapshot holds none). */
  readTexts: ChunkTextReader;
  /** Stored float32 vectors of chunks, which the dense lane's best rows are rescored with (dense-rescore.ts). */
  readVectors: (clientId: string, keys: { generation: number; chunkIndex: number }[]) => Promise<(Float32Array | null)[]>;
  /**
   * Where a search's graph walks run beside its sparse lane while it is the only search of the process in
   * progress and `spareCore` says a core is idle: with the cores busy anyway, the walk stays on the event loop.
   */
  graphThread?: ThreadedGraphWalks | null;
  /** Whether the machine has a core to spare now (runtime/spare-cores.ts); without it the graph thread is not used. */
  spareCore?: () => boolean;
  /** The Client's synonym set for a search starting now (synonym-settings.ts); absent: none. */
  synonyms?: (clientId: string) => Promise<SynonymExpander>;
  /** Told how long each answered search took by scope, whole (lane "all") and per lane it ran (for /metrics). */
  onMeasured?: (scope: string, lane: 'all' | 'content' | 'metadata', seconds: number) => void;
}

/** The promise, and how long it took to settle once it resolves (seconds). */
async function timed<T>(work: () => Promise<T>): Promise<{ value: T; seconds: number }> {
  const started = performance.now();
  const value = await work();
  return { value, seconds: (performance.now() - started) / 1000 };
}

/**
 * The live chunks of each snapshot that are not soft-deleted, made once per snapshot (snapshots are immutable):
 * every search without filters or include_deleted, and every filtered search's scores (eligibilityBeforeFilters),
 * read it, and walking every version for it on each request cost a pass over the whole Client.
 */
const visibleLive = new WeakMap<ClientSnapshot, Uint8Array>();

/** Chunks a request may see: live in the snapshot, visible under include_deleted, passing the filters. */
export function eligibility(snapshot: ClientSnapshot, filters: CompiledFilters, includeDeleted: boolean): Uint8Array {
  const live = snapshot.live;
  const hidden = !includeDeleted && snapshot.deletedVersionCount > 0;
  if (filters.isEmpty && !hidden) return live;
  if (filters.isEmpty) {
    let visible = visibleLive.get(snapshot);
    if (visible === undefined) {
      visible = new Uint8Array(live.length);
      for (const version of snapshot.versions.values()) {
        if (!version.deletion.deleted) visible.set(live.subarray(version.firstOrdinal, version.firstOrdinal + version.chunkCount), version.firstOrdinal);
      }
      visibleLive.set(snapshot, visible);
    }
    return visible;
  }
  const eligible = new Uint8Array(live.length);
  for (const version of snapshot.versions.values()) {
    if (version.deletion.deleted && !includeDeleted) continue;
    if (!filters.matchesVersion(version)) continue;
    if (!filters.hasChunkConditions) {
      for (let ordinal = version.firstOrdinal; ordinal < version.firstOrdinal + version.chunkCount; ordinal++) eligible[ordinal] = live[ordinal];
      continue;
    }
    for (const chunk of chunksOf(snapshot, version)) {
      if (live[chunk.ordinal] === 1 && filters.matchesChunk(chunk)) eligible[chunk.ordinal] = 1;
    }
  }
  return eligible;
}

/** No filters: what a request's eligibility is before its own filters narrow it. */
const NO_FILTERS = compileFilters({});

/**
 * Chunks the request may see before its filters: live and visible under include_deleted (and inside its key's
 * confinement), exactly as the same request without filters sees them. Scores are normalized over these, so that
 * a filter only removes candidates (SPEC.md search rule 7), and a confined key's scores are what they would be were
 * the versions outside its confinement not there. The same array as `eligible` when the request has no filters.
 */
export function eligibilityBeforeFilters(snapshot: ClientSnapshot, callerFilters: CompiledFilters, confinement: Confinement | null, includeDeleted: boolean, eligible: Uint8Array): Uint8Array {
  return callerFilters.isEmpty ? eligible : eligibility(snapshot, confinedFilters(NO_FILTERS, confinement), includeDeleted);
}

export function rerankPrefixSize(topKRerank: number, offset: number, limit: number): number {
  return Math.min(RERANK_PREFIX_CAP, Math.max(topKRerank, offset + limit));
}

async function rerankPrefix(snapshot: ClientSnapshot, hits: VersionHit[], query: string, prefix: number, reranker: Reranker, texts: (chunks: ServedChunk[]) => Promise<Map<number, StoredChunkText>>): Promise<{ hits: VersionHit[]; count: number }> {
  const count = Math.min(prefix, hits.length);
  if (count === 0) return { hits, count: 0 };
  const head = hits.slice(0, count);
  const best = head.map((hit) => chunkOf(snapshot, hit.chunks[0].ordinal));
  const byOrdinal = await texts(best);
  let scores: number[];
  try {
    // A remote reranker is a network read: rule 12 retries one dropped connection, fails on a second.
    scores = await readOverNetwork(() => reranker.rerank(query, best.map((chunk) => byOrdinal.get(chunk.ordinal)?.text ?? '')));
  } catch (error) {
    if (error instanceof ServiceError) throw error;
    // Any other failure of the reranker leaves the fused order in place and says so: reranked_count 0.
    return { hits, count: 0 };
  }
  const order = head.map((hit, index) => ({ hit, index, score: scores[index] ?? Number.NEGATIVE_INFINITY }));
  order.sort((a, b) => b.score - a.score || a.index - b.index);
  return { hits: [...order.map((entry) => entry.hit), ...hits.slice(count)], count };
}

function documentVersion(version: ServedVersion): DocumentVersionRef {
  return { document_id: version.documentId, version_id: version.versionId };
}

/** A matched chunk of the snapshot: every ordinal a lane returned was checked to be held by it (content-lane.ts). */
function chunkOf(snapshot: ClientSnapshot, ordinal: number): ServedChunk {
  return chunkByOrdinal(snapshot, ordinal)!;
}

export function evidenceChunks(snapshot: ClientSnapshot, hit: VersionHit): ServedChunk[] {
  return hit.chunks.slice(0, MAX_EVIDENCE_ITEMS).map(({ ordinal }) => chunkOf(snapshot, ordinal));
}

export function contentEvidence(snapshot: ClientSnapshot, hit: VersionHit, highlight: boolean, queryTerms: string[], texts: Map<number, StoredChunkText>): Evidence<ContentEvidenceItem> {
  const items = evidenceChunks(snapshot, hit).map((chunk) => {
    const { text, language, rows } = texts.get(chunk.ordinal)!;
    const item: ContentEvidenceItem = { chunk_id: chunk.chunkId, chunk_index: chunk.chunkIndex, text, page: chunk.page };
    if (rows) item.rows = rows;
    if (highlight) item.highlights = highlightSpans(text, queryTerms, language);
    return item;
  });
  return { items, total: hit.chunks.length, truncated: hit.chunks.length > items.length };
}

/** Reciprocal-rank constant for merging the content and metadata lanes of scope both. */
export const LANE_MERGE_RRF_K = 60;

interface MergedRow {
  version: ServedVersion;
  content: VersionHit | undefined;
  contentRank: number | undefined;
  metadata: MetadataVersionHit | undefined;
  metadataRank: number | undefined;
}

/** The rows of an answer: how many there are, every row's version (for the evidence check), and the page's rows. */
interface RankedRows {
  total: number;
  versions: () => Iterable<ServedVersion>;
  page: MergedRow[];
}

/** A lane's versions as merging reads them: the ranked ones (all, or the first of them), how many matched, and all. */
interface LaneVersions<T> {
  ranked: T[];
  total: number;
  all: () => Iterable<ServedVersion>;
}

/**
 * The rank each lane's hit counts with in the merge, by identity: its place among the versions the request sees
 * before its filters (SPEC.md search rule 7). Reciprocal ranks taken among the filtered versions would let a filter
 * reorder the rest: one that removes many versions ranked above a row in both lanes lifts it over a row that only
 * one lane ranks well.
 */
interface MergeRanks {
  /** Null when the content lane was reranked: it then merges by its places in this answer. */
  content: Map<string, number> | null;
  metadata: Map<string, number>;
}

/**
 * Places in `before` (1-based) of the versions of `hits`; a version `before` lacks (the unfiltered lane stopped at
 * its candidate cap first) comes after all of its versions, in the order of `hits`.
 */
function ranksBefore(before: readonly { version: ServedVersion }[], hits: readonly { version: ServedVersion }[]): Map<string, number> {
  const ranks = new Map<string, number>();
  before.forEach((hit, index) => ranks.set(hit.version.identity, index + 1));
  let beyond = before.length;
  for (const hit of hits) if (!ranks.has(hit.version.identity)) ranks.set(hit.version.identity, ++beyond);
  return ranks;
}

function mergeLanes(contentLane: LaneVersions<VersionHit> | null, metadata: MetadataVersionHit[] | null, offset: number, limit: number, mergeRanks: MergeRanks | null = null): RankedRows {
  if (!contentLane || !metadata) {
    // A single lane keeps its own order exactly; only the page's rows are built.
    const lane: LaneVersions<VersionHit | MetadataVersionHit> = contentLane ?? { ranked: metadata ?? [], total: metadata?.length ?? 0, all: () => (metadata ?? []).map((hit) => hit.version) };
    const page = lane.ranked.slice(offset, offset + limit).map((hit, index): MergedRow => {
      const rank = offset + index + 1;
      return contentLane
        ? { version: hit.version, content: hit as VersionHit, contentRank: rank, metadata: undefined, metadataRank: undefined }
        : { version: hit.version, content: undefined, contentRank: undefined, metadata: hit as MetadataVersionHit, metadataRank: rank };
    });
    return { total: lane.total, versions: lane.all, page };
  }
  // With the metadata lane, every content version was ranked (searchContent's `ordered`).
  const content = contentLane.ranked;
  const rows = new Map<string, MergedRow & { fused: number }>();
  const row = (version: ServedVersion) => {
    let entry = rows.get(version.identity);
    if (!entry) {
      entry = { version, content: undefined, contentRank: undefined, metadata: undefined, metadataRank: undefined, fused: 0 };
      rows.set(version.identity, entry);
    }
    return entry;
  };
  // The contributions shown are the places in this answer's lanes; the merge counts mergeRanks when given.
  content.forEach((hit, index) => {
    const entry = row(hit.version);
    entry.content = hit;
    entry.contentRank = index + 1;
    entry.fused += 1 / (LANE_MERGE_RRF_K + (mergeRanks?.content?.get(hit.version.identity) ?? index + 1));
  });
  metadata.forEach((hit, index) => {
    const entry = row(hit.version);
    entry.metadata = hit;
    entry.metadataRank = index + 1;
    entry.fused += 1 / (LANE_MERGE_RRF_K + (mergeRanks?.metadata.get(hit.version.identity) ?? index + 1));
  });
  // Two lanes merge by reciprocal rank.
  const merged = [...rows.values()];
  merged.sort((a, b) => b.fused - a.fused || (a.version.identity < b.version.identity ? -1 : 1));
  return { total: merged.length, versions: () => merged.map((entry) => entry.version), page: merged.slice(offset, offset + limit) };
}

function metadataEvidence(hit: MetadataVersionHit | undefined, highlight: boolean): Evidence<MetadataEvidenceItem> {
  if (!hit) return { items: [], total: 0, truncated: false };
  const items = hit.matches.slice(0, MAX_EVIDENCE_ITEMS).map((match) => {
    const item: MetadataEvidenceItem = { path: match.leaf.path, value: match.leaf.value, value_type: match.leaf.valueType, match_kind: match.kind };
    if (highlight) item.highlights = metadataHighlights(match);
    return item;
  });
  return { items, total: hit.matches.length, truncated: hit.matches.length > items.length };
}

const EMPTY_EVIDENCE: Evidence<ContentEvidenceItem> = { items: [], total: 0, truncated: false };

/** The version's canonical metadata, with `location` taken from the row's best content evidence chunk. */
export function rowMetadata(snapshot: ClientSnapshot, row: Pick<MergedRow, 'version' | 'content'>): JsonObject {
  const metadata = row.version.canonicalMetadata as unknown as JsonObject;
  const best = row.content?.chunks[0] ? chunkOf(snapshot, row.content.chunks[0].ordinal) : undefined;
  if (!best) return metadata;
  return { ...metadata, location: { page_number: best.page, page_label: best.pageLabel, chunk_index: best.chunkIndex } };
}

export class SearchService {
  private readonly deps: SearchDependencies;
  private readonly metadataLane: MetadataLane;
  /** Searches of this process in progress. */
  private running = 0;

  constructor(deps: SearchDependencies) {
    this.deps = deps;
    this.metadataLane = new MetadataLane(deps.embedder);
  }

  async search(clientId: string, request: SearchRequest): Promise<SearchAnswer> {
    this.running++;
    try {
      return await this.searchOnce(clientId, request);
    } finally {
      this.running--;
    }
  }

  private async searchOnce(clientId: string, request: SearchRequest): Promise<SearchAnswer> {
    const started = performance.now();
    const guard = await this.deps.readGuard.guard(clientId);
    if (request.scope !== 'content') await this.requireDiscoveryReadiness(clientId);
    const confinement = request.confinement ?? null;
    const callerFilters = compileFilters(request.filters);
    // A confined key's filter is ANDed into every eligibility below: nothing outside it is a candidate.
    const filters = confinedFilters(callerFilters, confinement);
    const alpha = request.alpha ?? this.deps.defaultAlpha;
    const snapshot = guard.snapshot;
    const eligible = eligibility(snapshot, filters, request.includeDeleted);
    const unfiltered = eligibilityBeforeFilters(snapshot, callerFilters, confinement, request.includeDeleted, eligible);
    const isVersionEligible = (version: ServedVersion) =>
      (request.includeDeleted || !version.deletion.deleted) &&
      filters.matchesVersion(version) &&
      (!filters.hasChunkConditions || chunksOf(snapshot, version).some((chunk) => filters.matchesChunk(chunk)));
    // Texts read once per request, shared by the reranked prefix and the page's evidence rows.
    const knownTexts = new Map<number, StoredChunkText>();
    const texts = (chunks: ServedChunk[]) => readChunkTexts(this.deps.readTexts, clientId, chunks, knownTexts);

    const runContent = request.scope !== 'metadata';
    const runMetadata = request.scope !== 'content';
    const sorting = (request.sort ?? []).length > 0;
    const normalized = runContent ? normalizeContentQuery(request.query, snapshotVocabulary(snapshot)) : null;
    // The Client's synonyms widen the keyword query after normalization, of the content lane alone.
    const synonymTerms = normalized && this.deps.synonyms ? (await this.deps.synonyms(clientId)).expand(normalized.text) : [];
    // Two lanes merged by rank under filters: each lane's ranks are taken before the filters (MergeRanks).
    const mergedFiltered = runContent && runMetadata && !callerFilters.isEmpty;
    const isVisible = (version: ServedVersion) => (request.includeDeleted || !version.deletion.deleted) && withinConfinement(version, confinement);
    // Both lanes run side by side on the same snapshot.
    const [contentRun, metadataRun, contentBefore] = await Promise.all([
      normalized
        ? // Merging with the metadata lane reads every content rank; alone, only the ranked depth needs ordering.
          timed(() =>
            searchContent(
              snapshot,
              normalized.text,
              alpha,
              eligible,
              this.deps.embedder,
              this.deps.candidateCap,
              this.rankingDepth(request),
              // Sorting orders every matched version, and relevance breaks its ties: all of them are ranked.
              runMetadata || sorting ? Number.POSITIVE_INFINITY : this.rankingDepth(request),
              this.running === 1 && this.deps.graphThread && this.deps.spareCore?.() ? this.deps.graphThread : null,
              (keys) => this.deps.readVectors(clientId, keys),
              unfiltered,
              synonymTerms,
            ),
          )
        : Promise.resolve(null),
      // The metadata lane has no candidate cap: its versions before the filters, filtered, are the filtered ones.
      runMetadata ? timed(() => this.metadataLane.search(snapshot, request.query, mergedFiltered ? isVisible : isVersionEligible)) : Promise.resolve(null),
      // The content lane's do not: the filtered lane finds what a capped unfiltered one misses, so it runs both.
      mergedFiltered && normalized
        ? searchContent(snapshot, normalized.text, alpha, unfiltered, this.deps.embedder, this.deps.candidateCap, this.rankingDepth(request), Number.POSITIVE_INFINITY, null, (keys) => this.deps.readVectors(clientId, keys), null, synonymTerms)
        : Promise.resolve(null),
    ]);
    const content = contentRun?.value ?? null;
    const metadataBefore = metadataRun?.value ?? null;
    const metadata = mergedFiltered && metadataBefore ? metadataBefore.filter((hit) => isVersionEligible(hit.version)) : metadataBefore;
    let contentRanked = content?.versions ?? null;
    let rerankedCount = 0;
    if (request.rerank && contentRanked && normalized) {
      const reranked = await rerankPrefix(snapshot, contentRanked, normalized.text, rerankPrefixSize(request.topKRerank, request.offset, request.limit), this.deps.reranker, texts);
      contentRanked = reranked.hits;
      rerankedCount = reranked.count;
    }
    // A reranked prefix merges by its places in this answer: which versions it holds is a page-position rule
    // (SPEC.md search rule 8), and the versions before the filters were not reranked.
    const mergeRanks =
      mergedFiltered && contentBefore && contentRanked && metadataBefore && metadata
        ? { content: rerankedCount > 0 ? null : ranksBefore(contentBefore.versions, contentRanked), metadata: ranksBefore(metadataBefore, metadata) }
        : null;
    // Sorted, every matched row is merged in relevance order and the page is cut from the sorted rows.
    const ranked = mergeLanes(
      content && contentRanked ? { ranked: contentRanked, total: content.total, all: content.matchedVersions } : null,
      metadata,
      sorting ? 0 : request.offset,
      sorting ? Number.POSITIVE_INFINITY : request.limit,
      mergeRanks,
    );
    if (!everyVersionProven(snapshot)) requireEvidence(ranked.versions());
    const versionChunks = (version: ServedVersion) => chunksOf(snapshot, version);
    const page = sorting
      ? sortByKeys(ranked.page, request.sort!, (row) => row.version, versionChunks).slice(request.offset, request.offset + request.limit)
      : ranked.page;
    await texts(page.flatMap((row) => (row.content ? evidenceChunks(snapshot, row.content) : [])));
    const results = page.map((row, index): SearchHit => {
      const contributions: RetrievalContribution[] = [];
      if (row.contentRank !== undefined) contributions.push({ lane: 'content', rank: row.contentRank });
      if (row.metadataRank !== undefined) contributions.push({ lane: 'metadata', rank: row.metadataRank });
      return {
        rank: request.offset + index + 1,
        document_version: documentVersion(row.version),
        canonical_metadata: rowMetadata(snapshot, row),
        retrieval_contributions: contributions,
        content_evidence: row.content ? contentEvidence(snapshot, row.content, request.highlight, content!.queryTerms, knownTexts) : EMPTY_EVIDENCE,
        metadata_evidence: metadataEvidence(row.metadata, request.highlight),
      };
    });
    const empty = results.length === 0;
    const exhausted = content ? content.exhausted : true;
    const lowerBound = empty ? false : !exhausted;
    // Facets count what meta.total counts: the matched versions, none where the page is empty (total 0).
    const facets =
      request.facets && request.facets.length > 0
        ? countFacets(request.facets, empty ? [] : ranked.versions(), request.facetLimit ?? FACET_LIMIT.default, lowerBound, versionChunks)
        : undefined;
    const seconds = (performance.now() - started) / 1000;
    if (contentRun) this.deps.onMeasured?.(request.scope, 'content', contentRun.seconds);
    if (metadataRun) this.deps.onMeasured?.(request.scope, 'metadata', metadataRun.seconds);
    this.deps.onMeasured?.(request.scope, 'all', seconds);
    const meta: SearchMeta = {
      query: request.query,
      total: empty ? 0 : ranked.total,
      total_is_lower_bound: lowerBound,
      offset: request.offset,
      limit: request.limit,
      has_more: ranked.total > request.offset + request.limit,
      query_time_ms: Math.round(seconds * 1000),
      retrieval: { alpha, reranked: rerankedCount > 0, reranked_count: rerankedCount },
      applied_filters: filters.applied,
      publication_view: guard.view,
    };
    if (facets) meta.facets = facets;
    return { results, meta };
  }
  /** How many content rows must be ranked well: the page's end, or the reranked prefix when it is longer. */
  private rankingDepth(request: SearchRequest): number {
    const pageEnd = request.offset + request.limit;
    return request.rerank ? Math.max(pageEnd, rerankPrefixSize(request.topKRerank, request.offset, request.limit)) : pageEnd;
  }

  private async requireDiscoveryReadiness(clientId: string): Promise<void> {
    const { state } = await this.deps.readiness(clientId);
    if (state === 'ready') return;
    throw new ServiceError('metadata_discovery_not_ready', 'Metadata Discovery is not ready for this Client', {
      details: { code: 'METADATA_DISCOVERY_NOT_READY', state, readiness: '/discovery/readiness', scopes_available: ['content'] },
      retryAfterSeconds: state === 'backfilling' ? 5 : undefined,
    });
  }
}
