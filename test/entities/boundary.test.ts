import assert from 'node:assert/strict';
import { test } from 'node:test';
import { wordStartMatches } from '../../src/ingest/entities/boundary.ts';
import { createPhraseMatcher } from '../../src/ingest/entities/phrase-matcher.ts';
import type { PhraseHit } from '../../src/ingest/entities/phrase-matcher.ts';

const CURRENCY = /(?:RM|USD)\d+/gu;
const starts = (text: string, joiners = '') => [...wordStartMatches(text, CURRENCY, joiners)].map((m) => `${m.index}:${m[0]}`);

test('word-start matches skip matches inside a word and resume one character later', () => {
  assert.deepEqual(starts('RM5 xRM6 USD7 -RM8'), ['0:RM5', '9:USD7', '15:RM8']);
  assert.deepEqual(starts('RM5 xRM6 -RM8', '-'), ['0:RM5']);
  // A rejected start inside "xRMRM9" lets the match one character later count when it starts a word of its own.
  assert.deepEqual(starts('aRM1RM2 RM3'), ['8:RM3']);
});

test('scans of one pattern may interleave and nest, and leave its lastIndex at 0', () => {
  const first = 'RM1 RM2 RM3';
  const second = 'USD10 xRM0 USD20';
  const outer = wordStartMatches(first, CURRENCY);
  const seen: string[] = [];
  for (const m of outer) {
    seen.push(m[0]);
    assert.equal(CURRENCY.lastIndex, 0);
    for (const inner of wordStartMatches(second, CURRENCY)) seen.push(inner[0]);
  }
  assert.deepEqual(seen, ['RM1', 'USD10', 'USD20', 'RM2', 'USD10', 'USD20', 'RM3', 'USD10', 'USD20']);
  assert.equal(CURRENCY.lastIndex, 0);
  // A scan left unfinished leaves nothing behind either.
  wordStartMatches(first, CURRENCY).next();
  assert.equal(CURRENCY.lastIndex, 0);
  assert.deepEqual(starts(first), ['0:RM1', '4:RM2', '8:RM3']);
});

test('a phrase matcher finds every hit while a hit callback runs another matcher', () => {
  const places = createPhraseMatcher(['Kuala Lumpur', 'Johor Bahru', 'Ipoh']);
  const banks = createPhraseMatcher(['Bank Negara', 'Maybank']);
  const text = 'From Kuala Lumpur to Ipoh, then Johor Bahru.';
  const hits: string[] = [];
  places.find(text, (hit: PhraseHit) => {
    hits.push(hit.canonical);
    banks.find('Maybank and Bank Negara Malaysia', (inner: PhraseHit) => {
      hits.push(inner.canonical);
      return true;
    });
    return true;
  });
  assert.deepEqual(hits, ['Kuala Lumpur', 'Maybank', 'Bank Negara', 'Ipoh', 'Maybank', 'Bank Negara', 'Johor Bahru', 'Maybank', 'Bank Negara']);
});
