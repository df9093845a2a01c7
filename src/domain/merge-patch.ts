// JSON Merge Patch (RFC 7396) over custom metadata: objects merge recursively, null deletes a member,
// omitted members stay, any other value replaces. Pure; never mutates its inputs.

import type { JsonObject, JsonValue } from './canonical-metadata.ts';
import { isJsonObject } from './canonical-metadata.ts';

export function mergePatch(target: JsonValue, patch: JsonValue): JsonValue {
  if (!isJsonObject(patch)) return patch;
  const result: JsonObject = isJsonObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key] ?? null, value);
  }
  return result;
}

/** Canonical JSON: object keys sorted at every level, no insignificant whitespace. */
export function canonicalJson(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isJsonObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}
