// Content-lane query normalization (SPEC POST /search rule 5): lossless normalization, conservative
// abbreviation expansion, known-typo correction, and fuzzy correction only towards a Client-vocabulary
// word with character similarity >= 0.6. It never rewrites identifiers, numbers, or words the Client's
// vocabulary already knows, and never "corrects" a Malay root whose affixed forms the vocabulary holds.

import { ABBREVIATIONS, SLASHED_ABBREVIATIONS } from './abbreviations.ts';
import { surfaceWord } from './analyzer.ts';
import { KNOWN_TYPOS } from './known-typos.ts';
import { malayStem } from './malay-stemmer.ts';
import { normalizeText } from './normalize.ts';
import { RecentCache } from './recent-cache.ts';
import { codePoints, keystrokeDistance } from './similarity.ts';
import { isStopword } from './stopwords.ts';
import { tokenize } from './tokenize.ts';
import { partsFuzzyCandidates, partsHaveMalayRoot, partsHaveTermsOf, partsHaveWord } from './vocabulary.ts';
import type { Vocabulary, VocabularyParts } from './vocabulary.ts';
import { FUZZY_MIN_SIMILARITY } from '../spec-limits.ts';

/** Shorter words are not fuzzed: at three letters one edit already changes a third of the word. */
export const FUZZY_MIN_WORD_LENGTH = 4;
/**
 * Conservative caps on top of the spec floor: a typo is one keystroke (a transposition counts once) in a
 * word shorter than FUZZY_LONG_WORD_LENGTH, at most two in a longer one. Without them a real word the
 * Client never wrote would be "corrected" into a different one (albendazole -> amendable is 0.64;
 * pahit -> padat is 0.6).
 */
export const FUZZY_MAX_KEYSTROKES_SHORT = 1;
export const FUZZY_MAX_KEYSTROKES_LONG = 2;
export const FUZZY_LONG_WORD_LENGTH = 8;

export type QueryRewriteKind = 'abbreviation' | 'typo' | 'fuzzy';

export interface QueryRewrite {
  from: string;
  to: string;
  kind: QueryRewriteKind;
}

export interface NormalizedContentQuery {
  /** The normalized query text to embed and to analyze for the sparse lane. */
  text: string;
  /** Rewrites applied, in query order. */
  rewrites: Readonly<QueryRewrite>[];
}

const LETTER_WORD = /^[\p{L}\p{M}]+$/u;

/**
 * Word rewrites remembered across searches, by the vocabularies they were made against: queries repeat words,
 * and a word the vocabulary lacks costs a fuzzy look-up over all of it. A vocabulary never changes once built,
 * so a remembered rewrite is the one the look-up would make; a new publication adds a part, and its searches
 * ask afresh. Bounded over every vocabulary of the process, so serving many Clients holds no more, and the
 * entries of vocabularies no longer served age out.
 */
export const REMEMBERED_REWRITES = 8192;
const rememberedRewrites = new RecentCache<string, Readonly<QueryRewrite> | null>(REMEMBERED_REWRITES);
const vocabularyIds = new WeakMap<Vocabulary, number>();
let nextVocabularyId = 0;

/** Names this combination of vocabularies (in order) for as long as they live. */
function vocabularyKey(parts: VocabularyParts): string {
  let key = '';
  for (const part of parts) {
    let id = vocabularyIds.get(part);
    if (id === undefined) vocabularyIds.set(part, (id = nextVocabularyId++));
    key += `${id},`;
  }
  return key;
}

/** rewriteQueryWord, remembered for letter words (only they are ever rewritten; with no digit or comma in them, an entry names one key and one word). */
function rememberedRewrite(word: string, parts: VocabularyParts, key: string): Readonly<QueryRewrite> | null {
  if (!LETTER_WORD.test(word)) return null;
  const entry = `${key}${word}`;
  const known = rememberedRewrites.get(entry);
  if (known !== undefined) return known;
  const rewrite = rewriteQueryWord(word, parts);
  rememberedRewrites.set(entry, rewrite === null ? null : Object.freeze(rewrite));
  return rewrite;
}

/** A replacement of text[start, end) by rewrite.to. */
interface Edit {
  start: number;
  end: number;
  rewrite: Readonly<QueryRewrite>;
}

/** a/c, w/d: the tokenizer would split them into letters, so they are found on the text itself. */
function slashedAbbreviationEdits(text: string): Edit[] {
  const edits: Edit[] = [];
  for (const [abbreviation, expansion] of SLASHED_ABBREVIATIONS) {
    const pattern = new RegExp(`(?<![\\p{L}\\p{N}/])${abbreviation.replace('/', '\\/')}(?![\\p{L}\\p{N}/])`, 'gu');
    for (const m of text.matchAll(pattern)) {
      edits.push({ start: m.index, end: m.index + m[0].length, rewrite: { from: abbreviation, to: expansion, kind: 'abbreviation' } });
    }
  }
  return edits;
}

/** Why a word stays as it is: the Client's documents know it (or its stems, or it is a Malay root of their words). */
function isKnownToClient(word: string, vocabulary: VocabularyParts): boolean {
  return partsHaveWord(vocabulary, word) || partsHaveTermsOf(vocabulary, word) || partsHaveMalayRoot(vocabulary, word);
}

/** Keystrokes a typo fix may take for a query word of this many characters. */
export function maxTypoKeystrokes(length: number): number {
  return length >= FUZZY_LONG_WORD_LENGTH ? FUZZY_MAX_KEYSTROKES_LONG : FUZZY_MAX_KEYSTROKES_SHORT;
}

/**
 * A candidate is a plausible typo fix only when it is within the keystroke cap, keeps the first letter
 * (typos rarely hit it; haiwan is not taiwan) and is not the word plus an affix of two or more letters
 * (unassociated is not associated).
 */
function isTypoFix(word: readonly number[], candidate: readonly number[]): boolean {
  if (candidate[0] !== word[0]) return false;
  if (keystrokeDistance(word, candidate) > maxTypoKeystrokes(word.length)) return false;
  const [shorter, longer] = word.length < candidate.length ? [word, candidate] : [candidate, word];
  return !(longer.length - shorter.length >= 2 && String.fromCodePoint(...longer).includes(String.fromCodePoint(...shorter)));
}

/** A recognizable Malay affixed form (dilarang, dikirimkan) is a real word even when the Client lacks it. */
function isMalayAffixedForm(word: string): boolean {
  return malayStem(word) !== word;
}

function fuzzyCorrection(word: string, vocabulary: VocabularyParts): string | null {
  const chars = codePoints(word);
  if (chars.length < FUZZY_MIN_WORD_LENGTH || isMalayAffixedForm(word)) return null;
  // A transposition is two Levenshtein edits, so candidates are gathered with twice the keystroke cap.
  const limits = { minSimilarity: FUZZY_MIN_SIMILARITY, maxEdits: 2 * maxTypoKeystrokes(chars.length), sameFirstCharacter: true };
  const best = partsFuzzyCandidates(vocabulary, word, limits).find((candidate) => isTypoFix(chars, codePoints(candidate.word)));
  return best === undefined ? null : best.word;
}

/** The rewrite of one query word, or null to keep it. Identifiers, numbers and stopwords are never touched. */
export function rewriteQueryWord(word: string, vocabularyOrParts: Vocabulary | VocabularyParts): QueryRewrite | null {
  if (!LETTER_WORD.test(word)) return null;
  const vocabulary = asParts(vocabularyOrParts);
  const expansion = ABBREVIATIONS.get(word);
  // The Client's own documents using the short form as a word (Acc No.) keep it as written.
  if (expansion !== undefined && !partsHaveWord(vocabulary, word)) return { from: word, to: expansion, kind: 'abbreviation' };
  if (isStopword(word) || isKnownToClient(word, vocabulary)) return null;
  const typoFix = KNOWN_TYPOS.get(word);
  if (typoFix !== undefined) return { from: word, to: typoFix, kind: 'typo' };
  const fuzzy = fuzzyCorrection(word, vocabulary);
  return fuzzy === null ? null : { from: word, to: fuzzy, kind: 'fuzzy' };
}

function overlaps(edits: readonly Edit[], start: number, end: number): boolean {
  return edits.some((edit) => start < edit.end && edit.start < end);
}

function applyEdits(text: string, edits: Edit[]): string {
  let out = '';
  let cursor = 0;
  for (const edit of edits.sort((a, b) => a.start - b.start)) {
    out += text.slice(cursor, edit.start) + edit.rewrite.to;
    cursor = edit.end;
  }
  return out + text.slice(cursor);
}

/**
 * Normalizes a content-lane query: NFKC + case fold + whitespace collapse, then each word is expanded,
 * typo-corrected or fuzzy-corrected at most once (a replacement is never rewritten again).
 */
/** One vocabulary or the parts of a segmented one. */
function asParts(vocabulary: Vocabulary | VocabularyParts): VocabularyParts {
  return Array.isArray(vocabulary) ? (vocabulary as VocabularyParts) : [vocabulary as Vocabulary];
}

export function normalizeContentQuery(query: string, vocabulary: Vocabulary | VocabularyParts = []): NormalizedContentQuery {
  const text = normalizeText(query);
  const edits = slashedAbbreviationEdits(text);
  const slashed = [...edits];
  const parts = asParts(vocabulary);
  const key = vocabularyKey(parts);
  for (const token of tokenize(text)) {
    // Words with apostrophes (don't, patient's) are left as written.
    if (overlaps(slashed, token.start, token.end) || surfaceWord(token.text) !== token.text) continue;
    const rewrite = rememberedRewrite(token.text, parts, key);
    if (rewrite !== null) edits.push({ start: token.start, end: token.end, rewrite });
  }
  const ordered = edits.sort((a, b) => a.start - b.start);
  return { text: applyEdits(text, ordered), rewrites: ordered.map((edit) => edit.rewrite) };
}
