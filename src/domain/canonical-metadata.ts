// canonical_metadata schema_version "2" (SPEC.md): the server-canonical metadata of a Document Version.
// Pure builders and readers; user-supplied members always live under `custom`, whatever their names.

import type { ClassificationStatus } from './job-states.ts';

/** How a document's text was obtained. */
export type TextExtraction = 'native' | 'ocr';

export const CANONICAL_SCHEMA_VERSION = '2';

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export interface CanonicalMetadata {
  schema_version: string;
  source: { filename: string | null; mime_type: string | null; extension: string | null };
  document: { page_count: number | null };
  /** Chunk position: null at version level; a search row shows its best evidence chunk's. */
  location: { page_number: number | null; page_label: string | null; chunk_index: number | null };
  classification: { status: ClassificationStatus; categories: string[] };
  quality: { text_extraction: TextExtraction; ocr_used: boolean; warnings: string[] };
  extracted: { title: string | null; author: string | null; created_at: string | null };
  custom: JsonObject;
}

/** The groups every stored canonical metadata has, each an object: what a read can rely on. */
const CANONICAL_GROUPS = ['source', 'document', 'location', 'classification', 'quality', 'extracted', 'custom'] as const;

/** Whether stored JSON has canonical metadata's shape (its groups as objects), so that readers may look into it. */
export function hasCanonicalShape(value: unknown): value is CanonicalMetadata {
  return isJsonObject(value) && CANONICAL_GROUPS.every((group) => isJsonObject(value[group])) && Array.isArray((value.classification as JsonObject).categories);
}

/** Canonical metadata of nothing: what stands for stored metadata that does not read (its generation is never served). */
export function blankCanonicalMetadata(): CanonicalMetadata {
  return {
    schema_version: CANONICAL_SCHEMA_VERSION,
    source: { filename: null, mime_type: null, extension: null },
    document: { page_count: null },
    location: { page_number: null, page_label: null, chunk_index: null },
    classification: { status: 'disabled', categories: [] },
    quality: { text_extraction: 'native', ocr_used: false, warnings: [] },
    extracted: { title: null, author: null, created_at: null },
    custom: {},
  };
}

/** Per-chunk location group; lives on chunks and evidence, not on the version snapshot. */
export interface ChunkLocation {
  page_number: number | null;
  page_label: string | null;
  chunk_index: number;
}

/** Groups of canonical metadata that are system state and never writable by callers. */
export const SYSTEM_METADATA_GROUPS = ['schema_version', 'source', 'document', 'location', 'classification', 'quality', 'extracted'] as const;
/** Reserved system state of SPEC.md "Client": never filters, never writable. */
export const RESERVED_KEYS = ['client_id', 'deleted', 'deleted_at', 'deleted_by'] as const;

export function isJsonObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
