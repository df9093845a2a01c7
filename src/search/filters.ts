// Search filters (SPEC.md rule 7, "Filterable fields"): validated once, compiled into predicates over a
// version and its chunks. Filters only narrow the candidate set; they never take part in scoring.

import { ServiceError } from '../domain/service-error.ts';
import { isEntityType } from '../domain/entities.ts';
import { RESERVED_KEYS, isJsonObject } from '../domain/canonical-metadata.ts';
import type { JsonValue } from '../domain/canonical-metadata.ts';
import type { ServedChunk, ServedVersion } from '../serving/served-types.ts';
import { CUSTOM_PATH_PREFIX } from '../domain/custom-path.ts';
import { SYSTEM_FILTER_KEYS, customReader, entityReader, isChunkLevel, systemReader } from './field-values.ts';
import type { FieldReader, SystemKey } from './field-values.ts';

export { TOP_LEVEL_FILTER_KEYS, SYSTEM_FILTER_KEYS } from './field-values.ts';
/** Custom keys are filtered by their stored path (SPEC.md: metadata.custom.<key>). */
export const CUSTOM_FILTER_PREFIX = CUSTOM_PATH_PREFIX;
/** Most values one list filter may carry. */
export const MAX_FILTER_VALUES = 100;

type Scalar = string | number | boolean;

interface Condition {
  key: string;
  values: Scalar[];
  /** Values of the field on a version (and chunk, for location keys); any equal value matches. */
  read: FieldReader;
  chunkLevel: boolean;
}

export interface CompiledFilters {
  applied: Record<string, JsonValue>;
  isEmpty: boolean;
  /** Version-level conditions hold (chunk-level ones are checked by matchesChunk). */
  matchesVersion(version: ServedVersion): boolean;
  hasChunkConditions: boolean;
  matchesChunk(chunk: ServedChunk): boolean;
}

function invalid(message: string): ServiceError {
  return new ServiceError('invalid_filter', message);
}

function asValues(key: string, value: unknown): Scalar[] {
  const list = Array.isArray(value) ? value : [value];
  if (list.length === 0) throw invalid(`Filter ${key} must not be an empty list`);
  if (list.length > MAX_FILTER_VALUES) throw invalid(`Filter ${key} accepts at most ${MAX_FILTER_VALUES} values`);
  for (const item of list) {
    if (!['string', 'number', 'boolean'].includes(typeof item)) {
      throw invalid(`Filter ${key} must be a string, number or boolean, or a list of them`);
    }
  }
  return list as Scalar[];
}

/**
 * The value types SPEC.md gives a filter key ("Filterable fields"): document_id is a string, created_at a
 * datetime, an entity key one string or a list. A value of another type can match nothing, so it is an invalid
 * filter (400), not an empty answer. Other keys take any scalar, compared exactly.
 */
/** Days in each month of a common year. */
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * A date-time Date.parse reads and whose calendar day exists: Date.parse takes day 29 to 31 of any month
 * (2026-02-30 would be read as 2 March), so the day of a YYYY-MM-DD date is checked against its month.
 */
function isDateTime(value: string): boolean {
  if (!Number.isFinite(Date.parse(value))) return false;
  const date = /^(\d{4})-(\d{2})-(\d{2})/.exec(value);
  if (!date) return true;
  const year = Number(date[1]);
  const month = Number(date[2]);
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return Number(date[3]) <= MONTH_DAYS[month - 1] + (month === 2 && leap ? 1 : 0);
}

function checkValueTypes(rawKey: string, key: string, values: Scalar[]): void {
  const datetime = key === 'created_at' || key === 'extracted.created_at';
  if (key === 'document_id' || isEntityType(key) || datetime) {
    for (const value of values) {
      if (typeof value !== 'string') throw invalid(`Filter ${rawKey} takes ${datetime ? 'an ISO 8601 date-time string' : 'a string'} or a list of them`);
      if (datetime && !isDateTime(value)) throw invalid(`Filter ${rawKey} takes an ISO 8601 date-time; ${JSON.stringify(value)} is not one`);
    }
  }
}

function sameInstant(a: unknown, b: Scalar): boolean {
  if (typeof a !== 'string' || typeof b !== 'string') return false;
  if (a === b) return true;
  const left = Date.parse(a);
  return Number.isFinite(left) && left === Date.parse(b);
}

function compileCondition(rawKey: string, value: unknown): Condition {
  const key = rawKey.startsWith('metadata.') && !rawKey.startsWith(CUSTOM_FILTER_PREFIX) ? rawKey.slice('metadata.'.length) : rawKey;
  const reservedRoot = key.split('.')[0];
  if ((RESERVED_KEYS as readonly string[]).includes(key) || (RESERVED_KEYS as readonly string[]).includes(reservedRoot)) {
    throw invalid(`Filter key ${rawKey} is reserved system state and cannot be used as a filter`);
  }
  const values = asValues(rawKey, value);
  checkValueTypes(rawKey, key, values);
  if (key === 'document_id') return { key: rawKey, values, read: (version) => [version.documentId], chunkLevel: false };
  if (key === 'created_at') {
    return { key: rawKey, values: values.map(String), read: (version) => [version.createdAt], chunkLevel: false };
  }
  if ((SYSTEM_FILTER_KEYS as readonly string[]).includes(key)) {
    return { key: rawKey, values, read: systemReader(key as SystemKey), chunkLevel: isChunkLevel(key as SystemKey) };
  }
  if (rawKey.startsWith(CUSTOM_FILTER_PREFIX)) {
    const customKey = rawKey.slice(CUSTOM_FILTER_PREFIX.length);
    if (customKey === '') throw invalid('Filter key metadata.custom. needs a custom key after the prefix');
    return { key: rawKey, values, read: customReader(customKey), chunkLevel: false };
  }
  if (isEntityType(key)) return { key: rawKey, values, read: entityReader(key), chunkLevel: false };
  throw invalid(
    `Unsupported filter path ${rawKey}: use document_id, created_at, a system key such as source.filename, an entity key, or metadata.custom.<key> for custom metadata`,
  );
}

function matches(condition: Condition, actual: unknown[]): boolean {
  for (const expected of condition.values) {
    for (const candidate of actual) {
      if (condition.key === 'created_at' || condition.key.endsWith('created_at')) {
        if (sameInstant(candidate, expected)) return true;
      } else if (candidate === expected) {
        return true;
      } else if (isEntityType(condition.key) && typeof candidate === 'string' && typeof expected === 'string' && candidate.toLowerCase() === expected.toLowerCase()) {
        return true;
      }
    }
  }
  return false;
}

export function compileFilters(filters: unknown): CompiledFilters {
  if (filters === undefined || filters === null) filters = {};
  if (!isJsonObject(filters)) throw invalid('filters must be an object');
  const conditions = Object.entries(filters).map(([key, value]) => compileCondition(key, value));
  const versionConditions = conditions.filter((condition) => !condition.chunkLevel);
  const chunkConditions = conditions.filter((condition) => condition.chunkLevel);
  return {
    applied: filters as Record<string, JsonValue>,
    isEmpty: conditions.length === 0,
    hasChunkConditions: chunkConditions.length > 0,
    matchesVersion: (version) => versionConditions.every((condition) => matches(condition, condition.read(version, null))),
    matchesChunk: (chunk) => chunkConditions.every((condition) => matches(condition, condition.read(chunk.version, chunk))),
  };
}
