// The built-in models' own word splitter: NFKC, lower case, runs of letters, digits and combining marks.
// Deliberately independent of src/text's tokenizer and normalizer, so that changing query normalization never
// changes stored vectors (it only borrows the code-point test, which is the pattern's definition itself).

import { codePointTest } from '../text/code-point-test.ts';

/** A non-ASCII code point that belongs in a word: what `[\p{L}\p{N}\p{M}]` matches with the u flag. */
const isNonAsciiWordCodePoint = codePointTest(/^[\p{L}\p{N}\p{M}]$/u);

function isAsciiWordUnit(unit: number): boolean {
  return (unit >= 97 && unit <= 122) || (unit >= 48 && unit <= 57) || (unit >= 65 && unit <= 90);
}

/**
 * Calls `visit(start, end)` for each maximal run of word code points in `text`, the ranges of what
 * `text.match(/[\p{L}\p{N}\p{M}]+/gu)` gives (a surrogate pair is one code point, a lone surrogate is none), read
 * by a loop instead of the regex: a Unicode property class makes the regex test every character in a call out of
 * compiled code, several times slower.
 */
export function forEachWordRun(text: string, visit: (start: number, end: number) => void): void {
  let start = -1;
  for (let i = 0; i < text.length; ) {
    const unit = text.charCodeAt(i);
    let width = 1;
    let inWord: boolean;
    if (unit < 128) inWord = isAsciiWordUnit(unit);
    else {
      const code = text.codePointAt(i)!;
      if (code > 0xffff) width = 2;
      inWord = isNonAsciiWordCodePoint(code);
    }
    if (inWord) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      visit(start, i);
      start = -1;
    }
    i += width;
  }
  if (start >= 0) visit(start, text.length);
}

/** The maximal runs of word code points in `text`, as strings (forEachWordRun). */
export function wordRuns(text: string): string[] {
  const runs: string[] = [];
  forEachWordRun(text, (start, end) => runs.push(text.slice(start, end)));
  return runs;
}

/** The text as the built-in models read words in it: NFKC, lower case. */
export function wordText(text: string): string {
  return text.normalize('NFKC').toLowerCase();
}

export function wordTokens(text: string): string[] {
  return wordRuns(wordText(text));
}
