// String tables: every string found by its id and its id by the string, whatever its script or length, and
// nothing found that was not put in.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { endOf, idOf, listSize, listStrings, splitBytes, stringAt, StringInterner, stringTable, tableHas, tableStrings } from '../../src/text/string-table.ts';

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

test('lookups find strings beyond the BMP and their look-alikes apart, with the index at most three quarters full', () => {
  const table = stringTable(['\uFF41', '\u{1D518}', '\uE000', 'a', 'A']);
  ['\uFF41', '\u{1D518}', '\uE000', 'a', 'A'].forEach((value, id) => assert.equal(idOf(table, value), id));
  assert.equal(idOf(table, '\u{1D519}'), -1);
  const large = stringTable(Array.from({ length: 3000 }, (_, i) => `w${i}`));
  assert.ok(large.slots.length >= (3000 * 4) / 3 && (large.slots.length & (large.slots.length - 1)) === 0);
  assert.equal(large.slots.filter((slot) => slot !== 0).length, 3000);
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
  assert.equal(listStrings(copy)[3], 'café');
  assert.equal(new StringInterner().internAt(copy, 3), 0);
});

test('an interner gives each distinct string one id in order of first sight, from bytes or from text', () => {
  const interner = new StringInterner();
  const encoded = new TextEncoder().encode(`xx${WORDS.join('|')}yy`);
  // Intern every word from its byte range inside a larger buffer, then again as text: the same ids.
  const ranges: [number, number][] = [];
  let at = 2;
  for (const word of WORDS) {
    const length = new TextEncoder().encode(word).length;
    ranges.push([at, at + length]);
    at += length + 1;
  }
  assert.deepEqual(ranges.map(([from, to]) => interner.intern(encoded, from, to)), WORDS.map((_, id) => id));
  assert.deepEqual(WORDS.map((word) => interner.internString(word)), WORDS.map((_, id) => id));
  assert.equal(interner.size, WORDS.length);
  // Thousands more grow its pool and table past their first sizes; the early ids hold.
  const many = Array.from({ length: 5000 }, (_, i) => `term${i}`);
  const ids = many.map((term) => interner.internString(term));
  assert.deepEqual(ids, many.map((_, i) => WORDS.length + i));
  assert.equal(interner.internString('café'), WORDS.indexOf('café'));
  const table = interner.table();
  assert.deepEqual(tableStrings(table), [...WORDS, ...many]);
  assert.equal(idOf(table, 'term4999'), WORDS.length + 4999);
  assert.deepEqual(tableStrings(interner.strings()).slice(0, 3), WORDS.slice(0, 3));
});

test('separator-joined bytes read as a list in place, empty strings included', () => {
  const joined = new TextEncoder().encode('akaun\nbaki\n\ncafé\n日本');
  const list = splitBytes(joined, 0x0a);
  assert.equal(list.size, 5);
  assert.deepEqual(listStrings(list), ['akaun', 'baki', '', 'café', '日本']);
  assert.equal(list.bytes, joined, 'not copied');
  assert.equal(splitBytes(new Uint8Array(0), 0x0a).size, 0);
  const interner = new StringInterner();
  for (let id = 0; id < list.size; id++) interner.intern(list.bytes, list.starts[id], endOf(list, id));
  assert.deepEqual(tableStrings(interner.table()), ['akaun', 'baki', '', 'café', '日本']);
});
