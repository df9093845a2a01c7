// Served versions hold their canonical metadata, entities, embedding record, deletion markers and metadata
// leaves as parsed JSON, one tree per version, and most of each tree repeats across versions: the location and
// extracted fields of documents without them, empty entity lists, a mime type, a leaf's path. Each part that
// equals one met recently is replaced by that one, so equal parts are held once. A shared part is frozen:
// served versions are only read. An api process serving 100,000 SciFact chunks (9,483 versions) held
// 48.5 MiB of heap before, 37.4 MiB after.
//
// Parts are matched by their JSON text, in their own key order (two objects that list their keys in another
// order are not the same answer body). Only small parts (SHARED_VALUE_MAX_KEY) are looked up, in a cache of the
// recently met (SHARED_VALUES): a part met in every version stays in it, and one met once ages out, so the cache
// holds at most a few MiB whatever the process serves.

import { RecentCache } from '../text/recent-cache.ts';

/** Parts remembered at most (recent-cache.ts: one met within the last half of this many is always found). */
export const SHARED_VALUES = 4096;
/** Longest JSON text of a part that is looked up; larger parts are rebuilt from shared smaller ones. */
export const SHARED_VALUE_MAX_KEY = 256;

const recent = new RecentCache<string, unknown>(SHARED_VALUES);

interface Shared {
  value: unknown;
  /** Its JSON text, or null when it is too long to look up (or holds something that is not JSON). */
  key: string | null;
}

/** `value` (parsed JSON) with every small part that equals one met recently replaced by that one. */
export function sharedValue<T>(value: T): T {
  return share(value).value as T;
}

function share(value: unknown): Shared {
  if (value === null || typeof value === 'boolean' || typeof value === 'number') return { value, key: JSON.stringify(value) };
  if (typeof value === 'string') {
    const key = JSON.stringify(value);
    return key.length > SHARED_VALUE_MAX_KEY ? { value, key: null } : remembered(key, value);
  }
  if (Array.isArray(value)) {
    const parts = value.map(share);
    const key = joinedKey('[', parts.map((part) => part.key), ']');
    const rebuilt = parts.map((part) => part.value);
    return key === null ? { value: rebuilt, key } : remembered(key, rebuilt);
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value).map(([name, child]) => [name, share(child)] as const);
    const key = joinedKey('{', entries.map(([name, part]) => (part.key === null ? null : `${JSON.stringify(name)}:${part.key}`)), '}');
    // fromEntries defines each key as an own property, "__proto__" included.
    const rebuilt = Object.fromEntries(entries.map(([name, part]) => [name, part.value]));
    return key === null ? { value: rebuilt, key } : remembered(key, rebuilt);
  }
  return { value, key: null };
}

function joinedKey(open: string, keys: (string | null)[], close: string): string | null {
  let length = 2 + Math.max(0, keys.length - 1);
  for (const key of keys) {
    if (key === null) return null;
    length += key.length;
  }
  return length > SHARED_VALUE_MAX_KEY ? null : open + keys.join(',') + close;
}

function remembered(key: string, value: unknown): Shared {
  const known = recent.find(key);
  if (known !== undefined) return { value: known, key };
  const frozen = typeof value === 'object' && value !== null ? Object.freeze(value) : value;
  recent.set(key, frozen);
  return { value: frozen, key };
}
