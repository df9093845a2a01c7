// Finds person names: after honorifics ("Encik", "Puan", "Dato'", "Tan Sri", "Mr", "Dr"), around Malay and
// Indian patronymics ("Ahmad bin Abdullah", "Kumar a/l Raju"), under letter closings ("Yang benar,") and
// after name labels ("Nama:"). The value is the name without its titles; a lone title is never a person.

import { wordStartMatches } from './boundary.ts';
import {
  HONORIFIC_ABBREVIATIONS,
  HONORIFICS,
  NAME_CONNECTORS,
  NAME_PREFIXES,
  NAME_STOPWORDS,
  PATRONYMIC_CONNECTORS,
  PERSON_LABELS,
  SIGNATURE_CLOSINGS,
  TITLES_INSIDE_NAMES,
} from './lexicon.ts';
import { MAX_NAME_WORDS, MAX_SIGNATURE_LOOKAHEAD_LINES } from './limits.ts';
import type { Span, SpanIndex } from './spans.ts';
import { wordsAfter, wordsBefore, type Word } from './text-walk.ts';

const SPACE = '[ \\t\\u00a0]';
const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ /g, `${SPACE}+`);
const alternation = (items: readonly string[]): string => [...items].sort((a, b) => b.length - a.length).map(escape).join('|');

// Only abbreviations take a period: "Prime Minister. Click here" must not make "Click" a name.
const FULL_TITLES = HONORIFICS.filter((h) => !HONORIFIC_ABBREVIATIONS.includes(h));
const HONORIFIC = `(?:${alternation(HONORIFIC_ABBREVIATIONS)})\\.?(?![\\p{L}])|(?:${alternation(FULL_TITLES)})(?![\\p{L}])`;
const HONORIFIC_RUN = new RegExp(`(?:(?:${HONORIFIC})${SPACE}+){1,4}`, 'gu');
const HONORIFIC_PREFIX = new RegExp(`^(?:(?:${HONORIFIC})${SPACE}+)+`, 'u');
const HONORIFIC_WORDS: ReadonlySet<string> = new Set(HONORIFICS.flatMap((h) => h.split(' ')).map((w) => w.toLowerCase()));
/** Single-word titles that end a name when met inside it ("... Abdul Razak Encik Ali" is two people). */
const TITLES_ENDING_NAMES: ReadonlySet<string> = new Set(
  HONORIFICS.filter((h) => !h.includes(' ')).map((h) => h.toLowerCase()).filter((h) => !TITLES_INSIDE_NAMES.has(h)),
);
// No `i` flag here: with it, \p{Lu} would accept lower-case letters too.
const PATRONYMIC_SPELLINGS = PATRONYMIC_CONNECTORS.flatMap((c) => [c, c.toUpperCase(), c[0].toUpperCase() + c.slice(1)]);
const PATRONYMIC = new RegExp(
  `(?<=[\\p{L}.][ \\t\\u00a0]+)(?:${alternation([...new Set(PATRONYMIC_SPELLINGS)])})(?=${SPACE}+\\p{Lu})`,
  'gu',
);
const CLOSING = new RegExp(`(?:^|\\n)[ \\t]*(?:${alternation(SIGNATURE_CLOSINGS)})[ \\t]*[,.]?[ \\t]*\\r?\\n`, 'giu');
const LABEL = new RegExp(`(?:${alternation(PERSON_LABELS)})${SPACE}*:${SPACE}*`, 'gu');

const NAME_WORD = /^(?:\p{Lu}[\p{L}\p{M}'’-]*|\p{Lu}\.)$/u;
/** Abbreviations that sit inside Malay names ("Mohd. Daud") rather than ending a sentence. */
const NAME_ABBREVIATIONS: ReadonlySet<string> = new Set(['mohd.', 'moh.', 'muhd.', 'md.', 'abd.', 'hj.', 'nik.', 'wan.', 'st.']);
const SIGNATURE_MARKER = /^(?:\(?(?:signed|sgd\.?|t\.?t\.?|tandatangan|signature)\)?|[_\-.\s]*)$/iu;
const CLAUSE_END = /[,;:!?"”)]$/u;
const CLOSING_PUNCTUATION = /[,;:!?"”)]+$/u;
const POSSESSIVE = /['’]s$/u;
const MIN_SIGNATURE_NAME_WORDS = 2;
/** Longest run of titles read after a label ("Nama: Tan Sri Dato' Dr. ..."). */
const MAX_TITLE_RUN_CHARS = 80;

const fold = (word: string): string => word.toLowerCase();
const isConnector = (word: string): boolean => NAME_CONNECTORS.has(fold(word));

function isNameWord(word: string): boolean {
  const bare = word.replace(CLAUSE_END, '').replace(/\.$/u, '');
  if (bare === '' || NAME_STOPWORDS.has(fold(bare))) return false;
  return NAME_WORD.test(bare);
}

/** A word ending in "." ends the name unless it is an initial ("J.") or a name abbreviation ("Mohd."). */
function endsName(word: string): boolean {
  if (CLAUSE_END.test(word)) return true;
  return word.endsWith('.') && !/^\p{Lu}\.$/u.test(word) && !NAME_ABBREVIATIONS.has(fold(word));
}

/** The name span made of `words` from the first, or null when it has no name word. */
function nameFromWords(words: readonly Word[]): { start: number; end: number; nameWords: number } | null {
  let end = -1;
  let nameWords = 0;
  for (const { text: word, end: wordEnd } of words) {
    if (nameWords >= MAX_NAME_WORDS) break;
    if (isConnector(word)) continue;
    const possessive = POSSESSIVE.test(word); // "Mahathir's speech": the name ends before "'s"
    const bare = possessive ? word.slice(0, -2) : word;
    if (!isNameWord(bare) || TITLES_ENDING_NAMES.has(fold(bare.replace(/\.$/u, '')))) break;
    nameWords++;
    end = wordEnd - (word.length - bare.replace(CLOSING_PUNCTUATION, '').length);
    if (possessive || endsName(bare)) break;
  }
  if (end < 0) return null;
  if (nameWords === 1 && NAME_PREFIXES.has(fold(words[0].text.replace(/[.,;:]+$/u, '')))) return null;
  return { start: words[0].start, end, nameWords };
}

function span(text: string, start: number, end: number): Span {
  return { start, end, value: text.slice(start, end) };
}

function afterHonorifics(text: string): Span[] {
  const spans: Span[] = [];
  for (const m of wordStartMatches(text, HONORIFIC_RUN, "'’")) {
    const name = nameFromWords(wordsAfter(text, m.index + m[0].length, MAX_NAME_WORDS * 2));
    if (name !== null && name.start === m.index + m[0].length) spans.push(span(text, name.start, name.end));
  }
  return spans;
}

function aroundPatronymics(text: string): Span[] {
  const spans: Span[] = [];
  for (const m of text.matchAll(PATRONYMIC)) {
    let start = -1;
    for (const word of wordsBefore(text, m.index, MAX_NAME_WORDS)) {
      if (CLAUSE_END.test(word.text) || HONORIFIC_WORDS.has(fold(word.text.replace(/\.$/u, ''))) || !isNameWord(word.text)) break;
      start = word.start;
    }
    const after = nameFromWords(wordsAfter(text, m.index + m[0].length, MAX_NAME_WORDS * 2));
    if (start >= 0 && after !== null) spans.push(span(text, start, after.end));
  }
  return spans;
}

/** Offsets of the line holding the signer's name after a closing, or null. */
function signerLine(text: string, from: number): { start: number; line: string } | null {
  let at = from;
  for (let i = 0; i < MAX_SIGNATURE_LOOKAHEAD_LINES && at < text.length; i++) {
    const next = text.indexOf('\n', at);
    const end = next < 0 ? text.length : next;
    const line = text.slice(at, end);
    if (!SIGNATURE_MARKER.test(line.trim())) return { start: at, line };
    at = end + 1;
  }
  return null;
}

/** A whole line that is a name, such as "(AHMAD BIN ALI)" or "Dr. Siti Aminah". */
function nameLine(text: string, start: number, line: string): Span | null {
  const lead = line.length - line.trimStart().length + (line.trimStart().startsWith('(') ? 1 : 0);
  const titles = HONORIFIC_PREFIX.exec(line.slice(lead))?.[0].length ?? 0;
  const words = wordsAfter(text, start + lead + titles, MAX_NAME_WORDS * 2);
  const name = nameFromWords(words);
  const lineEnd = start + line.replace(/[)\s,.]+$/u, '').length;
  if (name === null || name.end < lineEnd || (titles === 0 && name.nameWords < MIN_SIGNATURE_NAME_WORDS)) return null;
  return span(text, name.start, name.end);
}

function underClosings(text: string): Span[] {
  const spans: Span[] = [];
  for (const m of text.matchAll(CLOSING)) {
    const signer = signerLine(text, m.index + m[0].length);
    const name = signer === null ? null : nameLine(text, signer.start, signer.line);
    if (name !== null) spans.push(name);
  }
  return spans;
}

function afterLabels(text: string): Span[] {
  const spans: Span[] = [];
  for (const m of wordStartMatches(text, LABEL)) {
    const from = m.index + m[0].length;
    const titles = HONORIFIC_PREFIX.exec(text.slice(from, from + MAX_TITLE_RUN_CHARS))?.[0].length ?? 0;
    const name = nameFromWords(wordsAfter(text, from + titles, MAX_NAME_WORDS * 2));
    if (name !== null && (titles > 0 || name.nameWords >= MIN_SIGNATURE_NAME_WORDS)) spans.push(span(text, name.start, name.end));
  }
  return spans;
}

/** Person spans outside `blocked` (organizations, addresses), in the order each finder met them. */
export function findPersons(text: string, blocked: SpanIndex): Span[] {
  const spans = [...afterHonorifics(text), ...aroundPatronymics(text), ...underClosings(text), ...afterLabels(text)];
  return spans.filter((s) => !blocked.overlaps(s.start, s.end)).sort((a, b) => a.start - b.start);
}
