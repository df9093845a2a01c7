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

/**
 * Matches of a global pattern that start a word; after a rejected start the scan resumes one character later.
 * The scan's position is kept here and set on the pattern before each exec (and the pattern's lastIndex put back to
 * 0 after it), so scans may nest or interleave over one shared pattern without a copy of it per scan (a RegExp made
 * per call cost entity extraction about a twelfth of its time).
 */
export function* wordStartMatches(text: string, pattern: RegExp, joiners = ''): Generator<RegExpExecArray> {
  for (let from = 0; ; ) {
    pattern.lastIndex = from;
    const m = pattern.exec(text);
    const end = pattern.lastIndex;
    pattern.lastIndex = 0;
    if (m === null) return;
    if (isWordStart(text, m.index, joiners)) {
      from = end;
      yield m;
    } else from = m.index + 1;
  }
}
