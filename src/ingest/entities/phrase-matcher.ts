// Finds gazetteer phrases (places, known organizations) in text in one linear pass over capitalized
// words, with a map lookup per word instead of a giant regex alternation. It never matches inside a word.

import { isWordStart } from './boundary.ts';
import { codePointTest } from '../../text/code-point-test.ts';

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
// Matched only where a capital letter starts (nextCapital): every part after the capital may be empty, so the
// pattern matches wherever one does.
const CAPITALIZED_WORD_AT = /\p{Lu}[\p{L}\p{M}\p{N}&-]*(?:['’](?!s(?![\p{L}\p{N}]))[\p{L}\p{M}\p{N}&-]*)*/uy;
const NEXT_WORD = /[ \t\u00a0]+([\p{L}\p{M}\p{N}&-]+(?:['’](?!s(?![\p{L}\p{N}]))[\p{L}\p{M}\p{N}&-]*)*)/uy;
const WORD_CHAR = /[\p{L}\p{M}\p{N}]/u;

const fold = (word: string): string => word.toLowerCase().replace(/’/g, "'");

const isNonAsciiCapital = codePointTest(/^\p{Lu}$/u);

/**
 * Offset of the first capital letter (\p{Lu}) at or after `from`, or -1. A loop finds it: a regex that starts
 * with a Unicode property class calls out of compiled code for every character it passes.
 */
function nextCapital(text: string, from: number): number {
  for (let i = from; i < text.length; ) {
    const unit = text.charCodeAt(i);
    if (unit < 128) {
      if (unit >= 65 && unit <= 90) return i;
      i++;
      continue;
    }
    const code = text.codePointAt(i)!;
    if (isNonAsciiCapital(code)) return i;
    i += code > 0xffff ? 2 : 1;
  }
  return -1;
}

/** The first capitalized word at or after `from`, or null. */
function capitalizedWordAt(text: string, from: number): RegExpExecArray | null {
  const at = nextCapital(text, from);
  if (at < 0) return null;
  // Sticky, and its lastIndex set right before the exec: finds of two matchers may nest (a hit's callback runs one).
  CAPITALIZED_WORD_AT.lastIndex = at;
  return CAPITALIZED_WORD_AT.exec(text);
}

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
      for (let m = capitalizedWordAt(text, 0); m !== null; ) {
        let next = m.index + m[0].length;
        const entries = isWordStart(text, m.index, "'’&-") ? byFirst.get(fold(m[0])) : undefined; // "McDonald" is one word, not "Donald"
        const hit = entries === undefined ? null : matchEntries(text, m.index, next, entries);
        if (hit !== null) {
          if (!onHit(hit)) return;
          next = hit.end;
        }
        m = capitalizedWordAt(text, next);
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
