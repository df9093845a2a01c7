// The metadata lane (SPEC.md rule 6): typed metadata leaves matched by exact whole-value equality, then
// lexical token containment, then semantic similarity of the value alone. Only lossless normalization:
// no expansion, correction or reranking. Structured values and queries admit whole-value equality only.

import { LRUCache } from 'lru-cache';
import { readOverNetwork } from './network-read.ts';
import type { ClientSnapshot } from '../serving/snapshot.ts';
import type { ServedVersion } from '../serving/served-types.ts';
import type { MetadataLeaf } from '../domain/generation.ts';
import type { Embedder } from '../models/embedder.ts';
import { normalizeText } from '../text/normalize.ts';
import { isStopword } from '../text/stopwords.ts';
import { METADATA_MAX_MATCHABLE_STRING_CHARS } from '../domain/metadata-contract.ts';
import { SEMANTIC_METADATA_FLOOR } from '../spec-limits.ts';

/**
 * Bytes of rendered values and their vectors kept across snapshots, the most recently used (values repeat across
 * versions). Bounded in bytes, since a vector's size depends on the model: 8 MiB holds about 5,000 values at 384
 * dimensions, in every api process whatever the number of Clients it serves.
 */
export const VALUE_VECTOR_CACHE_BYTES = 8 * 1024 * 1024;
/** What the cache counts for a value beside its vector's bytes (the key's characters, the entry itself). */
const VALUE_ENTRY_OVERHEAD_BYTES = 96;
/** Paths whose values are enumerations: they may match exactly but never lexically or semantically. */
export const EXACT_ONLY_PATHS: ReadonlySet<string> = new Set(['source.mime_type', 'source.extension', 'classification.status', 'quality.text_extraction']);

export type MatchKind = 'exact' | 'lexical' | 'semantic';
const TIER: Record<MatchKind, number> = { exact: 3, lexical: 2, semantic: 1 };

export interface LeafMatch {
  leaf: MetadataLeaf;
  kind: MatchKind;
  score: number;
  rendered: string;
  /** Normalized query tokens the value matched (for highlights). */
  tokens: string[];
}

export interface MetadataVersionHit {
  version: ServedVersion;
  best: LeafMatch;
  matches: LeafMatch[];
}

const WORD = /[\p{L}\p{N}]+(?:[.,\/:-][\p{L}\p{N}]+)*/gu;
const DATE_LIKE = /^(\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}|\d{1,2}\s+\p{L}+\s+\d{2,4}|\p{L}+\s+\d{1,2},?\s+\d{2,4})$/u;

export function renderValue(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function tokens(normalized: string): string[] {
  return normalized.match(WORD) ?? [];
}

/** Complete identifiers, opaque codes, dates and numbers: only whole-value equality may match them. */
export function isStructured(normalized: string, valueType: string): boolean {
  if (valueType !== 'string') return true;
  if (DATE_LIKE.test(normalized)) return true;
  return !/\s/.test(normalized) && /\d/.test(normalized);
}

class ValueVectors {
  private readonly cache = new LRUCache<string, Float32Array>({
    maxSize: VALUE_VECTOR_CACHE_BYTES,
    sizeCalculation: (vector, value) => vector.byteLength + 2 * value.length + VALUE_ENTRY_OVERHEAD_BYTES,
  });

  /** The vector of each value: remembered ones, and the others embedded now (kept for this answer even when the cache cannot hold them all). */
  async vectors(embedder: Embedder, values: string[]): Promise<Map<string, Float32Array>> {
    const found = new Map<string, Float32Array>();
    const missing: string[] = [];
    for (const value of new Set(values)) {
      const vector = this.cache.get(value);
      if (vector) found.set(value, vector);
      else missing.push(value);
    }
    if (missing.length > 0) {
      const embedded = await readOverNetwork(() => embedder.embed(missing, { singleAttempt: true }));
      missing.forEach((value, index) => {
        found.set(value, embedded[index]);
        this.cache.set(value, embedded[index]);
      });
    }
    return found;
  }
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length && i < b.length; i++) sum += a[i] * b[i];
  return sum;
}

function compareMatches(a: LeafMatch, b: LeafMatch): number {
  return TIER[b.kind] - TIER[a.kind] || b.score - a.score;
}

export class MetadataLane {
  private readonly embedder: Embedder;
  private readonly valueVectors = new ValueVectors();

  constructor(embedder: Embedder) {
    this.embedder = embedder;
  }

  async search(snapshot: ClientSnapshot, query: string, isVersionEligible: (version: ServedVersion) => boolean): Promise<MetadataVersionHit[]> {
    const normalizedQuery = normalizeText(query);
    const queryTokens = tokens(normalizedQuery);
    // A whole query that is a date, number, code or identifier ("31 March 2024" as much as "2024-03-31") is
    // structured however many tokens it splits into: it admits whole-value equality only.
    const structuredQuery = isStructured(normalizedQuery, 'string');
    const contentTokens = queryTokens.filter((token) => !isStopword(token));
    const required = contentTokens.length > 0 ? contentTokens : queryTokens;
    const digitBearing = queryTokens.filter((token) => /\d/.test(token));

    const candidates: { version: ServedVersion; leaf: MetadataLeaf; rendered: string; normalized: string }[] = [];
    for (const version of snapshot.versions.values()) {
      if (!isVersionEligible(version)) continue;
      for (const leaf of version.leaves) {
        const rendered = renderValue(leaf.value);
        if (typeof leaf.value === 'string' && leaf.value.length > METADATA_MAX_MATCHABLE_STRING_CHARS) continue;
        candidates.push({ version, leaf, rendered, normalized: normalizeText(rendered) });
      }
    }

    const semanticPool = structuredQuery
      ? []
      : candidates.filter((c) => !isStructured(c.normalized, c.leaf.valueType) && !EXACT_ONLY_PATHS.has(c.leaf.path.join('.')));
    // The embeddings may cross the network (a remote embedder): rule 12 applies to them as to the content lane's.
    const queryVector = semanticPool.length > 0 ? (await readOverNetwork(() => this.embedder.embed([normalizedQuery], { singleAttempt: true })))[0] : null;
    const vectors = semanticPool.length > 0 ? await this.valueVectors.vectors(this.embedder, semanticPool.map((c) => c.normalized)) : new Map<string, Float32Array>();

    const byVersion = new Map<string, MetadataVersionHit>();
    for (const candidate of candidates) {
      const match = this.match(candidate, normalizedQuery, structuredQuery, required, digitBearing, queryVector, vectors);
      if (!match) continue;
      const entry = byVersion.get(candidate.version.identity);
      if (!entry) byVersion.set(candidate.version.identity, { version: candidate.version, best: match, matches: [match] });
      else {
        entry.matches.push(match);
        if (compareMatches(match, entry.best) < 0) entry.best = match;
      }
    }
    const hits = [...byVersion.values()];
    for (const hit of hits) hit.matches.sort(compareMatches);
    return hits.sort((a, b) => compareMatches(a.best, b.best) || (a.version.identity < b.version.identity ? -1 : 1));
  }

  private match(
    candidate: { leaf: MetadataLeaf; rendered: string; normalized: string },
    normalizedQuery: string,
    structuredQuery: boolean,
    required: string[],
    digitBearing: string[],
    queryVector: Float32Array | null,
    vectors: Map<string, Float32Array>,
  ): LeafMatch | null {
    const { leaf, rendered, normalized } = candidate;
    if (normalized === normalizedQuery) return { leaf, kind: 'exact', score: 1, rendered, tokens: tokens(normalizedQuery) };
    // Value eligibility comes before path context: structured values and queries stop at equality.
    if (structuredQuery || isStructured(normalized, leaf.valueType)) return null;
    if (EXACT_ONLY_PATHS.has(leaf.path.join('.'))) return null;
    const valueTokens = tokens(normalized);
    const valueSet = new Set(valueTokens);
    if (!digitBearing.every((token) => valueSet.has(token))) return null; // mixed queries keep digits verbatim
    if (required.length > 0 && required.every((token) => valueSet.has(token))) {
      return { leaf, kind: 'lexical', score: required.length / Math.max(1, valueTokens.length), rendered, tokens: required };
    }
    const vector = vectors.get(normalized);
    if (queryVector && vector) {
      const similarity = dot(queryVector, vector);
      if (similarity >= SEMANTIC_METADATA_FLOOR) return { leaf, kind: 'semantic', score: similarity, rendered, tokens: [] };
    }
    return null;
  }
}

/** Literal spans of matched tokens (or the whole value for exact matches) in the rendered value. */
export function metadataHighlights(match: LeafMatch): { start: number; end: number }[] {
  if (match.kind === 'exact') return [{ start: 0, end: match.rendered.length }];
  if (match.kind !== 'lexical') return [];
  const spans: { start: number; end: number }[] = [];
  const wanted = new Set(match.tokens);
  for (const found of match.rendered.matchAll(WORD)) {
    if (wanted.has(normalizeText(found[0]))) spans.push({ start: found.index!, end: found.index! + found[0].length });
  }
  return spans;
}
