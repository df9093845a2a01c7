// Keyword scoring shared by the built-in and the model-file classifiers: tokenization, phrase counting,
// saturating scores and the choice of categories. Pure functions; no file or network access.

import { wordRuns } from './word-tokens.ts';

/** Text beyond this many characters is not read: the head of a document says what kind it is. */
export const MAX_CLASSIFIER_INPUT_CHARS = 100_000;
/** Longest keyword phrase, in words. */
export const MAX_KEYWORD_WORDS = 4;
/** Weight of a category's own name as a phrase ("bank_statement" -> "bank statement") when it has no better prototype. */
export const CATEGORY_NAME_WEIGHT = 2;

export interface ScoringOptions {
  /** A category needs at least this score. */
  minScore: number;
  /** ... and at least this fraction of the best category's score. */
  relativeThreshold: number;
  maxCategories: number;
}

export const DEFAULT_SCORING: ScoringOptions = { minScore: 4, relativeThreshold: 0.5, maxCategories: 3 };

/** phrase (normalized words joined by one space) -> weight; negative weights count against. */
export type KeywordWeights = ReadonlyMap<string, number>;

/** NFKC, lower case, letters and digits only; "Invoice No.:" -> ["invoice", "no"]. */
export function classifierTokens(text: string): string[] {
  return wordRuns(text.normalize('NFKC').toLocaleLowerCase('en'));
}

export function normalizePhrase(phrase: string): string {
  return classifierTokens(phrase).join(' ');
}

/** "Bank Statement", "bank-statement" and "bank_statement" name one category. */
export function normalizeCategoryName(name: string): string {
  return classifierTokens(name.replace(/_/g, ' ')).join('_');
}

/** The proper prefixes (in words) of the wanted phrases: a phrase is extended only while it can still become one. */
export function phrasePrefixes(wanted: ReadonlySet<string>): ReadonlySet<string> {
  const prefixes = new Set<string>();
  for (const phrase of wanted) {
    for (let at = phrase.indexOf(' '); at >= 0; at = phrase.indexOf(' ', at + 1)) prefixes.add(phrase.slice(0, at));
  }
  return prefixes;
}

/** Occurrences of each wanted phrase in the tokens (n-grams up to MAX_KEYWORD_WORDS, looked up in `wanted`). */
export function countPhrases(tokens: readonly string[], wanted: ReadonlySet<string>, prefixes = phrasePrefixes(wanted)): Map<string, number> {
  const counts = new Map<string, number>();
  for (let i = 0; i < tokens.length; i++) {
    let phrase = tokens[i];
    for (let n = 0; ; ) {
      if (wanted.has(phrase)) counts.set(phrase, (counts.get(phrase) ?? 0) + 1);
      if (++n >= MAX_KEYWORD_WORDS || i + n >= tokens.length || !prefixes.has(phrase)) break;
      phrase = `${phrase} ${tokens[i + n]}`;
    }
  }
  return counts;
}

/** Sum of weight x (1 + ln count): repeating a word helps, but a hundred "deposit"s cannot outvote a title. */
export function scoreKeywords(counts: ReadonlyMap<string, number>, keywords: KeywordWeights): number {
  let score = 0;
  for (const [phrase, weight] of keywords) {
    const count = counts.get(phrase) ?? 0;
    if (count > 0) score += weight * (1 + Math.log(count));
  }
  return score;
}

/** Categories over both thresholds, best first, at most maxCategories. */
export function selectCategories(scores: ReadonlyArray<readonly [string, number]>, options: ScoringOptions): string[] {
  const best = Math.max(0, ...scores.map(([, score]) => score));
  return scores
    .filter(([, score]) => score >= options.minScore && score >= best * options.relativeThreshold)
    .sort((a, b) => b[1] - a[1])
    .slice(0, options.maxCategories)
    .map(([name]) => name);
}
