// Tesseract's TSV read back into pages: words into lines, lines into paragraphs, blocks apart, blank words left
// out, and each page's mean word confidence.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readTesseractTsv, tsvPagesStarted } from '../../src/ingest/ocr-tsv.ts';

const HEADER = 'level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext';
const row = (level: number, page: number, block: number, paragraph: number, line: number, word: number, conf: number, text = '') => [level, page, block, paragraph, line, word, 0, 0, 10, 10, conf, text].join('\t');

test('words join into lines, lines into paragraphs, paragraphs and blocks apart; confidence is the mean of words', () => {
  const tsv = [
    HEADER,
    row(1, 1, 0, 0, 0, 0, -1),
    row(5, 1, 1, 1, 1, 1, 90, 'Opening'),
    row(5, 1, 1, 1, 1, 2, 80, 'balance'),
    row(5, 1, 1, 1, 2, 1, 70, 'RM'),
    row(5, 1, 1, 1, 2, 2, 60, '1,250.00'),
    row(5, 1, 1, 2, 1, 1, 50, 'Signed'),
    row(5, 1, 2, 1, 1, 1, 95, ' '),
    row(5, 1, 3, 1, 1, 1, 100, 'Footer'),
    row(1, 2, 0, 0, 0, 0, -1),
    row(1, 3, 0, 0, 0, 0, -1),
    row(5, 3, 1, 1, 1, 1, 40, 'faint'),
  ].join('\n');
  assert.equal(tsvPagesStarted(tsv), 3);
  const pages = readTesseractTsv(tsv);
  assert.equal(pages.length, 3);
  assert.equal(pages[0]!.text, 'Opening balance\nRM 1,250.00\n\nSigned\n\nFooter');
  assert.equal(pages[0]!.words, 6);
  assert.equal(pages[0]!.confidence, (90 + 80 + 70 + 60 + 50 + 100) / 6);
  assert.deepEqual(pages[1], { text: '', confidence: null, words: 0 }, 'a blank page keeps its place');
  assert.deepEqual(pages[2], { text: 'faint', confidence: 40, words: 1 });
});

test('output cut short mid-row and stray lines are read as far as they go', () => {
  const tsv = `${HEADER}\n${row(1, 1, 0, 0, 0, 0, -1)}\n${row(5, 1, 1, 1, 1, 1, 88, 'Whole')}\n5\t1\t1\t1\t1\t2\t0\tgarbage`;
  assert.deepEqual(readTesseractTsv(tsv), [{ text: 'Whole', confidence: 88, words: 1 }]);
  assert.deepEqual(readTesseractTsv(''), []);
});
