// The one analysis pipeline shared by indexing and querying: tokenize, drop stopwords, stem words
// (English Porter; Malay affixes unless the text is plainly English), keep identifiers and amounts whole.
// Never use different pipelines for the two sides: a term only matches what the same code produced.

import { porterStem } from './english-stemmer.ts';
import { looksMalay, malayRootCandidates, malayStem } from './malay-stemmer.ts';
import { ENGLISH_STOPWORDS, MALAY_STOPWORDS, isStopword } from './stopwords.ts';
import { tokenize } from './tokenize.ts';
import type { Token } from './tokenize.ts';
import { RecentCache } from './recent-cache.ts';

export interface Term {
  term: string;
  /** UTF-16 offsets into the original text (the span of the token or identifier part). */
  start: number;
  end: number;
  /** Ordinal of the source token in the text; parts of one identifier and stem variants share it. */
  position: number;
}

/**
 * How a text's words are stemmed at indexing time. english: plain Porter (a text with English function
 * words and hardly any Malay ones). malay: Malay affixes first, then Porter for roots that do not look
 * Malay (Malay, bilingual, or too short to tell). Queries do not pick one: analyzeQuery emits both
 * stems of a word, so a query word meets that word in a text of either mode.
 */
export type AnalysisMode = 'english' | 'malay';

/** English mode needs at least this many English stopwords... */
export const ENGLISH_MODE_MIN_STOPWORDS = 1;
/** ...and this many times more English than Malay stopwords. */
export const ENGLISH_MODE_DOMINANCE = 3;
/**
 * Memoised stems: stemming is the hot path of indexing and its result depends on the word alone. The most
 * recently used words are kept (recent-cache.ts: a word used within the last half-limit new words always is; about
 * 300 bytes each with a vocabulary word's derivations, so at most about 9 MiB per thread that analyzes), enough for
 * the words that recur; a cache of every word ever seen would grow with the vocabulary of all uploads.
 */
export const STEM_CACHE_LIMIT = 32_768;

const LETTERS_ONLY = /^[\p{L}\p{M}]+$/u;
const APOSTROPHE = /['\u2019]/g;
const POSSESSIVE_END = /['\u2019]s$/;
/** Joiners (after NFKC) that separate meaningful parts of an identifier (ACC-001, INV/2020/001, a@b.c). */
const PART_SEPARATORS = new Set(['-', '/', '_', ':', '@', '\u2010']);
const GROUPED_AMOUNT = /^\d{1,3}(,\d{3})+(\.\d+)?$/;

/** Word form before stemming: possessive 's dropped, other apostrophes closed up (don't -> dont). */
export function surfaceWord(tokenText: string): string {
  if (tokenText.indexOf("'") < 0 && tokenText.indexOf('\u2019') < 0) return tokenText;
  return tokenText.replace(POSSESSIVE_END, '').replace(APOSTROPHE, '');
}

/**
 * True for a non-empty word of letters (and combining marks) only: LETTERS_ONLY.test(word), with an ASCII loop
 * that spares the regex for most tokens.
 */
export function isLettersOnly(word: string): boolean {
  for (let i = 0; i < word.length; i++) {
    const code = word.charCodeAt(i);
    if (code >= 128) return LETTERS_ONLY.test(word);
    if (code > 122 || code < 65 || (code > 90 && code < 97)) return false;
  }
  return word.length > 0;
}

/** Counts function words of each language; English only when it clearly dominates. */
export function detectAnalysisModeOfTokens(tokens: readonly Token[]): AnalysisMode {
  let english = 0;
  let malay = 0;
  for (const token of tokens) {
    if (ENGLISH_STOPWORDS.has(token.text)) english++;
    else if (MALAY_STOPWORDS.has(token.text)) malay++;
  }
  return english >= ENGLISH_MODE_MIN_STOPWORDS && english >= ENGLISH_MODE_DOMINANCE * malay ? 'english' : 'malay';
}

/** The indexing mode of a text (segments use the body's mode for the title too). */
export function detectAnalysisMode(text: string): AnalysisMode {
  return detectAnalysisModeOfTokens(tokenize(text));
}

/**
 * Malay affixes first; a root that looks Malay is final (Porter would cut tulis to tuli and merge it
 * with tuli), anything else gets Porter. The choice depends on the root alone, so mengajar and ajar meet.
 */
function malayAwareStem(word: string): string {
  const root = malayStem(word);
  return looksMalay(root) ? root : porterStem(root);
}

/**
 * What analysis needs of a letters-only word, built once with the word's cache entry: whether it is a stopword
 * and its stems for each choice (one look-up per token instead of three, and no slice per token).
 */
interface WordStems {
  stopword: boolean;
  /** [Malay-aware stem, Porter stem], one entry when they agree. */
  query: readonly string[];
  malay: readonly string[];
  english: readonly string[];
  /** What it derives as a vocabulary word, built when first asked for (wordDerivations). */
  derivations?: WordDerivations;
}

const stemCache = new RecentCache<string, WordStems>(STEM_CACHE_LIMIT);

function stemsOfWord(word: string, recordHot = true): WordStems {
  let stems = recordHot ? stemCache.get(word) : stemCache.find(word);
  if (stems === undefined) {
    const stopword = isStopword(word);
    const malayAware = malayAwareStem(word);
    const english = porterStem(word);
    if (malayAware === english) {
      const one = [english];
      stems = { stopword, query: one, malay: one, english: one };
    } else stems = { stopword, query: [malayAware, english], malay: [malayAware], english: [english] };
    stemCache.set(word, stems);
  }
  return stems;
}

/** Which stems a word contributes: one per indexing mode, or every variant for a query. */
export type StemChoice = AnalysisMode | 'query';

/** True for a non-empty word of ASCII lower-case letters: tokenizing it gives the word itself, unchanged. */
function isAsciiLowerWord(word: string): boolean {
  if (word.length === 0) return false;
  for (let i = 0; i < word.length; i++) {
    const code = word.charCodeAt(i);
    if (code < 97 || code > 122) return false;
  }
  return true;
}

export interface WordDerivations {
  /** analyzeQueryTerms(word). */
  terms: readonly string[];
  /** The word's Malay stem when it differs from the word, then its Malay root candidates. */
  malayRoots: readonly string[];
}

/**
 * What a vocabulary word derives (vocabulary.ts derivedTermsOf), built once and kept on the word's stem cache
 * entry: the lanes of a generation ask for the words their analysis looked up a moment before, so the entry is at
 * hand (a cache of its own cost a cold look-up per word). The look-up leaves the cache's front map to the words of
 * running text (a generation's vocabulary words are its rarer ones). A word of plain ASCII letters analyzes as
 * itself, so its query terms are its query stems; any other word is analyzed in full.
 */
export function wordDerivations(word: string): WordDerivations {
  const stems = stemsOfWord(word, false);
  if (stems.derivations === undefined) {
    const stem = malayStem(word);
    const candidates = malayRootCandidates(word);
    const terms = isAsciiLowerWord(word) ? (stems.stopword ? [] : stems.query) : analyzeQueryTerms(word);
    stems.derivations = { terms, malayRoots: stem !== word ? [stem, ...candidates] : [...candidates] };
  }
  return stems.derivations;
}

/** Amounts written with thousands separators index as plain digits so 1,234.56 meets 1234.56. */
function identifierTerm(text: string): string {
  return GROUPED_AMOUNT.test(text) ? text.replace(/,/g, '') : text;
}

/** Receives each term as it is produced (a Term list for analyze, plain strings for the term-only paths). */
type Emit = (term: string, start: number, end: number, position: number) => void;

/** The stems a word contributes in this choice (a property read per choice: a keyed read by a variable name is slower). */
function stemsFor(stems: WordStems, choice: StemChoice): readonly string[] {
  return choice === 'english' ? stems.english : choice === 'malay' ? stems.malay : stems.query;
}

/** Emits the stems of a letters-only surface word (none for a stopword). */
function pushLettersWord(word: string, start: number, end: number, position: number, mode: StemChoice, emit: Emit): void {
  const stems = stemsOfWord(word);
  if (stems.stopword) return;
  const terms = stemsFor(stems, mode);
  for (let i = 0; i < terms.length; i++) emit(terms[i], start, end, position);
}

/** [start, end) offsets (within span) of the pieces between part separators; one piece when there is none. */
function identifierPieces(span: string): Array<[number, number]> {
  const pieces: Array<[number, number]> = [];
  let start = 0;
  for (let i = 0; i < span.length; i++) {
    const ch = span[i];
    if (PART_SEPARATORS.has(ch) || (ch.charCodeAt(0) >= 128 && PART_SEPARATORS.has(ch.normalize('NFKC')))) {
      pieces.push([start, i]);
      start = i + 1;
    }
  }
  pieces.push([start, span.length]);
  return pieces;
}

/** Parts of an identifier (ACC and 0012345 of ACC-0012345), so a partial identifier query still meets it. */
function pushIdentifierParts(token: Token, original: string, position: number, mode: StemChoice, emit: Emit, whole: string): void {
  const span = original.slice(token.start, token.end);
  const pieces = identifierPieces(span);
  if (pieces.length < 2) return;
  for (const [from, to] of pieces) {
    for (const part of tokenize(span.slice(from, to))) {
      const start = token.start + from + part.start;
      const end = token.start + from + part.end;
      const word = surfaceWord(part.text);
      if (isLettersOnly(word)) pushLettersWord(word, start, end, position, mode, emit);
      else if (identifierTerm(word) !== whole) emit(identifierTerm(word), start, end, position);
    }
  }
}

function analyzeToken(token: Token, original: string, position: number, mode: StemChoice, emit: Emit): void {
  const word = surfaceWord(token.text);
  if (isLettersOnly(word)) return pushLettersWord(word, token.start, token.end, position, mode, emit);
  const whole = identifierTerm(word);
  emit(whole, token.start, token.end, position);
  pushIdentifierParts(token, original, position, mode, emit, whole);
}

function analyzeInto(text: string, choice: StemChoice | undefined, emit: Emit, tokens: readonly Token[] = tokenize(text)): void {
  const resolved = choice ?? detectAnalysisModeOfTokens(tokens);
  for (let i = 0; i < tokens.length; i++) analyzeToken(tokens[i], text, i, resolved, emit);
}

function analyzeWith(text: string, choice: StemChoice | undefined): Term[] {
  const out: Term[] = [];
  analyzeInto(text, choice, (term, start, end, position) => out.push({ term, start, end, position }));
  return out;
}

function termsWith(text: string, choice: StemChoice | undefined, tokens?: readonly Token[]): string[] {
  const out: string[] = [];
  analyzeInto(text, choice, (term) => out.push(term), tokens);
  return out;
}

/** Indexing-side terms (also for highlighting a text) with offsets and positions; the mode is detected unless given. */
export function analyze(text: string, mode?: AnalysisMode): Term[] {
  return analyzeWith(text, mode);
}

/** Just the terms of analyze(text), in order (duplicates kept: they are term frequencies). */
export function analyzeTerms(text: string, mode?: AnalysisMode): string[] {
  return termsWith(text, mode);
}

/**
 * Query-side terms: like analyze, but a word whose Malay-aware and Porter stems differ yields both at
 * the same position, so it matches texts indexed in either mode.
 */
export function analyzeQuery(text: string): Term[] {
  return analyzeWith(text, 'query');
}

export function analyzeQueryTerms(text: string): string[] {
  return termsWith(text, 'query');
}

export interface FieldTerms {
  mode: AnalysisMode;
  text: string[];
  title: string[];
}

/** Index terms of a chunk's body and title; the body decides the mode of both (a title is too short to tell). */
export function analyzeFields(text: string, title = ''): FieldTerms {
  return analyzeFieldsOfTokens(text, tokenize(text), title, tokenize(title));
}

/**
 * analyzeFields over tokens the caller already has (tokenize(text) and tokenize(title)), in `mode` when the
 * caller knows it (the chunk's detected language chose it), else in the mode its function words suggest.
 */
export function analyzeFieldsOfTokens(text: string, bodyTokens: readonly Token[], title: string, titleTokens: readonly Token[], known?: AnalysisMode): FieldTerms {
  const mode = known ?? detectAnalysisModeOfTokens(bodyTokens.length > 0 ? bodyTokens : titleTokens);
  return { mode, text: termsWith(text, mode, bodyTokens), title: termsWith(title, mode, titleTokens) };
}
