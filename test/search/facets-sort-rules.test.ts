// The pure rules of facets.ts and sort.ts over hand-made versions: what a version holds at a path and how the
// values are counted and ordered. The end-to-end behaviour over the real service is facets-sort.test.ts's.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countFacets, parseFacets } from '../../src/search/facets.ts';
import { parseSort, sortByKeys } from '../../src/search/sort.ts';
import { RequestValidationError } from '../../src/domain/validation-error.ts';
import { emptyEntities } from '../../src/domain/entities.ts';
import type { ServedChunk, ServedVersion } from '../../src/serving/served-types.ts';

function version(id: string, custom: Record<string, unknown>, pages: (number | null)[] = []): ServedVersion {
  return {
    documentId: id,
    versionId: id,
    identity: `${id}\u0000${id}`,
    generation: 1,
    jobId: null,
    createdAt: '2026-03-14T09:00:00.000Z',
    activatedAt: null,
    canonicalMetadata: {
      schema_version: '2',
      source: { filename: `${id}.pdf`, mime_type: 'application/pdf', extension: 'pdf' },
      document: { page_count: pages.length },
      location: { page_number: null, page_label: null, chunk_index: null },
      classification: { status: 'completed', categories: ['notice'] },
      quality: { text_extraction: 'native', ocr_used: false, warnings: [] },
      extracted: { title: null, author: null, created_at: null },
      custom: custom as never,
    },
    entities: { ...emptyEntities(), organizations: id === 'a' ? ['Bank Negara', 'Bank Negara'] : [] },
    embedding: {},
    deletion: { deleted: false, deletedAt: null, deletedBy: null },
    evidence: { state: 'verified' },
    lanesDigest: null,
    entitiesDigest: null,
    leaves: [],
    firstOrdinal: 0,
    chunkCount: pages.length,
  } as ServedVersion;
}

/** A version's chunks by the pages given to `version` (the location keys read them). */
const pagesOf = new Map<string, (number | null)[]>();
const chunks = (v: ServedVersion): ServedChunk[] => (pagesOf.get(v.documentId) ?? []).map((page, i) => ({ ordinal: i, chunkId: `c${i}`, chunkIndex: i, page, pageLabel: null, version: v, textHash: 0 }));

test('a version counts once per distinct value it holds, never where it holds none; 1 and "1" are two values', () => {
  const versions = [version('a', { tag: ['x', 'x', 'y'], code: 1 }), version('b', { tag: 'x', code: '1' }), version('c', { tag: null, code: { nested: 1 } })];
  pagesOf.set('a', [1, 1, 2]);
  pagesOf.set('b', [null]);
  const facets = countFacets(parseFacets(['metadata.custom.tag', 'metadata.custom.code', 'organizations', 'location.page_number'], ['t']), versions, 10, false, chunks);
  assert.deepEqual(facets['metadata.custom.tag'].values, [{ value: 'x', count: 2 }, { value: 'y', count: 1 }]);
  // Ties by value ascending: numbers before strings.
  assert.deepEqual(facets['metadata.custom.code'].values, [{ value: 1, count: 1 }, { value: '1', count: 1 }]);
  assert.deepEqual(facets.organizations.values, [{ value: 'Bank Negara', count: 1 }]);
  assert.deepEqual(facets['location.page_number'].values, [{ value: 1, count: 1 }, { value: 2, count: 1 }]);
});

test('date buckets are ISO prefixes; a value that is no ISO date is in none', () => {
  const versions = [version('a', { due: '2026-03-14' }), version('b', { due: '2026-03-30T23:00:00Z' }), version('c', { due: 'next week' }), version('d', { due: 20260314 })];
  const [month, day] = [parseFacets([{ field: 'metadata.custom.due', interval: 'month' }], ['t']), parseFacets([{ field: 'metadata.custom.due', interval: 'day' }], ['t'])];
  assert.deepEqual(countFacets(month, versions, 10, false, chunks)['metadata.custom.due'].values, [{ value: '2026-03', count: 2 }]);
  assert.deepEqual(countFacets(day, versions, 10, false, chunks)['metadata.custom.due'].values, [{ value: '2026-03-14', count: 1 }, { value: '2026-03-30', count: 1 }]);
  assert.deepEqual(countFacets(parseFacets([{ field: 'created_at', interval: 'year' }], ['t']), versions, 10, true, chunks).created_at, { values: [{ value: '2026', count: 4 }], other_count: 0, is_lower_bound: true });
});

test('facet_limit keeps the most frequent and other_count sums the counts beyond it', () => {
  const versions = ['p', 'q', 'q', 'r', 'r', 'r', 's'].map((team, i) => version(`v${i}`, { team }));
  const counts = countFacets(parseFacets(['metadata.custom.team'], ['t']), versions, 2, false, chunks)['metadata.custom.team'];
  assert.deepEqual(counts, { values: [{ value: 'r', count: 3 }, { value: 'q', count: 2 }], other_count: 2, is_lower_bound: false });
});

test('bad facets are every one reported with where it is', () => {
  assert.throws(
    () => parseFacets(['nope', { field: 'created_at', interval: 'week' }, { field: 'source.filename', interval: 'day' }, 'organizations', 'organizations', 7], ['body', 'facets']),
    (error: RequestValidationError) => {
      assert.deepEqual(error.details.map((detail) => detail.loc.join('.')), ['body.facets.0', 'body.facets.1.interval', 'body.facets.2.interval', 'body.facets.4', 'body.facets.5']);
      return true;
    },
  );
});

test('sorting: missing values last in both orders, a list by its first value in the order, ties in the given order', () => {
  const rows = [version('none', {}), version('low', { n: 1 }), version('list', { n: [0, 9] }), version('tie', { n: 1 }), version('date', { n: '2026-01-01' })];
  const ids = (order: 'asc' | 'desc') => sortByKeys(rows, parseSort([{ field: 'metadata.custom.n', order }], ['t']), (row) => row, chunks).map((row) => row.documentId);
  // Numbers before ISO dates; the list sorts by 0 ascending and by 9 descending.
  assert.deepEqual(ids('asc'), ['list', 'low', 'tie', 'date', 'none']);
  assert.deepEqual(ids('desc'), ['date', 'list', 'low', 'tie', 'none']);
  assert.throws(() => parseSort([{ field: 'organizations', order: 'asc' }], ['t']), RequestValidationError);
  assert.throws(() => parseSort([{ field: 'created_at', order: 'asc' }, { field: 'created_at', order: 'desc' }], ['t']), RequestValidationError);
});
