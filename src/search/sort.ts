// Sorting (DESIGN.md "Facets, sorting, synonyms, similar documents"): the matched Document Versions ordered by
// up to three fields, missing values last, and their relevance order breaking ties, before the page is cut.

import { RequestValidationError } from '../domain/validation-error.ts';
import type { ValidationDetail } from '../domain/validation-error.ts';
import type { ServedChunk, ServedVersion } from '../serving/served-types.ts';
import { resolvePath, versionReader } from './field-values.ts';
import type { ResolvedPath } from './field-values.ts';

/** Most sort keys one request may give. */
export const MAX_SORT_KEYS = 3;
export const SORT_ORDERS = ['asc', 'desc'] as const;
export type SortOrder = (typeof SORT_ORDERS)[number];

export interface SortKey {
  field: string;
  resolved: ResolvedPath;
  order: SortOrder;
}

const FIELD_HINT = 'created_at, a system key such as source.filename, or metadata.custom.<key>';

/** created_at, the system keys and custom keys sort; document_id and the entity lists do not. */
function sortable(path: ResolvedPath | null): path is ResolvedPath {
  return path !== null && (path.kind === 'created_at' || path.kind === 'system' || path.kind === 'custom');
}

/** The sort keys of a request, validated; `at` is where they were given. Every problem is reported. */
export function parseSort(raw: unknown, at: (string | number)[]): SortKey[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new RequestValidationError([{ type: 'list_type', loc: at, msg: 'Input should be a valid list', input: raw }]);
  if (raw.length > MAX_SORT_KEYS) {
    throw new RequestValidationError([{ type: 'too_long', loc: at, msg: `List should have at most ${MAX_SORT_KEYS} items after validation, not ${raw.length}`, input: raw }]);
  }
  const problems: ValidationDetail[] = [];
  const keys: SortKey[] = [];
  raw.forEach((item, index) => {
    const loc = [...at, index];
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return void problems.push({ type: 'dict_type', loc, msg: 'A sort key is {"field", "order"}', input: item });
    const entry = item as Record<string, unknown>;
    for (const key of Object.keys(entry).filter((key) => key !== 'field' && key !== 'order')) {
      problems.push({ type: 'extra_forbidden', loc: [...loc, key], msg: 'Extra inputs are not permitted', input: entry[key] });
    }
    if (entry.field === undefined) return void problems.push({ type: 'missing', loc: [...loc, 'field'], msg: 'Field required', input: item });
    if (entry.order === undefined) return void problems.push({ type: 'missing', loc: [...loc, 'order'], msg: 'Field required', input: item });
    const resolved = typeof entry.field === 'string' ? resolvePath(entry.field) : null;
    if (!sortable(resolved)) return void problems.push({ type: 'value_error', loc: [...loc, 'field'], msg: `Cannot sort by ${String(entry.field)}: use ${FIELD_HINT}`, input: entry.field });
    if (!(SORT_ORDERS as readonly unknown[]).includes(entry.order)) return void problems.push({ type: 'enum', loc: [...loc, 'order'], msg: "Input should be 'asc' or 'desc'", input: entry.order });
    if (keys.some((key) => key.field === entry.field)) return void problems.push({ type: 'value_error', loc: [...loc, 'field'], msg: `Sort field ${String(entry.field)} is given twice`, input: entry.field });
    keys.push({ field: entry.field as string, resolved, order: entry.order as SortOrder });
  });
  if (problems.length > 0) throw new RequestValidationError(problems);
  return keys;
}

/** `field:order[,field:order...]` of a query string (GET /documents) as the list parseSort reads. */
export function sortFromQuery(text: string | undefined): unknown {
  if (text === undefined || text.trim() === '') return undefined;
  return text.split(',').map((part) => {
    const at = part.lastIndexOf(':');
    return at < 0 ? { field: part.trim() } : { field: part.slice(0, at).trim(), order: part.slice(at + 1).trim() };
  });
}

/**
 * A value's place among the values of one field: numbers, then ISO dates (by instant), then other strings, then
 * booleans. A field seldom mixes kinds; when it does, every version still has one place.
 */
interface SortValue {
  kind: number;
  number: number;
  text: string;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}/;

function sortValueOf(value: unknown): SortValue | null {
  if (typeof value === 'number' && Number.isFinite(value)) return { kind: 0, number: value, text: '' };
  if (typeof value === 'string') {
    const instant = ISO_DATE.test(value) ? Date.parse(value) : Number.NaN;
    return Number.isFinite(instant) ? { kind: 1, number: instant, text: '' } : { kind: 2, number: 0, text: value };
  }
  if (typeof value === 'boolean') return { kind: 3, number: value ? 1 : 0, text: '' };
  return null;
}

function compareValues(a: SortValue, b: SortValue): number {
  if (a.kind !== b.kind) return a.kind - b.kind;
  if (a.kind === 2) return a.text < b.text ? -1 : a.text > b.text ? 1 : 0;
  return a.number - b.number;
}

/** The value a version sorts by: of several (a list, a location key's chunks), the first in the key's order. */
function sortValueReader(key: SortKey, chunks: (version: ServedVersion) => readonly ServedChunk[]): (version: ServedVersion) => SortValue | null {
  const read = versionReader(key.resolved, chunks);
  return (version) => {
    let best: SortValue | null = null;
    for (const raw of read(version)) {
      const value = sortValueOf(raw);
      if (!value) continue;
      if (best === null) best = value;
      else if ((key.order === 'asc' ? compareValues(value, best) : compareValues(best, value)) < 0) best = value;
    }
    return best;
  };
}

/**
 * `rows` (in relevance order) ordered by the keys: missing values last whatever the order, and equal values in
 * their relevance order (the sort is stable). A new array; `rows` is left as it is.
 */
export function sortByKeys<T>(rows: readonly T[], keys: readonly SortKey[], versionOf: (row: T) => ServedVersion, chunks: (version: ServedVersion) => readonly ServedChunk[]): T[] {
  if (keys.length === 0) return [...rows];
  const readers = keys.map((key) => sortValueReader(key, chunks));
  const decorated = rows.map((row, relevance) => ({ row, relevance, values: readers.map((read) => read(versionOf(row))) }));
  decorated.sort((a, b) => {
    for (let k = 0; k < keys.length; k++) {
      const left = a.values[k];
      const right = b.values[k];
      if (left === null || right === null) {
        if (left !== right) return left === null ? 1 : -1;
        continue;
      }
      const order = compareValues(left, right);
      if (order !== 0) return keys[k].order === 'asc' ? order : -order;
    }
    return a.relevance - b.relevance;
  });
  return decorated.map((entry) => entry.row);
}
