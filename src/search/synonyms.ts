// A Client's synonyms (DESIGN.md "Facets, sorting, synonyms, similar documents"): multi-way sets, whose terms
// all stand for each other, and one-way rules, whose input also finds its synonyms but not the reverse. They
// widen the content lane's keyword (sparse) query after normalization: the dense lane embeds the query as
// normalized, and the metadata lane never sees them (SPEC.md search rule 5 is about the content lane alone).

import { normalizeText } from '../text/normalize.ts';
import { tokenize } from '../text/tokenize.ts';
import type { ValidationDetail } from '../domain/validation-error.ts';

/** Rules a Client may hold; a PUT replaces the whole set. */
export const MAX_SYNONYM_RULES = 10_000;
/** Terms of one rule (a set's terms, or a rule's synonyms): a rule is a handful of words for one thing. */
export const MAX_TERMS_PER_RULE = 50;
/** Characters of one term: a word or a short phrase. */
export const MAX_SYNONYM_TERM_LENGTH = 100;

/** A multi-way set: any of its terms finds the others. */
export interface SynonymSet {
  terms: string[];
}

/** A one-way rule: `input` also finds `synonyms`; a synonym does not find `input`. */
export interface OneWaySynonym {
  input: string;
  synonyms: string[];
}

export type SynonymRule = SynonymSet | OneWaySynonym;

/** One term as the query normalizer leaves it, split into the words the query is matched by. */
function termWords(term: string): string[] {
  return tokenize(normalizeText(term)).map((token) => token.text);
}

/**
 * Checks the shape the JSON schema cannot say alone: a rule is a set (`terms`, at least two) or a one-way rule
 * (`input` and `synonyms`), never both or neither, and every term has a word to match. Answers the problems found.
 */
export function synonymRuleProblems(rules: readonly Record<string, unknown>[]): ValidationDetail[] {
  const problems: ValidationDetail[] = [];
  rules.forEach((rule, index) => {
    // Indexes as strings, as the schema's own errors name them (http/validation.ts reads them off a JSON pointer).
    const loc = ['body', 'synonyms', String(index)];
    const isSet = 'terms' in rule;
    const isOneWay = 'input' in rule || 'synonyms' in rule;
    if (isSet === isOneWay) {
      problems.push({ type: 'value_error', loc, msg: 'A rule is either {"terms": [...]} or {"input": "...", "synonyms": [...]}', input: rule });
      return;
    }
    if (isOneWay) {
      for (const key of ['input', 'synonyms']) {
        if (!(key in rule)) problems.push({ type: 'missing', loc: [...loc, key], msg: 'Field required', input: rule });
      }
    }
    const terms: [string | number, unknown][] = isSet
      ? ((rule.terms as string[]) ?? []).map((term, at) => [at, term])
      : [['input', rule.input], ...((rule.synonyms as string[] | undefined) ?? []).map((term, at): [number, unknown] => [at, term])];
    for (const [at, term] of terms) {
      if (typeof term === 'string' && termWords(term).length === 0) {
        const where = at === 'input' ? [...loc, 'input'] : [...loc, isSet ? 'terms' : 'synonyms', String(at)];
        problems.push({ type: 'value_error', loc: where, msg: 'A term needs at least one word or number', input: term });
      }
    }
  });
  return problems;
}

/** A term a query gains from a rule, normalized, with the query's words that triggered it (in query order). */
export interface SynonymTerm {
  term: string;
  /** Every trigger that added it, each its words as the query has them. */
  triggers: string[][];
}

/** A rule as matching uses it: the word sequences that trigger it and the terms each adds. */
interface CompiledRule {
  /** Word sequences found in the query; for a set, every term. */
  triggers: string[][];
  /** Terms added when the trigger at the same index matched (a set adds its other terms). */
  adds: string[][];
}

/** A Client's rules compiled once per accepted change, and the expansion of one query by them. */
export class SynonymExpander {
  readonly rules: readonly SynonymRule[];
  /** Rules by the first word of each trigger: a query looks up its own words, not every rule. */
  private readonly byFirstWord = new Map<string, { words: string[]; adds: string[] }[]>();

  constructor(rules: readonly SynonymRule[]) {
    this.rules = rules;
    for (const rule of rules) {
      const compiled = compileRule(rule);
      compiled.triggers.forEach((words, index) => {
        const entries = this.byFirstWord.get(words[0]) ?? [];
        entries.push({ words, adds: compiled.adds[index] });
        this.byFirstWord.set(words[0], entries);
      });
    }
  }

  get isEmpty(): boolean {
    return this.byFirstWord.size === 0;
  }

  /**
   * The terms the normalized query gains, each normalized, once, in rule order: a phrase matches as consecutive
   * words. Expansion is one step: an added term does not trigger further rules (a chain of one-way rules would
   * otherwise widen a query far beyond what its author wrote). An added phrase widens the keyword query by its
   * words, each matched on its own as the query's own words are (the keyword lane has no phrase matching).
   */
  expand(normalizedQuery: string): SynonymTerm[] {
    if (this.isEmpty) return [];
    const words = tokenize(normalizedQuery).map((token) => token.text);
    const added = new Map<string, SynonymTerm>();
    for (let at = 0; at < words.length; at++) {
      for (const entry of this.byFirstWord.get(words[at]) ?? []) {
        if (!entry.words.every((word, offset) => words[at + offset] === word)) continue;
        for (const term of entry.adds) {
          const known = added.get(term);
          if (known === undefined) added.set(term, { term, triggers: [entry.words] });
          else known.triggers.push(entry.words);
        }
      }
    }
    return [...added.values()];
  }
}

function compileRule(rule: SynonymRule): CompiledRule {
  if ('terms' in rule) {
    const terms = rule.terms.map((term) => termWords(term).join(' '));
    return { triggers: terms.map((term) => term.split(' ')), adds: terms.map((term) => terms.filter((other) => other !== term)) };
  }
  return { triggers: [termWords(rule.input)], adds: [rule.synonyms.map((term) => termWords(term).join(' '))] };
}

export const NO_SYNONYMS = new SynonymExpander([]);
