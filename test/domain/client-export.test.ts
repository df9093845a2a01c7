// hds-export/1 lines (domain/client-export.ts): a stored generation becomes a line an import accepts whole, and
// each way a line can be wrong is reported at its line and field.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exportedVersion, headerProblems, importedCanonical, versionProblems } from '../../src/domain/client-export.ts';
import type { GenerationRecord, ChunkRecord } from '../../src/domain/generation.ts';
import type { ExportedVersion } from '../../src/domain/client-export.ts';

const generation = {
  documentId: 'stmt-2024-03',
  versionKey: 'v1',
  jobId: 'job-1',
  createdAt: '2026-03-14T08:00:00.000Z',
  canonicalMetadata: {
    schema_version: '1',
    source: { filename: 'march.pdf', mime_type: 'application/pdf', extension: 'pdf' },
    document: { page_count: 2 },
    location: { page_number: null, page_label: null, chunk_index: null },
    classification: { status: 'completed', categories: ['statement'] },
    quality: { text_extraction: 'native', ocr_used: false, warnings: [] },
    extracted: { title: null, author: null, created_at: null },
    custom: { branch: 'KL' },
  },
  entities: {},
  embedding: {},
  deletion: { deleted: true, deletedAt: '2026-03-15T09:00:00.000Z', deletedBy: 'key-fingerprint' },
  generation: 7,
  state: 'active',
  stagedAt: '2026-03-14T08:00:01.000Z',
  activatedAt: '2026-03-14T08:00:02.000Z',
  chunkCount: 2,
} as unknown as GenerationRecord;
const chunks = [
  { chunkIndex: 0, page: 1, pageLabel: 'i', text: 'Opening balance RM 12,480.00', entities: {}, vector: new Float32Array(2), language: null },
  { chunkIndex: 1, page: 2, pageLabel: 'ii', text: 'Closing balance RM 12,450.00', entities: {}, vector: new Float32Array(2), language: null },
] as unknown as ChunkRecord[];

test('a stored generation exports to a line an import accepts, and imports back to the same canonical metadata', () => {
  const line = JSON.parse(JSON.stringify(exportedVersion(generation, chunks)));
  assert.deepEqual(line, {
    document_id: 'stmt-2024-03',
    version_id: 'v1',
    created_at: '2026-03-14T08:00:00.000Z',
    filename: 'march.pdf',
    canonical_metadata: Object.fromEntries(Object.entries(generation.canonicalMetadata).filter(([group]) => group !== 'custom')),
    custom_metadata: { branch: 'KL' },
    deleted: true,
    deleted_at: '2026-03-15T09:00:00.000Z',
    deleted_by: 'key-fingerprint',
    chunks: [
      { index: 0, page: 1, page_label: 'i', text: 'Opening balance RM 12,480.00' },
      { index: 1, page: 2, page_label: 'ii', text: 'Closing balance RM 12,450.00' },
    ],
  });
  assert.deepEqual(versionProblems(line, 2, 10), []);
  assert.deepEqual(importedCanonical(line as unknown as ExportedVersion), generation.canonicalMetadata);
  assert.deepEqual(headerProblems({ format: 'hds-export/1', client_id: 'dev-client', exported_at: '2026-03-16T00:00:00.000Z' }), []);
});

test('each wrong field of a line is named with its line', () => {
  const good = JSON.parse(JSON.stringify(exportedVersion(generation, chunks)));
  const cases: [string, Record<string, unknown>, (string | number)[]][] = [
    ['an unknown field', { ...good, extra: 1 }, ['extra']],
    ['no document_id', { ...good, document_id: undefined }, ['document_id']],
    ['an empty document_id', { ...good, document_id: ' ' }, ['document_id']],
    ['a numeric version_id', { ...good, version_id: 3 }, ['version_id']],
    ['created_at that is not an instant', { ...good, created_at: 'March' }, ['created_at']],
    ['canonical metadata without its groups', { ...good, canonical_metadata: { schema_version: '1' } }, ['canonical_metadata']],
    ['custom metadata inside the canonical', { ...good, canonical_metadata: { ...good.canonical_metadata, custom: {} } }, ['canonical_metadata']],
    ['custom metadata over the contract', { ...good, custom_metadata: { ['k'.repeat(200)]: 'x' } }, ['custom_metadata']],
    ['deleted as text', { ...good, deleted: 'yes' }, ['deleted']],
    ['deleted without deleted_at', { ...good, deleted_at: null }, ['deleted_at']],
    ['no chunks', { ...good, chunks: [] }, ['chunks']],
    ['more chunks than the limit', { ...good, chunks: [...good.chunks, { index: 2, page: null, page_label: null, text: 'more' }] }, ['chunks']],
    ['a chunk index twice', { ...good, chunks: [good.chunks[0], { ...good.chunks[1], index: 0 }] }, ['chunks', 1, 'index']],
    ['a chunk without text', { ...good, chunks: [good.chunks[0], { ...good.chunks[1], text: '  ' }] }, ['chunks', 1, 'text']],
    ['page 0', { ...good, chunks: [{ ...good.chunks[0], page: 0 }] }, ['chunks', 0, 'page']],
    ['rows that end before they start', { ...good, chunks: [{ ...good.chunks[0], rows: { first: 9, last: 3 } }] }, ['chunks', 0, 'rows']],
    ['rows with a key of their own', { ...good, chunks: [{ ...good.chunks[0], rows: { first: 1, last: 3, sheet: 'x' } }] }, ['chunks', 0, 'rows']],
  ];
  for (const [what, line, path] of cases) {
    const problems = versionProblems(JSON.parse(JSON.stringify(line)), 5, 2);
    assert.ok(problems.length > 0, `${what} is refused`);
    assert.ok(problems.some((problem) => JSON.stringify(problem.loc) === JSON.stringify(['body', 'line 5', ...path])), `${what}: ${JSON.stringify(problems.map((problem) => problem.loc))}`);
    for (const problem of problems) assert.match(problem.msg, /^line 5: /);
  }
  assert.deepEqual(headerProblems({ format: 'hds-export/2', client_id: 'c', exported_at: '2026-03-16T00:00:00Z' }).map((problem) => problem.loc), [['body', 'line 1', 'format']]);
  assert.equal(headerProblems([]).length, 1);
});

test('a sheet chunk exports its rows, and a line with them is accepted; a chunk without rows exports none', () => {
  const sheet = [{ ...chunks[0]!, rows: { first: 3, last: 40 } }, chunks[1]!] as ChunkRecord[];
  const line = JSON.parse(JSON.stringify(exportedVersion(generation, sheet)));
  assert.deepEqual(line.chunks.map((chunk: Record<string, unknown>) => chunk.rows), [{ first: 3, last: 40 }, undefined]);
  assert.deepEqual(versionProblems(line, 2, 10), []);
});
