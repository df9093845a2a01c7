// CSV/TSV record numbers of lines (src/ingest/parsers/csv-records.ts): quoted line breaks, escaped quotes, blank
// lines as rows of their own, and an unclosed quote giving no numbers rather than wrong ones.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { csvLineRecords, hasRecords } from '../../src/ingest/parsers/csv-records.ts';

test('each line is its own record, a blank line too, the header being row 1', () => {
  assert.deepEqual(csvLineRecords('name,amount\nAminah,10\n\nBala,20', 'csv'), [1, 2, 3, 4]);
  assert.deepEqual(csvLineRecords('name,amount\nAminah,10\n', 'csv'), [1, 2, 3], 'the empty line after the last line break');
});

test('a quoted field with line breaks keeps its lines in one record; escaped quotes do not close it', () => {
  const text = 'date,note\n2024-01-02,"first line\nsecond ""quoted"" line\nthird"\n2024-01-03,plain\n2024-01-04;"a\nb"';
  assert.deepEqual(csvLineRecords(text, 'csv'), [1, 2, 2, 2, 3, 4, 4]);
});

test('a quote inside an unquoted field is text, not the start of a quoted field', () => {
  assert.deepEqual(csvLineRecords('size\n12" pipe\n14" pipe', 'csv'), [1, 2, 3]);
});

test('TSV fields end at tabs: a quote after a tab opens a field, one after a comma does not', () => {
  const text = 'a\t"x\ny"\nb,"z\nc';
  assert.deepEqual(csvLineRecords(text, 'tsv'), [1, 1, 2, 3], 'the quote after the tab opens a field; the one after the comma is text');
  assert.equal(csvLineRecords(text, 'csv'), null, 'in a CSV file the quote after the comma opens a field that never closes');
});

test('a quoted field that never closes leaves the file without record numbers', () => {
  assert.equal(csvLineRecords('a,b\n"open\nnever closed', 'csv'), null);
});

test('only CSV and TSV files are read as records', () => {
  assert.deepEqual(['csv', 'tsv', 'txt', 'md'].map(hasRecords), [true, true, false, false]);
});
