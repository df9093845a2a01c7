// The console's passage cropping (console/src/passages.ts): a long chunk becomes short passages around its
// matched spans, each span still pointing at the words it marked, cut at word boundaries.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_PASSAGES, PASSAGE_CONTEXT_CHARS, UNMARKED_PREVIEW_CHARS, passages } from '../../console/src/passages.ts';

const filler = (words: number, word = 'lorem') => Array.from({ length: words }, () => word).join(' ');
const spanOf = (text: string, word: string, from = 0) => {
  const start = text.indexOf(word, from);
  return { start, end: start + word.length };
};

test('a match deep in a long chunk gives one passage around it, cut at word boundaries, with its span moved along', () => {
  const text = `${filler(200)} the petty cash audit ${filler(200)}`;
  const [only, ...rest] = passages(text, [spanOf(text, 'petty'), spanOf(text, 'audit')]);
  assert.equal(rest.length, 0);
  assert.ok(only.cutBefore && only.cutAfter);
  assert.ok(only.text.length <= 'petty cash audit'.length + 2 * PASSAGE_CONTEXT_CHARS + 2 * 30, `${only.text.length} characters`);
  assert.deepEqual(only.spans.map((span) => only.text.slice(span.start, span.end)), ['petty', 'audit']);
  assert.match(only.text, /^lorem .* lorem$/, 'no word cut in half');
});

test('matches far apart give separate passages, at most MAX_PASSAGES, each marking its own word', () => {
  const text = ['alpha', 'bravo', 'charlie', 'delta', 'echo'].map((word) => `${filler(60)} ${word}`).join(' ');
  const spans = ['alpha', 'bravo', 'charlie', 'delta', 'echo'].map((word) => spanOf(text, word));
  const cropped = passages(text, spans);
  assert.equal(cropped.length, MAX_PASSAGES);
  assert.deepEqual(cropped.map((passage) => passage.text.slice(passage.spans[0].start, passage.spans[0].end)), ['alpha', 'bravo', 'charlie']);
});

test('a short chunk is shown whole, and an unmarked one by its start', () => {
  const short = 'Memo on the Kuching branch audit.';
  assert.deepEqual(passages(short, [spanOf(short, 'audit')]), [{ text: short, spans: [spanOf(short, 'audit')], cutBefore: false, cutAfter: false }]);
  const long = filler(300);
  const [start] = passages(long, []);
  assert.ok(start.text.length >= UNMARKED_PREVIEW_CHARS - 6 && start.text.length <= UNMARKED_PREVIEW_CHARS + 40);
  assert.ok(!start.cutBefore && start.cutAfter);
});

test('spans outside the text, empty or overlapping are ignored rather than marking the wrong words', () => {
  const text = 'petty cash';
  const [passage] = passages(text, [{ start: 0, end: 5 }, { start: 3, end: 8 }, { start: 6, end: 6 }, { start: 6, end: 99 }]);
  assert.deepEqual(passage.spans, [{ start: 0, end: 5 }]);
});
