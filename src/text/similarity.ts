// Character similarity for fuzzy query correction: 1 - Levenshtein distance / length of the longer word,
// counted in Unicode code points. It must stay symmetric, in [0, 1], and 1 only for identical words.

/** Code points of a word (so an astral character counts once, like any other character). */
export function codePoints(word: string): number[] {
  const out: number[] = [];
  for (const ch of word) out.push(ch.codePointAt(0)!);
  return out;
}

/**
 * Levenshtein distance (insert, delete, substitute; each costs 1). Stops early and returns
 * maxDistance + 1 once the distance is known to exceed maxDistance.
 */
export function levenshteinDistance(a: readonly number[], b: readonly number[], maxDistance = Infinity): number {
  if (Math.abs(a.length - b.length) > maxDistance) return maxDistance + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  let current = new Array<number>(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min(substitution, previous[j] + 1, current[j - 1] + 1);
      if (current[j] < rowMin) rowMin = current[j];
    }
    if (rowMin > maxDistance) return maxDistance + 1;
    [previous, current] = [current, previous];
  }
  return previous[b.length];
}

/** Largest edit distance that still leaves similarity >= minSimilarity between words of these lengths. */
export function maxEditsFor(lengthA: number, lengthB: number, minSimilarity: number): number {
  const longer = Math.max(lengthA, lengthB);
  // The epsilon keeps exact boundaries (0.6 * 5 = 2 edits) from being lost to floating point.
  return Math.floor((1 - minSimilarity) * longer + 1e-9);
}

/** 1 - levenshtein(a, b) / max(|a|, |b|) over code points; 1 for two empty words. */
export function characterSimilarity(a: string, b: string): number {
  if (a === b) return 1;
  const x = codePoints(a);
  const y = codePoints(b);
  const longer = Math.max(x.length, y.length);
  return longer === 0 ? 1 : 1 - levenshteinDistance(x, y) / longer;
}

/**
 * Keystroke distance: Levenshtein plus adjacent transposition at cost 1 (optimal string alignment).
 * Used only to cap how far a typo fix may reach; the similarity above stays plain Levenshtein.
 */
export function keystrokeDistance(a: readonly number[], b: readonly number[]): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => {
    const row = new Array<number>(b.length + 1).fill(0);
    row[0] = i;
    return row;
  });
  for (let j = 0; j <= b.length; j++) rows[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2][j - 2] + 1);
      rows[i][j] = best;
    }
  }
  return rows[a.length][b.length];
}
