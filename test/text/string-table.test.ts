// String tables: every string found by its id and its id by the string, whatever its script or length, and
// nothing found that was not put in.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { idOf, listSize, listString, stringAt, stringTable, tableHas, tableStrings } from '../../src/text/string-table.ts';

const WORDS = ['akaun', 'baki', 'penyata', 'café', 'naïve', 'ringgit', 'a', 'ab', 'abc', '日本語', '𝔘nicode', 'z', 'ß', 'ａ'];

test('each string is found by id and by value; others are not found', () => {
  const table = stringTable(WORDS);
  assert.equal(table.size, WORDS.length);
  WORDS.forEach((word, id) => {
    assert.equal(stringAt(table, id), word);
    assert.equal(idOf(table, word), id);
  });
  assert.deepEqual(tableStrings(table), WORDS);
  for (const absent of ['', 'akau', 'akauns', 'cafe', 'b', 'abd', '日本', '𝔘', 'x'.repeat(500)]) assert.equal(idOf(table, absent), -1, absent);
  assert.ok(tableHas(table, 'ß') && !tableHas(table, 'ss'));
});

test('lookups order by code point, so characters beyond the BMP sort after every BMP character', () => {
  // In UTF-16 order '\u{1D518}' (a surrogate pair) sorts before '\uFF41'; in code point order it sorts after.
  const table = stringTable(['\uFF41', '\u{1D518}', '\uE000']);
  assert.deepEqual([...table.sorted].map((id) => stringAt(table, id)), ['\uE000', '\uFF41', '\u{1D518}']);
  for (const value of ['\uFF41', '\u{1D518}', '\uE000']) assert.ok(tableHas(table, value));
});

test('an empty table finds nothing; a repeated string is refused', () => {
  const empty = stringTable([]);
  assert.equal(empty.size, 0);
  assert.equal(idOf(empty, 'a'), -1);
  assert.throws(() => stringTable(['baki', 'akaun', 'baki']), /twice/);
});

test('a table survives a structured clone (the segment thread transfers it) and reads the same', () => {
  const table = stringTable(WORDS);
  const copy = structuredClone(table);
  WORDS.forEach((word, id) => assert.equal(idOf(copy, word), id));
  assert.equal(listSize(copy), WORDS.length);
  assert.equal(listString(copy, 3), 'café');
  assert.equal(listString(WORDS, 3), 'café');
});
