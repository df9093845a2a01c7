// The values a Document Version holds at a filterable path ("Filterable fields" of SPEC.md): what filters
// match against, facets count and sorting orders by. One reader per path, so the three read a field alike.

import { isJsonObject } from '../domain/canonical-metadata.ts';
import { isEntityType } from '../domain/entities.ts';
import type { EntityType } from '../domain/entities.ts';
import { CUSTOM_PATH_PREFIX, quotedCustomKey } from '../domain/custom-path.ts';
import type { ServedChunk, ServedVersion } from '../serving/served-types.ts';

export const TOP_LEVEL_FILTER_KEYS = ['document_id', 'created_at'] as const;
export const SYSTEM_FILTER_KEYS = [
  'source.filename',
  'source.mime_type',
  'source.extension',
  'location.page_number',
  'location.page_label',
  'location.chunk_index',
  'document.page_count',
  'classification.categories',
  'classification.status',
  'quality.text_extraction',
  'quality.ocr_used',
  'extracted.title',
  'extracted.author',
  'extracted.created_at',
] as const;
export type SystemKey = (typeof SYSTEM_FILTER_KEYS)[number];

/** Values of a field on a version, and on one of its chunks for the chunk-level (location) keys. */
export type FieldReader = (version: ServedVersion, chunk: ServedChunk | null) => unknown[];

export function flat(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

export function customValue(custom: unknown, key: string): unknown {
  if (!isJsonObject(custom)) return undefined;
  // The paths updated_fields lists: a dotted or empty key quoted as one key.
  const quoted = quotedCustomKey(key);
  if (quoted !== null) return Object.hasOwn(custom, quoted) ? custom[quoted] : undefined;
  if (key in custom) return custom[key]; // a literal key (spaces and dots allowed)
  let current: unknown = custom;
  for (const part of key.split('.')) {
    if (!isJsonObject(current) || !(part in current)) return undefined;
    current = current[part];
  }
  return current;
}

export function isChunkLevel(key: SystemKey): boolean {
  return key.startsWith('location.');
}

export function systemReader(key: SystemKey): FieldReader {
  const [group, field] = key.split('.');
  if (group === 'location') {
    return (_version, chunk) => {
      if (!chunk) return [];
      if (field === 'page_number') return flat(chunk.page);
      if (field === 'page_label') return flat(chunk.pageLabel);
      return flat(chunk.chunkIndex);
    };
  }
  return (version) => {
    const groupValue = (version.canonicalMetadata as unknown as Record<string, unknown>)[group];
    return isJsonObject(groupValue) ? flat(groupValue[field]) : [];
  };
}

export function entityReader(type: EntityType): FieldReader {
  return (version) => version.entities[type] ?? [];
}

export function customReader(customKey: string): FieldReader {
  return (version) => flat(customValue(version.canonicalMetadata.custom, customKey));
}

/** The kinds of path a facet or sort key names, resolved from what the caller wrote. */
export type ResolvedPath =
  | { kind: 'document_id' }
  | { kind: 'created_at' }
  | { kind: 'system'; key: SystemKey }
  | { kind: 'entity'; type: EntityType }
  | { kind: 'custom'; key: string };

/**
 * A path as filters spell it (a system key with or without `metadata.`), or null when it names no filterable
 * field. Reserved keys name none (the filters' own message for them stays in filters.ts).
 */
export function resolvePath(raw: string): ResolvedPath | null {
  if (raw === 'document_id') return { kind: 'document_id' };
  if (raw === 'created_at') return { kind: 'created_at' };
  if (raw.startsWith(CUSTOM_PATH_PREFIX)) {
    const key = raw.slice(CUSTOM_PATH_PREFIX.length);
    return key === '' ? null : { kind: 'custom', key };
  }
  const key = raw.startsWith('metadata.') ? raw.slice('metadata.'.length) : raw;
  if ((SYSTEM_FILTER_KEYS as readonly string[]).includes(key)) return { kind: 'system', key: key as SystemKey };
  if (isEntityType(raw)) return { kind: 'entity', type: raw };
  return null;
}

/**
 * Reads every value a version holds at a path: a location key's values are those of all its chunks (`chunks` is
 * called only for those). Made once per path, then called per version (facets and sorting read many versions).
 */
export function versionReader(path: ResolvedPath, chunks: (version: ServedVersion) => readonly ServedChunk[]): (version: ServedVersion) => unknown[] {
  switch (path.kind) {
    case 'document_id':
      return (version) => [version.documentId];
    case 'created_at':
      return (version) => [version.createdAt];
    case 'entity': {
      const read = entityReader(path.type);
      return (version) => read(version, null);
    }
    case 'custom': {
      const read = customReader(path.key);
      return (version) => read(version, null);
    }
    case 'system': {
      const read = systemReader(path.key);
      if (!isChunkLevel(path.key)) return (version) => read(version, null);
      return (version) => chunks(version).flatMap((chunk) => read(version, chunk));
    }
  }
}
