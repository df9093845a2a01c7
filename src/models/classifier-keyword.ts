// The keyword/prototype classifier: scores a text against each allowed category's keyword prototype (the
// built-in English/Malay ones, or those of a model file) plus the category's own name, and keeps the clear
// winners. Deterministic and offline; it never returns a category that was not allowed.

import type { Classifier } from './classifier.ts';
import { BUILTIN_PROTOTYPES, type PrototypeSpec } from './classifier-prototypes.ts';
import {
  CATEGORY_NAME_WEIGHT,
  DEFAULT_SCORING,
  MAX_CLASSIFIER_INPUT_CHARS,
  classifierTokens,
  countPhrases,
  phrasePrefixes,
  normalizeCategoryName,
  normalizePhrase,
  scoreKeywords,
  selectCategories,
  type KeywordWeights,
  type ScoringOptions,
} from './classifier-scoring.ts';

/** Bump when built-in prototypes or scoring change, so reported provenance tells results apart. */
export const KEYWORD_CLASSIFIER_MODEL = 'keyword-prototype-v1';

export interface KeywordClassifierOptions {
  model?: string;
  modelFile?: string | null;
  /** Category name -> prototype; defaults to BUILTIN_PROTOTYPES. */
  prototypes?: Readonly<Record<string, PrototypeSpec>>;
  scoring?: Partial<ScoringOptions>;
}

/** Normalized category name or alias -> normalized keyword weights. */
export type PrototypeIndex = ReadonlyMap<string, KeywordWeights>;

export function buildPrototypeIndex(prototypes: Readonly<Record<string, PrototypeSpec>>): PrototypeIndex {
  const index = new Map<string, KeywordWeights>();
  for (const [name, spec] of Object.entries(prototypes)) {
    const weights = new Map<string, number>();
    for (const [phrase, weight] of Object.entries(spec.keywords)) {
      const key = normalizePhrase(phrase);
      if (key !== '') weights.set(key, (weights.get(key) ?? 0) + weight);
    }
    for (const alias of [name, ...(spec.aliases ?? [])]) index.set(normalizeCategoryName(alias), weights);
  }
  return index;
}

/** A category's prototype, plus its own name as a phrase, so "legal" or "kyc_form" still get a signal. */
export function keywordsForCategory(category: string, index: PrototypeIndex): KeywordWeights {
  const normalized = normalizeCategoryName(category);
  const weights = new Map(index.get(normalized) ?? []);
  const namePhrase = normalized.replace(/_/g, ' ');
  if (namePhrase !== '' && !weights.has(namePhrase)) weights.set(namePhrase, CATEGORY_NAME_WEIGHT);
  return weights;
}

/** Category lists whose phrases are remembered: a deployment classifies against a few lists, over and over. */
export const PHRASE_SETS_REMEMBERED = 32;

export function createKeywordClassifier(options: KeywordClassifierOptions = {}): Classifier {
  const index = buildPrototypeIndex(options.prototypes ?? BUILTIN_PROTOTYPES);
  // The phrases of each category list and their prefixes, by the list; cleared whole when full.
  const phraseSets = new Map<string, { perCategory: ReadonlyArray<readonly [string, KeywordWeights]>; wanted: ReadonlySet<string>; prefixes: ReadonlySet<string> }>();
  const phrasesFor = (allowed: readonly string[]) => {
    const key = JSON.stringify(allowed);
    let phrases = phraseSets.get(key);
    if (phrases === undefined) {
      const perCategory = allowed.map((c) => [c, keywordsForCategory(c, index)] as const);
      const wanted = new Set(perCategory.flatMap(([, weights]) => [...weights.keys()]));
      phrases = { perCategory, wanted, prefixes: phrasePrefixes(wanted) };
      if (phraseSets.size >= PHRASE_SETS_REMEMBERED) phraseSets.clear();
      phraseSets.set(key, phrases);
    }
    return phrases;
  };
  const scoring: ScoringOptions = { ...DEFAULT_SCORING, ...options.scoring };
  return {
    model: options.model ?? KEYWORD_CLASSIFIER_MODEL,
    modelFile: options.modelFile ?? null,
    async classify(text, categories) {
      const allowed = [...new Set(categories)];
      const { perCategory, wanted, prefixes } = phrasesFor(allowed);
      const counts = countPhrases(classifierTokens(text.slice(0, MAX_CLASSIFIER_INPUT_CHARS)), wanted, prefixes);
      const scores = perCategory.map(([c, weights]) => [c, scoreKeywords(counts, weights)] as const);
      return selectCategories(scores, scoring);
    },
  };
}
