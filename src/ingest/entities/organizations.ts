// Finds organization names three ways: a legal suffix ("Syarikat ABC Sdn. Bhd.", "Amazon Web Services, Inc."),
// a head noun ("Bank Negara Malaysia", "Kementerian Kewangan", "Ministry of Finance") and a gazetteer of
// well-known names and acronyms. Returns disjoint spans; it never reports a suffix or head noun alone.

import { wordStartMatches } from './boundary.ts';
import { KNOWN_ORGANIZATIONS } from './gazetteer-organizations.ts';
import {
  LEADING_STOPWORDS,
  NAME_INITIAL_HEADS,
  ORGANIZATION_CONNECTORS,
  ORGANIZATION_CONNECTORS_AFTER,
  ORGANIZATION_CONNECTORS_BEFORE,
  ORGANIZATION_HEADS,
  ORGANIZATION_STOPWORDS,
  ORGANIZATION_SUFFIX_PATTERN,
} from './lexicon.ts';
import { MAX_ORGANIZATION_WORDS_AFTER, MAX_ORGANIZATION_WORDS_BEFORE } from './limits.ts';
import { createPhraseMatcher } from './phrase-matcher.ts';
import { createSpanIndex, resolveOverlaps, type Span, type SpanIndex } from './spans.ts';
import { bareWord, endsClause, wordsAfter, wordsBefore, type Word } from './text-walk.ts';

const SUFFIX = new RegExp(`(?:${ORGANIZATION_SUFFIX_PATTERN})(?![\\p{L}\\p{N}])`, 'gu');
const HEAD = new RegExp(`(?:${[...ORGANIZATION_HEADS].join('|')})(?![\\p{L}\\p{N}])`, 'gu');
// A name word: capitalized, a number-led brand ("1Malaysia"), an e-prefix ("i-Serve") or a bracketed qualifier "(M)".
// Also a camel-case brand ("iViveLabs").
const NAME_WORD =
  /^(?:\p{Lu}[\p{L}\p{M}\p{N}&'’.\-]*|\p{N}+\p{L}[\p{L}\p{M}\p{N}&'’.\-]*|\p{Ll}-?\p{Lu}[\p{L}\p{N}\-]*|\([\p{Lu}][\p{L}.]*\))$/u;
// A period ends a sentence, except after initials ("U.S.", "(M)" has none).
const SENTENCE_END = /(?<!^(?:\p{Lu}\.)+)\.$/u;

const knownOrganizations = createPhraseMatcher(KNOWN_ORGANIZATIONS);

const fold = (word: string): string => word.toLowerCase();
// Only before the suffixes written after a comma in legal names.
const COMMA_BEFORE = /,[ \t]*$/;
const COMMA_SUFFIXES = /^(?:Inc|Ltd|LLC|L\.L\.C|LLP|Corp|Limited|Co|PLC|Plc)/;
const MAX_COMMA_GAP = 3;
const POSSESSIVE = /['’]s$/u;
const CLOSING_PUNCTUATION = /[,;:!?"”’]+$/u;

function isNameWord(word: string): boolean {
  return NAME_WORD.test(word) && !ORGANIZATION_STOPWORDS.has(fold(bareWord(word).replace(/\.$/u, '')));
}

/** Start offset of the name words right before `index` (connectors allowed inside), or -1 when there are none. */
function nameStartBefore(text: string, index: number, max: number): number {
  const taken: Word[] = [];
  for (const word of wordsBefore(text, index, max)) {
    // "Maybank, CIMB Bank Berhad": the comma ends the previous name; "the Bank's Shariah Council": an owner, not a part
    if (endsClause(word.text) || POSSESSIVE.test(word.text) || SENTENCE_END.test(word.text)) break;
    const connector = ORGANIZATION_CONNECTORS_BEFORE.has(word.text);
    if (!connector && !isNameWord(word.text)) break;
    taken.push(word);
  }
  while (taken.length > 0) {
    const first = taken[taken.length - 1].text;
    if (!ORGANIZATION_CONNECTORS.has(first) && !LEADING_STOPWORDS.has(fold(first))) break;
    taken.pop();
  }
  return taken.length === 0 ? -1 : taken[taken.length - 1].start;
}

/** End offset of the name words from `index` on; connectors only when a name word follows and is no new head. */
function nameEndAfter(text: string, index: number, max: number): number {
  let end = index;
  const words = wordsAfter(text, index, max);
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    if (ORGANIZATION_CONNECTORS_AFTER.has(word.text)) {
      const next = words[i + 1];
      if (next === undefined || !isNameWord(next.text) || ORGANIZATION_HEADS.has(bareWord(next.text))) break;
      continue;
    }
    // Whole words only: "(SAC)" is a qualifier, "(National" opens an aside that is not part of the name.
    if (ORGANIZATION_CONNECTORS.has(word.text) || !isNameWord(word.text.replace(CLOSING_PUNCTUATION, ''))) break;
    end = word.start + trimmedLength(word.text);
    if (endsClause(word.text) || word.text.endsWith('.')) break;
  }
  return end;
}

/** Length of the word without closing punctuation (keeping a closing bracket that has its opening one). */
function trimmedLength(word: string): number {
  const trimmed = word.replace(/[,;:!?"”’]+$/u, '');
  return trimmed.endsWith(')') && !trimmed.includes('(') ? trimmed.length - 1 : trimmed.length;
}

function suffixCandidates(text: string): Span[] {
  const spans: Span[] = [];
  for (const m of wordStartMatches(text, SUFFIX)) {
    // "Amazon Web Services, Inc.": the comma belongs to the suffix, the name ends before it
    const comma = COMMA_SUFFIXES.test(m[0]) ? COMMA_BEFORE.exec(text.slice(Math.max(0, m.index - MAX_COMMA_GAP), m.index)) : null;
    const nameEnd = comma === null ? m.index : m.index - comma[0].length;
    const start = nameStartBefore(text, nameEnd, MAX_ORGANIZATION_WORDS_BEFORE);
    const end = m.index + m[0].length;
    if (start >= 0) spans.push({ start, end, value: text.slice(start, end) });
  }
  return spans;
}

function headCandidates(text: string): Span[] {
  const spans: Span[] = [];
  for (const m of wordStartMatches(text, HEAD, '-')) {
    const headEnd = m.index + m[0].length;
    const before = NAME_INITIAL_HEADS.has(m[0]) ? -1 : nameStartBefore(text, m.index, MAX_ORGANIZATION_WORDS_BEFORE);
    const end = nameEndAfter(text, headEnd, MAX_ORGANIZATION_WORDS_AFTER);
    if (end === headEnd) continue; // "the Bank" alone names nothing
    const start = before >= 0 ? before : m.index;
    spans.push({ start, end, value: text.slice(start, end) });
  }
  return spans;
}

function gazetteerCandidates(text: string): Span[] {
  const spans: Span[] = [];
  knownOrganizations.find(text, (hit) => {
    spans.push({ start: hit.start, end: hit.end, value: hit.canonical });
    return true;
  });
  return spans;
}

/**
 * Disjoint organization spans in reading order, skipping any that overlap `blocked` (addresses). A known name
 * beats a head-noun guess around it ("Bank Negara Malaysia" in "Bank Negara Malaysia Scholarship Award"); a
 * legal name with its suffix beats both ("Bank Islam Malaysia Berhad").
 */
export function findOrganizations(text: string, blocked: SpanIndex): Span[] {
  const known = gazetteerCandidates(text);
  const knownIndex = createSpanIndex(known);
  const guessed = headCandidates(text).filter((s) => !knownIndex.overlaps(s.start, s.end));
  const candidates = [...suffixCandidates(text), ...guessed, ...known];
  return resolveOverlaps(candidates.filter((s) => !blocked.overlaps(s.start, s.end)));
}
