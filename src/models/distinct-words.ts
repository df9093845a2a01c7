// The distinct words of a text with how often each occurs, in order of first occurrence, read without making a
// string per word: a word is a range of the text (wordRuns' definition of a word), found again by its hash and its
// characters. The hashing embedder reads each distinct word's characters from the text where it first occurs.

import { forEachWordRun } from './word-tokens.ts';

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
/** Room for this many distinct words before the arrays grow; a counter that grew past RETAINED_WORDS shrinks back. */
const INITIAL_WORDS = 256;
const RETAINED_WORDS = 16_384;

function rangeHash(text: string, start: number, end: number): number {
  let h = FNV_OFFSET;
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV_PRIME);
  return h;
}

function sameRange(text: string, a: number, b: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (text.charCodeAt(a + i) !== text.charCodeAt(b + i)) return false;
  return true;
}

/**
 * Reusable: `count(text)` replaces what it held. After it, words 0..size-1 are the distinct words, the i-th at
 * text.slice(starts[i], ends[i]), occurring occurrences[i] times.
 */
export class DistinctWords {
  size = 0;
  starts = new Int32Array(INITIAL_WORDS);
  ends = new Int32Array(INITIAL_WORDS);
  occurrences = new Int32Array(INITIAL_WORDS);
  private hashes = new Int32Array(INITIAL_WORDS);
  /** Open addressing over word index + 1 (0: empty), at most half full. */
  private slots = new Int32Array(INITIAL_WORDS * 2);
  private text = '';
  private readonly visit = (start: number, end: number): void => this.add(start, end);

  count(text: string): this {
    if (this.starts.length > RETAINED_WORDS) this.allocate(INITIAL_WORDS);
    else this.slots.fill(0);
    this.size = 0;
    this.text = text;
    forEachWordRun(text, this.visit);
    this.text = '';
    return this;
  }

  private add(start: number, end: number): void {
    const { text } = this;
    const length = end - start;
    const hash = rangeHash(text, start, end);
    const mask = this.slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const held = this.slots[slot];
      if (held === 0) break;
      const word = held - 1;
      if (this.hashes[word] === hash && this.ends[word] - this.starts[word] === length && sameRange(text, this.starts[word], start, length)) {
        this.occurrences[word]++;
        return;
      }
    }
    if (this.size === this.starts.length) this.grow();
    const word = this.size++;
    this.starts[word] = start;
    this.ends[word] = end;
    this.occurrences[word] = 1;
    this.hashes[word] = hash;
    this.place(word);
  }

  private place(word: number): void {
    const mask = this.slots.length - 1;
    let slot = this.hashes[word] & mask;
    while (this.slots[slot] !== 0) slot = (slot + 1) & mask;
    this.slots[slot] = word + 1;
  }

  private allocate(words: number): void {
    this.starts = new Int32Array(words);
    this.ends = new Int32Array(words);
    this.occurrences = new Int32Array(words);
    this.hashes = new Int32Array(words);
    this.slots = new Int32Array(words * 2);
  }

  private grow(): void {
    const { starts, ends, occurrences, hashes, size } = this;
    this.allocate(starts.length * 2);
    this.starts.set(starts);
    this.ends.set(ends);
    this.occurrences.set(occurrences);
    this.hashes.set(hashes);
    for (let word = 0; word < size; word++) this.place(word);
  }
}
