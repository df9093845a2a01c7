// Word-start checks done in code instead of a leading regex lookbehind: a pattern that starts with a
// lookbehind loses V8's fast scan for its first characters and runs several times slower on large text.
// Only for patterns that begin with literals (currency codes, labels, titles); never for digit runs.

const WORD_CHAR = /[\p{L}\p{M}\p{N}]/u;

/** True when the character before `index` is not a letter, digit or one of `joiners`. */
export function isWordStart(text: string, index: number, joiners = ''): boolean {
  if (index === 0) return true;
  const before = text[index - 1];
  return !WORD_CHAR.test(before) && !joiners.includes(before);
}

/** Matches of a global pattern that start a word; after a rejected start the scan resumes one character later. */
export function* wordStartMatches(text: string, pattern: RegExp, joiners = ''): Generator<RegExpExecArray> {
  const cursor = new RegExp(pattern); // a private lastIndex: callers may nest scans
  for (let m = cursor.exec(text); m !== null; m = cursor.exec(text)) {
    if (isWordStart(text, m.index, joiners)) yield m;
    else cursor.lastIndex = m.index + 1;
  }
}
