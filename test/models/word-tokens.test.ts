import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { wordRuns, wordTokens } from '../../src/models/word-tokens.ts';

/** The definition wordRuns reads by hand: stored vectors and classifier scores depend on it matching exactly. */
const WORD = /[\p{L}\p{N}\p{M}]+/gu;
const byRegex = (text: string): string[] => text.match(WORD) ?? [];

const DATASETS = new URL('../../../shared/datasets/', import.meta.url);

function corpusTexts(): string[] {
  const texts = readFileSync(new URL('malay-text/karangan-sekolah.txt', DATASETS), 'utf8').split('\n');
  for (const name of ['scifact', 'cranfield', 'malay-squad-supervised']) {
    const lines = readFileSync(new URL(`${name}/corpus.jsonl`, DATASETS), 'utf8').split('\n').filter(Boolean).slice(0, 300);
    for (const line of lines) {
      const document = JSON.parse(line) as { title?: string; text: string };
      texts.push(`${document.title ?? ''}\n\n${document.text}`);
    }
  }
  return texts;
}

test('word runs are the runs of letters, digits and marks of real English and Malay texts', () => {
  const texts = corpusTexts();
  assert.ok(texts.length > 900);
  for (const text of texts) assert.deepEqual(wordRuns(text), byRegex(text));
});

test('word runs read astral letters as one character and lone surrogates, symbols and spaces as separators', () => {
  const cases = [
    'Ａｍｏｕｎｔ２０２０ ＲＭ', // full-width letters and digits
    '𝐀𝐁𝐂 𝟏𝟐 x😀y', // mathematical letters and digits (astral), an emoji between letters
    'a\ud800b \udc00c \ud800', // lone high and low surrogates
    'e\u0301t\u0301e café naïve', // combining marks inside words
    'Ⅻ ½ ² ١٢٣ 漢字 ไทย', // letter numbers, fractions, superscripts, Arabic-Indic digits, CJK, Thai
    '\u00a0\u2028tab\there-dash_under.dot', // separators and punctuation
    '',
  ];
  for (const text of cases) assert.deepEqual(wordRuns(text), byRegex(text), JSON.stringify(text));
  assert.deepEqual(wordRuns('𝐀𝐁𝐂 x😀y'), ['𝐀𝐁𝐂', 'x', 'y']);
});

test('word runs agree with the regex on generated text of every plane', () => {
  let seed = 12345;
  const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 0x100000000;
  for (let round = 0; round < 3000; round++) {
    let text = '';
    const length = Math.floor(next() * 24);
    for (let i = 0; i < length; i++) {
      const pick = next();
      if (pick < 0.4) text += String.fromCharCode(32 + Math.floor(next() * 95));
      else if (pick < 0.7) text += String.fromCharCode(0x80 + Math.floor(next() * 0x3000));
      else if (pick < 0.9) text += String.fromCodePoint(0x10000 + Math.floor(next() * 0x20000));
      else text += String.fromCharCode(0xd800 + Math.floor(next() * 0x800));
    }
    assert.deepEqual(wordRuns(text), byRegex(text), JSON.stringify(text));
  }
});

test('word tokens are normalized (NFKC) and lower-cased before they are split', () => {
  assert.deepEqual(wordTokens('Invoice No.: ＩＮＶ-２０２４ Café'), ['invoice', 'no', 'inv', '2024', 'café']);
});
