import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileFilters } from '../../src/search/filters.ts';
import { ServiceError } from '../../src/domain/service-error.ts';
import type { ServedChunk, ServedVersion } from '../../src/serving/served-types.ts';
import { emptyEntities } from '../../src/domain/entities.ts';

function version(overrides: Partial<ServedVersion> = {}): ServedVersion {
  const entities = { ...emptyEntities(), organizations: ['Bank Negara Malaysia'] };
  const base: ServedVersion = {
    documentId: 'doc-1',
    versionId: 'v1',
    identity: 'doc-1\u0000v1',
    generation: 1,
    jobId: null,
    createdAt: '2024-03-01T10:00:00.000Z',
    activatedAt: null,
    canonicalMetadata: {
      schema_version: '2',
      source: { filename: 'march.pdf', mime_type: 'application/pdf', extension: 'pdf' },
      document: { page_count: 3 },
      location: { page_number: null, page_label: null, chunk_index: null },
      classification: { status: 'completed', categories: ['bank_statement', 'notice'] },
      quality: { text_extraction: 'native', ocr_used: false, warnings: [] },
      extracted: { title: null, author: 'Finance', created_at: null },
      custom: { 'cost centre': 'KL-01', region: { name: 'north' }, 'a.b': 'dotted', year: 2024 },
    },
    entities,
    embedding: {},
    deletion: { deleted: false, deletedAt: null, deletedBy: null },
    evidence: { state: 'verified' },
    lanesDigest: null,
    entitiesDigest: null,
    leaves: [],
    firstOrdinal: 0,
    chunkCount: 0,
    ...overrides,
  };
  return base;
}

function chunk(v: ServedVersion, page: number | null, chunkIndex = 0): ServedChunk {
  return { ordinal: chunkIndex, chunkId: `g1-c${chunkIndex}`, chunkIndex, page, pageLabel: null, version: v, textHash: 0 };
}

test('scalar filters match exactly, lists match any value, keys are ANDed', () => {
  const v = version();
  assert.equal(compileFilters({ document_id: 'doc-1' }).matchesVersion(v), true);
  assert.equal(compileFilters({ document_id: 'doc-2' }).matchesVersion(v), false);
  assert.equal(compileFilters({ document_id: ['doc-2', 'doc-1'] }).matchesVersion(v), true);
  assert.equal(compileFilters({ 'source.extension': 'pdf', 'document.page_count': 3 }).matchesVersion(v), true);
  assert.equal(compileFilters({ 'source.extension': 'pdf', 'document.page_count': 4 }).matchesVersion(v), false);
  assert.equal(compileFilters({ 'metadata.source.filename': 'march.pdf' }).matchesVersion(v), true);
  assert.equal(compileFilters({ 'classification.categories': 'notice' }).matchesVersion(v), true);
  assert.equal(compileFilters({ 'quality.ocr_used': false }).matchesVersion(v), true);
  assert.equal(compileFilters({ created_at: '2024-03-01T10:00:00Z' }).matchesVersion(v), true, 'same instant, other spelling');
  for (const day of ['2024-02-29T10:00:00Z', '2000-02-29', '2026-04-30T23:59:59Z', '2026-12-31']) assert.doesNotThrow(() => compileFilters({ created_at: day }), day);
});

test('custom keys need the metadata.custom. prefix and may contain spaces, dots or nesting', () => {
  const v = version();
  assert.equal(compileFilters({ 'metadata.custom.cost centre': 'KL-01' }).matchesVersion(v), true);
  assert.equal(compileFilters({ 'metadata.custom.a.b': 'dotted' }).matchesVersion(v), true);
  // The paths updated_fields lists: a dotted or empty key quoted as one key.
  assert.equal(compileFilters({ 'metadata.custom."a.b"': 'dotted' }).matchesVersion(v), true);
  assert.equal(compileFilters({ 'metadata.custom.region.name': 'north' }).matchesVersion(v), true);
  assert.equal(compileFilters({ 'metadata.custom."region.name"': 'north' }).matchesVersion(v), false, 'a quoted key is one key, never a path');
  assert.equal(compileFilters({ 'metadata.custom.""': 'empty' }).matchesVersion({ ...v, canonicalMetadata: { ...v.canonicalMetadata, custom: { '': 'empty' } } } as typeof v), true);
  assert.equal(compileFilters({ 'metadata.custom.""': 'empty' }).matchesVersion(v), false);
  assert.equal(compileFilters({ 'metadata.custom.region.name': 'north' }).matchesVersion(v), true);
  assert.equal(compileFilters({ 'metadata.custom.year': 2024 }).matchesVersion(v), true);
  assert.equal(compileFilters({ 'metadata.custom.year': '2024' }).matchesVersion(v), false, 'exact: types differ');
  assert.throws(() => compileFilters({ 'cost centre': 'KL-01' }), (error: ServiceError) => error.code === 'invalid_filter');
  assert.throws(() => compileFilters({ region: 'north' }), (error: ServiceError) => error.code === 'invalid_filter');
});

test('entity keys take one string or a list', () => {
  const v = version();
  assert.equal(compileFilters({ organizations: 'Bank Negara Malaysia' }).matchesVersion(v), true);
  assert.equal(compileFilters({ organizations: ['Maybank', 'bank negara malaysia'] }).matchesVersion(v), true);
  assert.equal(compileFilters({ persons: 'Ahmad' }).matchesVersion(v), false);
});

test('location keys constrain chunks, not versions', () => {
  const v = version();
  const filters = compileFilters({ 'location.page_number': 2 });
  assert.equal(filters.hasChunkConditions, true);
  assert.equal(filters.matchesVersion(v), true);
  assert.equal(filters.matchesChunk(chunk(v, 2)), true);
  assert.equal(filters.matchesChunk(chunk(v, 1)), false);
});

test('reserved keys, unsupported paths and non-scalar values are 400 invalid_filter', () => {
  for (const filters of [
    { client_id: 'other' },
    { deleted: true },
    { deleted_at: 'x' },
    { deleted_by: 'x' },
    { 'metadata.deleted': true },
    { 'source.unknown': 'x' },
    { 'metadata.custom.': 'x' },
    { 'metadata.custom.k': { nested: true } },
    { document_id: [] },
    // Values of a type the key never holds (SPEC.md: document_id a string, created_at a datetime, entity keys strings).
    { document_id: 5 },
    { document_id: ['doc-1', 7] },
    { persons: 5 },
    { organizations: true },
    { created_at: 5 },
    { created_at: 'notadate' },
    { 'metadata.extracted.created_at': 'yesterday' },
    // Calendar days that do not exist (Date.parse alone reads 2026-02-30 as 2 March).
    { created_at: '2026-02-30T00:00:00Z' },
    { created_at: '2026-02-29' },
    { created_at: ['2024-03-01T10:00:00Z', '2026-04-31T00:00:00+08:00'] },
  ]) {
    assert.throws(() => compileFilters(filters), (error: unknown) => error instanceof ServiceError && error.code === 'invalid_filter', JSON.stringify(filters));
  }
});
