// The CLI's search lines say where each passage is: its page, or for a sheet or CSV file its rows, after the
// sheet's name when the hit's location names that page.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { placeOf, renderSearch } from '../../src/cli/render.ts';
import type { SearchResponse } from '../../clients/typescript/src/index.ts';

const plain = (_style: unknown, text: string) => text;

test('a page is "p.N"; a sheet passage names its sheet and rows; a CSV passage its rows; no page, nothing', () => {
  assert.equal(placeOf({ page: 12 }, undefined), 'p.12 ');
  assert.equal(placeOf({ page: 2, rows: { first: 57, last: 70 } }, { page_number: 2, page_label: 'Income Slab' }), 'Income Slab rows 57-70 ');
  assert.equal(placeOf({ page: 3, rows: { first: 4, last: 4 } }, { page_number: 2, page_label: 'Income Slab' }), 'sheet 3 row 4 ', "another sheet than the hit's: its number");
  assert.equal(placeOf({ page: null, rows: { first: 2, last: 30 } }, { page_number: null, page_label: null }), 'rows 2-30 ');
  assert.equal(placeOf({ page: null }, undefined), '');
});

test('renderSearch puts the place before each passage', () => {
  const answer = {
    results: [
      {
        rank: 1,
        document_version: { document_id: 'tax-rates', version_id: null },
        canonical_metadata: { source: { filename: 'rates.xlsx' }, location: { page_number: 1, page_label: 'Income Slab', chunk_index: 0 } },
        content_evidence: { items: [{ text: 'Chargeable income 5,001 - 20,000 at 1%', page: 1, rows: { first: 1, last: 18 }, highlights: [] }], total: 1, truncated: false },
        metadata_evidence: { items: [], total: 0, truncated: false },
      },
    ],
    meta: { total: 1, total_is_lower_bound: false, offset: 0, has_more: false, query_time_ms: 3, retrieval: { alpha: 0.5, reranked: false } },
  } as unknown as SearchResponse;
  assert.match(renderSearch(answer, plain as never), /^ {3}Income Slab rows 1-18 Chargeable income 5,001 - 20,000 at 1%$/m);
});
