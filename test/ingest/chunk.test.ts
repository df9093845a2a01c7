import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chunkPages } from '../../src/ingest/chunk.ts';

const paragraph = (n: number, words: number) => Array.from({ length: words }, (_, i) => `p${n}w${i}`).join(' ');

test('chunks never cross pages and carry page numbers and labels', () => {
  const chunks = chunkPages(
    [
      { pageNumber: 1, pageLabel: 'i', text: 'First page text.' },
      { pageNumber: 2, pageLabel: 'ii', text: 'Second page text.' },
    ],
    { targetChars: 1000, overlapChars: 100 },
  );
  assert.deepEqual(
    chunks.map((chunk) => [chunk.chunkIndex, chunk.page, chunk.pageLabel, chunk.text]),
    [
      [0, 1, 'i', 'First page text.'],
      [1, 2, 'ii', 'Second page text.'],
    ],
  );
});

test('paragraphs are packed up to the target size, and neighbours overlap at word boundaries', () => {
  const text = [paragraph(1, 30), paragraph(2, 30), paragraph(3, 30), paragraph(4, 30)].join('\n\n');
  const chunks = chunkPages([{ pageNumber: null, pageLabel: null, text }], { targetChars: 400, overlapChars: 60 });
  assert.ok(chunks.length >= 2);
  for (const chunk of chunks) {
    assert.equal(chunk.charCount, chunk.text.length);
    assert.ok(chunk.text.length <= 400 + 60, `chunk of ${chunk.text.length} chars`);
    assert.equal(chunk.page, null);
  }
  for (let i = 1; i < chunks.length; i++) {
    const firstWord = chunks[i].text.split(/\s+/)[0];
    assert.ok(chunks[i - 1].text.includes(firstWord), 'the next chunk starts with words of the previous one');
  }
  const all = chunks.map((chunk) => chunk.text).join(' ');
  for (let n = 1; n <= 4; n++) assert.ok(all.includes(`p${n}w29`), `paragraph ${n} kept`);
});

test('an oversized paragraph is split at sentences, then words; empty pages give no chunks', () => {
  const long = Array.from({ length: 40 }, (_, i) => `Sentence number ${i} talks about the ledger.`).join(' ');
  const chunks = chunkPages(
    [
      { pageNumber: 1, pageLabel: null, text: long },
      { pageNumber: 2, pageLabel: null, text: '   \n\n  ' },
      { pageNumber: 3, pageLabel: null, text: 'x'.repeat(2500) },
    ],
    { targetChars: 300, overlapChars: 0 },
  );
  assert.ok(chunks.filter((chunk) => chunk.page === 1).every((chunk) => chunk.text.length <= 300));
  assert.equal(chunks.some((chunk) => chunk.page === 2), false);
  const page3 = chunks.filter((chunk) => chunk.page === 3);
  assert.equal(page3.map((chunk) => chunk.text).join(''), 'x'.repeat(2500));
  assert.deepEqual(chunks.map((chunk) => chunk.chunkIndex), chunks.map((_, index) => index));
});

test('U+0000 in page text is a space in its chunks, as a tab is', () => {
  const chunks = chunkPages([{ pageNumber: 1, pageLabel: null, text: 'opening\u0000balance\u0000\u0000 due\t\u0000now' }]);
  assert.deepEqual(chunks.map((chunk) => chunk.text), ['opening balance due now']);
});
