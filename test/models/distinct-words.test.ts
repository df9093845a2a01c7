import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { DistinctWords } from '../../src/models/distinct-words.ts';
import { wordRuns } from '../../src/models/word-tokens.ts';

/** The definition: each distinct run of wordRuns, in order of first occurrence, with its count. */
function byStrings(text: string): Array<[string, number]> {
  const counts = new Map<string, number>();
  for (const word of wordRuns(text)) counts.set(word, (counts.get(word) ?? 0) + 1);
  return [...counts];
}

function counted(words: DistinctWords, text: string): Array<[string, number]> {
  words.count(text);
  return Array.from({ length: words.size }, (_, i) => [text.slice(words.starts[i], words.ends[i]), words.occurrences[i]]);
}

test('the distinct words of real texts, in order of first occurrence, with their counts', () => {
  const words = new DistinctWords();
  const texts = readFileSync(new URL('../../../shared/datasets/malay-text/karangan-sekolah.txt', import.meta.url), 'utf8').split('\n');
  const scifact = readFileSync(new URL('../../../shared/datasets/scifact/corpus.jsonl', import.meta.url), 'utf8').split('\n').filter(Boolean).slice(0, 300);
  for (const line of scifact) texts.push((JSON.parse(line) as { text: string }).text.toLowerCase());
  for (const text of texts) assert.deepEqual(counted(words, text), byStrings(text));
});

test('words whose hashes collide stay apart; a reused counter forgets the last text; it grows past its first size and shrinks back', () => {
  const words = new DistinctWords();
  // 'yaczf' and 'glbpp' have the same 32-bit FNV-1a hash, so only their characters tell them apart.
  assert.deepEqual(counted(words, 'yaczf glbpp yaczf'), [['yaczf', 2], ['glbpp', 1]]);
  assert.deepEqual(counted(words, 'glbpp'), [['glbpp', 1]]);
  assert.deepEqual(counted(words, ''), []);
  assert.deepEqual(counted(words, ' .,; '), []);
  const many = Array.from({ length: 40_000 }, (_, i) => `w${i % 30_000}`).join(' ');
  assert.deepEqual(counted(words, many), byStrings(many));
  assert.ok(words.starts.length >= 30_000);
  assert.deepEqual(counted(words, 'a b a'), [['a', 2], ['b', 1]]);
  assert.ok(words.starts.length < 30_000, 'a counter does not keep the room a long text needed');
});
