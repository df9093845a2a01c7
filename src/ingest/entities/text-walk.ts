// Reads whitespace-separated words outward from a position, staying on one line, so extractors can grow
// a name around an anchor ("Sdn. Bhd.", "Bank", "bin") without backtracking regexes. Never crosses a newline.

export interface Word {
  text: string;
  start: number;
  end: number;
}

const isHorizontalSpace = (c: string): boolean => c === ' ' || c === '\t' || c === '\u00a0';
// CSV cells and careless typing glue words to commas ("hospital,Hospital Alor Gajah"): a comma ends a word.
const isSeparator = (c: string): boolean => c === ',' || c === ';';
const isLineBreak = (c: string): boolean => c === '\n' || c === '\r';

/** Up to `max` words ending before `index`, nearest first. */
export function wordsBefore(text: string, index: number, max: number): Word[] {
  const words: Word[] = [];
  let i = index;
  while (words.length < max) {
    while (i > 0 && isHorizontalSpace(text[i - 1])) i--;
    if (i === 0 || isLineBreak(text[i - 1])) break;
    const end = i;
    while (i > 0 && !isHorizontalSpace(text[i - 1]) && !isLineBreak(text[i - 1]) && !(i < end && isSeparator(text[i - 1]))) i--;
    words.push({ text: text.slice(i, end), start: i, end });
  }
  return words;
}

/** Up to `max` words starting at or after `index`, in reading order. */
export function wordsAfter(text: string, index: number, max: number): Word[] {
  const words: Word[] = [];
  let i = index;
  while (words.length < max) {
    while (i < text.length && isHorizontalSpace(text[i])) i++;
    if (i >= text.length || isLineBreak(text[i])) break;
    const start = i;
    while (i < text.length && !isHorizontalSpace(text[i]) && !isLineBreak(text[i])) {
      i++;
      if (isSeparator(text[i - 1])) break;
    }
    words.push({ text: text.slice(start, i), start, end: i });
  }
  return words;
}

/** A word's letters without the punctuation glued to either side ("Services," -> "Services"). */
export function bareWord(word: string): string {
  return word.replace(/^[("'“‘]+/u, '').replace(/[)"'”’,;:!?]+$/u, '');
}

/** True when the word carries punctuation that ends a name (a comma, colon, semicolon, closing quote). */
export function endsClause(word: string): boolean {
  return /[,;:!?"”]$/u.test(word);
}
