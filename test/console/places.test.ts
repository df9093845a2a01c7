// How the console names a place in a document (console/src/places.ts): a workbook's page is its sheet, named when the
// hit's canonical_metadata.location gives the label and numbered otherwise; a PDF page shows its logical label beside
// its number when they differ; a pageless place has no name.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isWorkbook, locationLabels, placeName, placeWithRows, rowsName } from '../../console/src/places.ts';

test('a workbook page is its sheet: "Sheet: <name>" when the location names it, "Sheet <n>" otherwise', () => {
  const metadata = { source: { extension: 'xlsx' }, location: { page_number: 2, page_label: 'Sales', chunk_index: 1 } };
  const labels = locationLabels(metadata);
  assert.equal(isWorkbook(metadata), true);
  assert.equal(isWorkbook({ source: { extension: 'xls' } }), true);
  assert.equal(placeName(2, labels, true), 'Sheet: Sales');
  assert.equal(placeName(3, labels, true), 'Sheet 3', 'another sheet of the same hit: its label was not given');
  assert.equal(placeName(null, labels, true), null);
});

test('a PDF page shows its label beside its number when they differ; text and CSV are not workbooks', () => {
  const labels = locationLabels({ source: { extension: 'pdf' }, location: { page_number: 5, page_label: 'iii', chunk_index: 0 } });
  assert.equal(placeName(5, labels, false), 'Page 5 (iii)');
  assert.equal(placeName(5, locationLabels({ location: { page_number: 5, page_label: '5', chunk_index: 0 } }), false), 'Page 5');
  assert.equal(placeName(6, labels, false), 'Page 6');
  assert.equal(placeName(undefined, labels, false), null);
  assert.equal(isWorkbook({ source: { extension: 'csv' } }), false);
  assert.equal(isWorkbook(null), false);
  assert.deepEqual(locationLabels({ location: { page_number: null, page_label: null, chunk_index: null } }), new Map());
  assert.deepEqual(locationLabels({ location: { page_number: 4, page_label: '', chunk_index: 0 } }), new Map(), 'an empty label names nothing');
});

test('a chunk of a sheet or a CSV file adds its rows to its place; a chunk without rows keeps the place alone', () => {
  assert.equal(rowsName({ first: 12, last: 40 }), 'rows 12–40');
  assert.equal(rowsName({ first: 7, last: 7 }), 'row 7');
  assert.equal(rowsName(undefined), null);
  assert.equal(placeWithRows('Sheet: Sheet1', { first: 12, last: 40 }), 'Sheet: Sheet1 · rows 12–40');
  assert.equal(placeWithRows(null, { first: 1, last: 12 }), 'Rows 1–12', 'a CSV file has no pages');
  assert.equal(placeWithRows('Page 3', undefined), 'Page 3');
  assert.equal(placeWithRows(null, null), null);
});
