// Character similarity for fuzzy query correction: 1 - Levenshtein distance / length of the longer word,
// counted in Unicode code points. It must stay symmetric, in [0, 1], and 1 only for identical words.

/** Code points of a word (so an astral character counts once, like any other character). */
export function codePoints(word: string): number[] {
  const out: number[] = [];
  for (const ch of word) out.push(ch.codePointAt(0)!);
  return out;
}

/** Two rows of the distance table, reused by every call (calls are synchronous, so none overlap). */
let previousRow = new Int32Array(64);
let currentRow = new Int32Array(64);

/**
 * Levenshtein distance (insert, delete, substitute; each costs 1) between a[0 .. aLength) and b[0 .. bLength).
 * With a finite maxDistance only the band of cells within maxDistance of the diagonal is computed (a cell
 * outside it is over the bound whatever it holds), and maxDistance + 1 is returned once the distance is known
 * to exceed it.
 */
export function levenshteinDistance(a: ArrayLike<number>, b: ArrayLike<number>, maxDistance = Infinity, aLength = a.length, bLength = b.length): number {
  if (Math.abs(aLength - bLength) > maxDistance) return maxDistance + 1;
  if (previousRow.length <= bLength) {
    previousRow = new Int32Array(bLength + 1);
    currentRow = new Int32Array(bLength + 1);
  }
  const band = Number.isFinite(maxDistance) ? maxDistance : Math.max(aLength, bLength);
  const over = band + 1;
  let previous = previousRow;
  let current = currentRow;
  for (let j = 0; j <= bLength; j++) previous[j] = j <= band ? j : over;
  for (let i = 1; i <= aLength; i++) {
    const from = Math.max(1, i - band);
    const to = Math.min(bLength, i + band);
    current[from - 1] = from === 1 ? (i <= band ? i : over) : over;
    let rowMin = current[from - 1];
    const ai = a[i - 1];
    for (let j = from; j <= to; j++) {
      const substitution = previous[j - 1] + (ai === b[j - 1] ? 0 : 1);
      const deletion = previous[j] + 1;
      const insertion = current[j - 1] + 1;
      const cell = substitution < deletion ? (substitution < insertion ? substitution : insertion) : deletion < insertion ? deletion : insertion;
      current[j] = cell;
      if (cell < rowMin) rowMin = cell;
    }
    if (to < bLength) current[to + 1] = over; // the next row's cell above it lies outside this row's band
    if (rowMin > maxDistance) return maxDistance + 1;
    const swap = previous;
    previous = current;
    current = swap;
  }
  return Math.min(previous[bLength], over);
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
