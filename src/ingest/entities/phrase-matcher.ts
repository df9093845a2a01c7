// Finds gazetteer phrases (places, known organizations) in text in one linear pass over capitalized
// words, with a map lookup per word instead of a giant regex alternation. It never matches inside a word.

import { isWordStart } from './boundary.ts';

export interface PhraseHit {
  start: number;
  end: number;
  /** The gazetteer's spelling, so "KUALA LUMPUR" and "Kuala Lumpur" report one value. */
  canonical: string;
}

interface Entry {
  rest: string[];
  canonical: string;
}

export interface PhraseMatcher {
  /** Calls onHit for each non-overlapping hit in reading order; stops when onHit returns false. */
  find(text: string, onHit: (hit: PhraseHit) => boolean): void;
}

// Words keep inner apostrophes and hyphens ("Dato'", "Anti-Corruption"); a possessive "'s" is cut off.
const CAPITALIZED_WORD = /\p{Lu}[\p{L}\p{M}\p{N}&-]*(?:['’](?!s(?![\p{L}\p{N}]))[\p{L}\p{M}\p{N}&-]*)*/gu;
const NEXT_WORD = /[ \t\u00a0]+([\p{L}\p{M}\p{N}&-]+(?:['’](?!s(?![\p{L}\p{N}]))[\p{L}\p{M}\p{N}&-]*)*)/uy;
const WORD_CHAR = /[\p{L}\p{M}\p{N}]/u;

const fold = (word: string): string => word.toLowerCase().replace(/’/g, "'");

export function createPhraseMatcher(phrases: readonly string[]): PhraseMatcher {
  const byFirst = new Map<string, Entry[]>();
  for (const phrase of phrases) {
    const [first, ...rest] = phrase.split(' ').map(fold);
    const entries = byFirst.get(first) ?? [];
    entries.push({ rest, canonical: phrase });
    byFirst.set(first, entries);
  }
  // Longest phrase first, so "Kuala Lumpur" wins over a shorter entry starting with "Kuala".
  for (const entries of byFirst.values()) entries.sort((a, b) => b.rest.length - a.rest.length);

  return {
    find(text, onHit) {
      const words = new RegExp(CAPITALIZED_WORD); // a private cursor: callers may nest finds of two matchers
      for (let m = words.exec(text); m !== null; m = words.exec(text)) {
        if (!isWordStart(text, m.index, "'’&-")) continue; // "McDonald" is one word, not "Donald"
        const entries = byFirst.get(fold(m[0]));
        if (entries === undefined) continue;
        const hit = matchEntries(text, m.index, m.index + m[0].length, entries);
        if (hit === null) continue;
        if (!onHit(hit)) return;
        words.lastIndex = hit.end;
      }
    },
  };
}

function matchEntries(text: string, start: number, firstEnd: number, entries: readonly Entry[]): PhraseHit | null {
  for (const entry of entries) {
    const end = matchRest(text, firstEnd, entry.rest);
    if (end >= 0 && !WORD_CHAR.test(text[end] ?? '')) return { start, end, canonical: entry.canonical };
  }
  return null;
}

/** End offset after the remaining words, or -1. */
function matchRest(text: string, from: number, rest: readonly string[]): number {
  let at = from;
  for (const word of rest) {
    NEXT_WORD.lastIndex = at;
    const m = NEXT_WORD.exec(text);
    if (m === null || fold(m[1]) !== word) return -1;
    at = NEXT_WORD.lastIndex;
  }
  return at;
}
