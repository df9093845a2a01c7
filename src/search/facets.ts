// Facets (DESIGN.md "Facets, sorting, synonyms, similar documents"): how many of the Document Versions a
// request matched hold each value of a path. Counted over the matched set the request already has (after
// its filters, before pagination), never over the Client, so a facet costs a pass over the matched versions.

import { RequestValidationError } from '../domain/validation-error.ts';
import type { ValidationDetail } from '../domain/validation-error.ts';
import type { ServedChunk, ServedVersion } from '../serving/served-types.ts';
import type { FacetCounts, FacetValue } from '../domain/responses.ts';
import { resolvePath, versionReader } from './field-values.ts';
import type { ResolvedPath } from './field-values.ts';

/** Most facets one request may ask for. */
export const MAX_FACETS = 10;
/** Values each facet lists (facet_limit); the rest are summed in other_count. */
export const FACET_LIMIT = { min: 1, max: 100, default: 10 } as const;
/** Date histogram buckets: the ISO prefix of a date kept for each. */
export const DATE_INTERVALS = { year: 4, month: 7, day: 10 } as const;
export type DateInterval = keyof typeof DATE_INTERVALS;

export interface FacetSpec {
  /** The path as the caller wrote it: the facet's key in the answer. */
  path: string;
  resolved: ResolvedPath;
  interval: DateInterval | null;
}


/** Paths whose values are ISO dates (or may be, for custom keys): the ones an interval may bucket. */
function takesInterval(path: ResolvedPath): boolean {
  return path.kind === 'created_at' || path.kind === 'custom' || (path.kind === 'system' && path.key === 'extracted.created_at');
}

const PATH_HINT = 'created_at, document_id, a system key such as source.extension, an entity key such as organizations, or metadata.custom.<key>';

/**
 * The facets of a request, validated: at most MAX_FACETS, each a filterable path or {field, interval}, none
 * twice. `at` is where they were given (['body', 'facets'] or ['query', 'facets']): every problem is reported.
 */
export function parseFacets(raw: unknown, at: (string | number)[]): FacetSpec[] {
  if (raw === undefined || raw === null) return [];
  const problems: ValidationDetail[] = [];
  if (!Array.isArray(raw)) throw new RequestValidationError([{ type: 'list_type', loc: at, msg: 'Input should be a valid list', input: raw }]);
  if (raw.length > MAX_FACETS) {
    throw new RequestValidationError([{ type: 'too_long', loc: at, msg: `List should have at most ${MAX_FACETS} items after validation, not ${raw.length}`, input: raw }]);
  }
  const specs: FacetSpec[] = [];
  raw.forEach((item, index) => {
    const loc = [...at, index];
    let field: unknown = item;
    let interval: unknown = null;
    if (typeof item === 'object' && item !== null && !Array.isArray(item)) {
      const extra = Object.keys(item).filter((key) => key !== 'field' && key !== 'interval');
      for (const key of extra) problems.push({ type: 'extra_forbidden', loc: [...loc, key], msg: 'Extra inputs are not permitted', input: (item as Record<string, unknown>)[key] });
      field = (item as Record<string, unknown>).field;
      interval = (item as Record<string, unknown>).interval ?? null;
      if (field === undefined) return void problems.push({ type: 'missing', loc: [...loc, 'field'], msg: 'Field required', input: item });
    }
    if (typeof field !== 'string') return void problems.push({ type: 'string_type', loc, msg: 'A facet is a path string or {"field", "interval"}', input: item });
    const resolved = resolvePath(field);
    if (!resolved) return void problems.push({ type: 'value_error', loc, msg: `Unsupported facet path ${field}: use ${PATH_HINT}`, input: field });
    if (interval !== null) {
      if (typeof interval !== 'string' || !Object.hasOwn(DATE_INTERVALS, interval)) {
        return void problems.push({ type: 'enum', loc: [...loc, 'interval'], msg: "Input should be 'day', 'month' or 'year'", input: interval });
      }
      if (!takesInterval(resolved)) {
        return void problems.push({ type: 'value_error', loc: [...loc, 'interval'], msg: `An interval buckets dates: ${field} holds none (use created_at, extracted.created_at or metadata.custom.<key>)`, input: interval });
      }
    }
    if (specs.some((spec) => spec.path === field)) return void problems.push({ type: 'value_error', loc, msg: `Facet ${field} is asked for twice`, input: field });
    specs.push({ path: field, resolved, interval: interval as DateInterval | null });
  });
  if (problems.length > 0) throw new RequestValidationError(problems);
  return specs;
}

/**
 * GET /documents `facets`: comma-separated paths, each `path` or `path:interval`, as the list parseFacets reads.
 * A suffix after the last colon is an interval only when it names one, so a custom key may hold a colon.
 */
export function facetsFromQuery(text: string | undefined): unknown {
  if (text === undefined || text.trim() === '') return undefined;
  return text.split(',').map((part) => {
    const path = part.trim();
    const at = path.lastIndexOf(':');
    const suffix = at < 0 ? '' : path.slice(at + 1);
    return Object.hasOwn(DATE_INTERVALS, suffix) ? { field: path.slice(0, at), interval: suffix } : path;
  });
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}/;

/** The bucket of a value under a date interval: its ISO prefix, or null when it is no ISO date. */
function bucketOf(value: unknown, interval: DateInterval): string | null {
  if (typeof value !== 'string' || !ISO_DATE.test(value)) return null;
  return value.slice(0, DATE_INTERVALS[interval]);
}

/** Values a facet counts: scalars only (an object or a list inside a list is no value a filter could match). */
function isFacetValue(value: unknown): value is FacetValue {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean';
}

const TYPE_ORDER = { number: 0, string: 1, boolean: 2 } as Record<string, number>;

/** Value order for ties: numbers, then strings, then booleans, each ascending. */
export function compareFacetValues(a: FacetValue, b: FacetValue): number {
  const byType = TYPE_ORDER[typeof a] - TYPE_ORDER[typeof b];
  if (byType !== 0) return byType;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** One facet's running counts; a Map keyed by the value itself keeps 1 and "1" apart (SameValueZero). */
class FacetCounter {
  private readonly spec: FacetSpec;
  private readonly read: (version: ServedVersion) => unknown[];
  private readonly counts = new Map<FacetValue, number>();

  constructor(spec: FacetSpec, chunks: (version: ServedVersion) => readonly ServedChunk[]) {
    this.spec = spec;
    this.read = versionReader(spec.resolved, chunks);
  }

  /** The version counted once for each distinct value it holds. */
  add(version: ServedVersion): void {
    const raw = this.read(version);
    if (raw.length === 0) return;
    const interval = this.spec.interval;
    if (raw.length === 1) {
      // Most fields hold one value: no set of the values already counted for the version.
      const value = interval ? bucketOf(raw[0], interval) : raw[0];
      if (isFacetValue(value)) this.counts.set(value, (this.counts.get(value) ?? 0) + 1);
      return;
    }
    const held = new Set<FacetValue>();
    for (const item of raw) {
      const value = interval ? bucketOf(item, interval) : item;
      if (!isFacetValue(value) || held.has(value)) continue;
      held.add(value);
      this.counts.set(value, (this.counts.get(value) ?? 0) + 1);
    }
  }

  result(limit: number, isLowerBound: boolean): FacetCounts {
    const ordered = [...this.counts].map(([value, count]) => ({ value, count }));
    ordered.sort((a, b) => b.count - a.count || compareFacetValues(a.value, b.value));
    let other = 0;
    for (let i = limit; i < ordered.length; i++) other += ordered[i].count;
    return { values: ordered.slice(0, limit), other_count: other, is_lower_bound: isLowerBound };
  }
}

/**
 * Every facet over the matched versions. `isLowerBound` is the answer's own (meta.total's): where the lanes
 * stopped at their candidate cap, the versions they did not reach are not counted either.
 */
export function countFacets(
  specs: readonly FacetSpec[],
  matched: Iterable<ServedVersion>,
  limit: number,
  isLowerBound: boolean,
  chunks: (version: ServedVersion) => readonly ServedChunk[],
): Record<string, FacetCounts> {
  const counters = specs.map((spec) => new FacetCounter(spec, chunks));
  // One pass over the matched versions for every facet.
  for (const version of matched) for (const counter of counters) counter.add(version);
  return Object.fromEntries(specs.map((spec, i) => [spec.path, counters[i].result(limit, isLowerBound)]));
}
