// Tokenization for indexing, querying and highlighting: splits text into normalized tokens whose
// offsets point at real spans of the ORIGINAL string. It never stems, drops stopwords or rewrites words.

import { normalizeToken } from './normalize.ts';

export interface Token {
  /** NFKC + case-folded form of the span. */
  text: string;
  /** UTF-16 offset of the first code unit in the original string. */
  start: number;
  /** UTF-16 offset just past the last code unit in the original string. */
  end: number;
}

/** Tokens longer than this (UTF-16 units) are cut: nobody searches for a 200-character run. */
export const MAX_TOKEN_LENGTH = 128;

const WORD = 0;
const JOINER = 1;
const GLUE = 2;
const SEPARATOR = 3;
const DIGIT = 4;
type CharClass = 0 | 1 | 2 | 3 | 4;

/**
 * Punctuation that may sit inside a token when word characters surround it. Whether the run stays one
 * token is decided afterwards (identifiers, amounts and e-mails stay whole; plain words split).
 */
const JOINERS = new Set(['-', '/', '.', ',', '_', ':', '@', "'", '\u2019', '\u2010', '\u2011']);
const APOSTROPHES = new Set(["'", '\u2019']);
const WORD_CHAR = /^[\p{L}\p{N}\p{M}]/u;
const DECIMAL_DIGIT = /^\p{Nd}/u;
const INVISIBLE_FORMAT = /^\p{Cf}$/u;

function asciiClass(code: number): CharClass {
  if (code >= 48 && code <= 57) return DIGIT;
  if ((code >= 65 && code <= 90) || (code >= 97 && code <= 122)) return WORD;
  return JOINERS.has(String.fromCharCode(code)) ? JOINER : SEPARATOR;
}

const ASCII_CLASSES = Uint8Array.from({ length: 128 }, (_, code) => asciiClass(code));
const classCache = new Map<number, CharClass>();

/** Non-ASCII characters are judged by their NFKC form so full-width letters, digits and dots behave like ASCII. */
function classifyNonAscii(code: number): CharClass {
  const cached = classCache.get(code);
  if (cached !== undefined) return cached;
  const raw = String.fromCodePoint(code);
  const folded = raw.normalize('NFKC');
  let cls: CharClass = SEPARATOR;
  if (INVISIBLE_FORMAT.test(raw)) cls = GLUE;
  else if (DECIMAL_DIGIT.test(raw) || DECIMAL_DIGIT.test(folded)) cls = DIGIT;
  else if (WORD_CHAR.test(raw) || WORD_CHAR.test(folded)) cls = WORD;
  else if (JOINERS.has(raw) || JOINERS.has(folded)) cls = JOINER;
  classCache.set(code, cls);
  return cls;
}

/** Scanner state over one text: the class and width of the character at `at`. */
interface Cursor {
  text: string;
  cls: CharClass;
  width: number;
  code: number;
}

function look(c: Cursor, at: number): void {
  const unit = c.text.charCodeAt(at);
  if (unit < 128) {
    c.cls = ASCII_CLASSES[unit] as CharClass;
    c.width = 1;
    c.code = unit;
    return;
  }
  const code = unit >= 0xd800 && unit <= 0xdbff ? c.text.codePointAt(at)! : unit;
  c.cls = classifyNonAscii(code);
  c.width = code > 0xffff ? 2 : 1;
  c.code = code;
}

function isWordClass(cls: CharClass): boolean {
  return cls === WORD || cls === DIGIT;
}

/** A maximal span "word (joiner word)*": offsets of its word pieces and the joiners between them. */
interface Run {
  /** Start and end offsets of each word piece: 2 * (joinerCount + 1) entries in use (the arrays are reused). */
  pieces: number[];
  joiners: string[];
  joinerCount: number;
  hasDigit: boolean;
  ascii: boolean;
}

/** Reads word characters (and invisible glue) from i into the run; returns the end offset. */
function readWord(c: Cursor, i: number, run: Run): number {
  let j = i;
  while (j < c.text.length) {
    look(c, j);
    if (c.cls === DIGIT) run.hasDigit = true;
    else if (c.cls !== WORD && c.cls !== GLUE) break;
    if (c.code >= 128) run.ascii = false;
    j += c.width;
  }
  return j;
}

/** Reads the run that starts at `start` into `run` (one scratch run per tokenize call: a run per word would be garbage). */
function readRun(c: Cursor, start: number, run: Run): Run {
  run.joinerCount = 0;
  run.hasDigit = false;
  run.ascii = true;
  run.pieces[0] = start;
  let end = readWord(c, start, run);
  run.pieces[1] = end;
  while (end < c.text.length) {
    look(c, end);
    if (c.cls !== JOINER) break;
    const joinerCode = c.code;
    const next = end + c.width;
    if (next >= c.text.length) break;
    look(c, next);
    if (!isWordClass(c.cls)) break;
    run.joiners[run.joinerCount] = joinerCode < 128 ? String.fromCharCode(joinerCode) : String.fromCodePoint(joinerCode).normalize('NFKC');
    if (joinerCode >= 128) run.ascii = false;
    const pieceEnd = readWord(c, next, run);
    run.joinerCount++;
    run.pieces[2 * run.joinerCount] = next;
    run.pieces[2 * run.joinerCount + 1] = pieceEnd;
    end = pieceEnd;
  }
  return run;
}

function isEmailRun(run: Run): boolean {
  let at = -1;
  let dotAfter = false;
  for (let i = 0; i < run.joinerCount; i++) {
    if (run.joiners[i] === '@') {
      if (at >= 0) return false;
      at = i;
    } else if (run.joiners[i] === '.' && at >= 0) dotAfter = true;
  }
  return dotAfter;
}

/** Identifiers, amounts and e-mails stay one token: they are searched for as a whole. */
function keepsWhole(run: Run): boolean {
  return run.joinerCount === 0 || run.hasDigit || isEmailRun(run);
}

function pushToken(tokens: Token[], text: string, start: number, end: number, ascii: boolean): void {
  const cut = Math.min(end, start + MAX_TOKEN_LENGTH);
  const raw = text.slice(start, cut);
  const normalized = ascii ? raw.toLowerCase() : normalizeToken(raw);
  if (normalized.length > 0) tokens.push({ text: normalized, start, end: cut });
}

/** Plain words split at joiners, except that an apostrophe between letters stays inside (patient's). */
function pushSplitRun(tokens: Token[], text: string, run: Run): void {
  let start = run.pieces[0];
  let end = run.pieces[1];
  for (let i = 0; i < run.joinerCount; i++) {
    if (!APOSTROPHES.has(run.joiners[i])) {
      pushToken(tokens, text, start, end, run.ascii);
      start = run.pieces[2 * i + 2];
    }
    end = run.pieces[2 * i + 3];
  }
  pushToken(tokens, text, start, end, run.ascii);
}

export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  const c: Cursor = { text, cls: SEPARATOR, width: 1, code: 0 };
  const scratch: Run = { pieces: [], joiners: [], joinerCount: 0, hasDigit: false, ascii: true };
  let i = 0;
  while (i < text.length) {
    look(c, i);
    if (!isWordClass(c.cls)) {
      i += c.width;
      continue;
    }
    const run = readRun(c, i, scratch);
    const runEnd = run.pieces[2 * run.joinerCount + 1];
    if (keepsWhole(run)) pushToken(tokens, text, i, runEnd, run.ascii);
    else pushSplitRun(tokens, text, run);
    i = runEnd;
  }
  return tokens;
}
