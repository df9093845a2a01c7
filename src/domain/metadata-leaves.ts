// Flattens canonical metadata into typed leaves (path + value) for the metadata lane and its manifest.
// Pure; the eligibility rules of the metadata lane are applied when matching, not here.

import type { CanonicalMetadata, JsonValue } from './canonical-metadata.ts';
import { isJsonObject } from './canonical-metadata.ts';
import type { MetadataLeaf } from './generation.ts';

function valueType(value: JsonValue): string {
  if (value === null) return 'null';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function collect(path: string[], value: JsonValue, leaves: MetadataLeaf[]): void {
  if (isJsonObject(value)) {
    for (const [key, member] of Object.entries(value)) collect([...path, key], member, leaves);
    return;
  }
  if (Array.isArray(value)) {
    for (const item of value) collect(path, item, leaves);
    return;
  }
  if (value === null) return;
  leaves.push({ path, value, valueType: valueType(value) });
}

/** Leaves of the searchable groups: source, document, classification, extracted and custom. */
export function metadataLeaves(metadata: CanonicalMetadata): MetadataLeaf[] {
  const leaves: MetadataLeaf[] = [];
  collect(['source'], metadata.source as unknown as JsonValue, leaves);
  collect(['document'], metadata.document as unknown as JsonValue, leaves);
  collect(['classification', 'categories'], metadata.classification.categories, leaves);
  collect(['extracted'], metadata.extracted as unknown as JsonValue, leaves);
  collect(['custom'], metadata.custom, leaves);
  return leaves;
}
