// Served versions hold their canonical metadata, entities, embedding record, deletion markers and metadata
// leaves as parsed JSON, one tree per version, and most of each tree repeats across versions: the location and
// extracted fields of documents without them, empty entity lists, a mime type, a leaf's path. Each part that
// equals one met recently is replaced by that one, so equal parts are held once. A shared part is frozen:
// served versions are only read. An api process serving 100,000 SciFact chunks (9,483 versions) held
// 48.5 MiB of heap before, 39.5 MiB after (sharing them took about 110 ms).
//
// Parts are matched by what they hold, in their own key order (two objects that list their keys in another order
// are not the same answer body): a string by itself, an object or array by a key made of its parts' ids. Only
// small parts (SHARED_VALUE_MAX_KEY) are looked up, in caches of the recently met (SHARED_VALUES): a part met in
// every version stays in them, and one met once ages out, so they hold at most a few MiB whatever the process
// serves.

import { RecentCache } from '../text/recent-cache.ts';

/** Parts remembered at most (recent-cache.ts: one met within the last half of this many is always found). */
export const SHARED_VALUES = 4096;
/** Longest string, and longest key of an object or array, that is looked up; larger parts are rebuilt from shared smaller ones. */
export const SHARED_VALUE_MAX_KEY = 256;

/** A part remembered: the one value every equal part becomes, and its id (parents' keys are made of ids). */
interface Part {
  value: unknown;
  id: number;
}

/** Strings by themselves; objects and arrays by their keys (made of their names' and values' ids). */
const strings = new RecentCache<string, Part>(SHARED_VALUES);
const containers = new RecentCache<string, Part>(SHARED_VALUES);
/**
 * Ids are never given twice, so equal keys mean equal parts. A part that ages out and comes again gets a new id,
 * and parents that held the old one are then not found: a missed share, never a wrong one.
 */
let nextId = 0;

/** `value` (parsed JSON) with every small part that equals one met recently replaced by that one. */
export function sharedValue<T>(value: T): T {
  return share(value).value as T;
}

/** A part shared, with its key to be part of its parent's: null when it (or any part of it) is not looked up. */
interface Shared {
  value: unknown;
  key: string | null;
}

function share(value: unknown): Shared {
  if (value === null) return { value, key: 'n' };
  if (typeof value === 'boolean') return { value, key: value ? 't' : 'f' };
  // A number's text has no comma, colon or bracket.
  if (typeof value === 'number') return { value, key: `#${value}` };
  if (typeof value === 'string') {
    if (value.length > SHARED_VALUE_MAX_KEY) return { value, key: null };
    const part = stringPart(value);
    return { value: part.value, key: `s${part.id}` };
  }
  if (Array.isArray(value)) {
    const rebuilt: unknown[] = [];
    let key: string | null = '[';
    for (const item of value) {
      const part = share(item);
      rebuilt.push(part.value);
      key = key === null || part.key === null ? null : `${key}${part.key},`;
    }
    return remembered(key, rebuilt);
  }
  if (typeof value === 'object') {
    const rebuilt: Record<string, unknown> = {};
    let key: string | null = '{';
    for (const name of Object.keys(value)) {
      const part = share((value as Record<string, unknown>)[name]);
      // An own "__proto__" key of parsed JSON stays a key: assigned, it would set the prototype.
      if (name === '__proto__') Object.defineProperty(rebuilt, name, { value: part.value, enumerable: true, writable: true, configurable: true });
      else rebuilt[name] = part.value;
      key = key === null || part.key === null || name.length > SHARED_VALUE_MAX_KEY ? null : `${key}${stringPart(name).id}:${part.key},`;
    }
    return remembered(key, rebuilt);
  }
  return { value, key: null };
}

function stringPart(value: string): Part {
  let part = strings.find(value);
  if (part === undefined) strings.set(value, (part = { value, id: nextId++ }));
  return part;
}

function remembered(key: string | null, value: object): Shared {
  if (key === null || key.length > SHARED_VALUE_MAX_KEY) return { value, key: null };
  let part = containers.find(key);
  if (part === undefined) containers.set(key, (part = { value: Object.freeze(value), id: nextId++ }));
  return { value: part.value, key: `o${part.id}` };
}
