// Builds in-memory generations (as the durable store would load them) for snapshot and lane tests.

import type { LoadedGeneration } from '../../src/domain/generation.ts';
import { emptyEntities } from '../../src/domain/entities.ts';

let nextGeneration = 1;

/** One generation of a document with one chunk per text; `vectors` default to a fixed unit vector. */
export function loadedGeneration(documentId: string, texts: string[], options: { versionKey?: string; dimensions?: number; vectors?: Float32Array[] } = {}): LoadedGeneration {
  const dimensions = options.dimensions ?? 4;
  const unit = new Float32Array(dimensions);
  unit[0] = 1;
  return {
    generation: nextGeneration++,
    documentId,
    versionKey: options.versionKey ?? documentId,
    jobId: null,
    state: 'active',
    createdAt: new Date(0).toISOString(),
    stagedAt: new Date(0).toISOString(),
    activatedAt: null,
    canonicalMetadata: {
      schema_version: '2',
      source: { filename: null, mime_type: 'text/plain', extension: 'txt' },
      document: { page_count: null },
      location: { page_number: null, page_label: null, chunk_index: null },
      classification: { status: 'disabled', categories: [] },
      quality: { text_extraction: 'native', ocr_used: false, warnings: [] },
      extracted: { title: null, author: null, created_at: null },
      custom: {},
    },
    entities: emptyEntities(),
    embedding: {},
    deletion: { deleted: false, deletedAt: null, deletedBy: null },
    chunkCount: texts.length,
    manifest: {},
    chunks: texts.map((text, chunkIndex) => ({ chunkIndex, page: null, pageLabel: null, text, entities: emptyEntities(), vector: options.vectors?.[chunkIndex] ?? unit, language: null })),
    leaves: [],
  };
}
