// Loads a CLASSIFIER_MODEL_FILE: a small JSON keyword model (format "keyword-classifier/v1", below) that
// replaces or extends the built-in prototypes. Every defect is reported with the file and the JSON path;
// a bad file never yields a half-loaded classifier.
//
// {
//   "format": "keyword-classifier/v1",
//   "model": "acme-categories-2024",                 // reported as classifier_model
//   "include_builtin": false,                        // optional: also use built-in prototypes for other categories
//   "scoring": { "min_score": 4, "relative_threshold": 0.4, "max_categories": 3 },   // optional, each optional
//   "categories": {
//     "invoice": { "aliases": ["bill"], "keywords": { "invoice": 3, "amount due": 2, "quotation": -2 } }
//   }
// }

import { readFile, stat } from 'node:fs/promises';
import type { Classifier } from './classifier.ts';
import { createKeywordClassifier } from './classifier-keyword.ts';
import { BUILTIN_PROTOTYPES, type PrototypeSpec } from './classifier-prototypes.ts';
import { MAX_KEYWORD_WORDS, classifierTokens, type ScoringOptions } from './classifier-scoring.ts';
import { ModelProviderError } from './model-error.ts';

export const CLASSIFIER_MODEL_FORMAT = 'keyword-classifier/v1';
export const MAX_CLASSIFIER_MODEL_FILE_BYTES = 4 * 1024 * 1024;
export const MAX_MODEL_CATEGORIES = 1000;
export const MAX_KEYWORDS_PER_CATEGORY = 10_000;
export const MAX_ALIASES_PER_CATEGORY = 32;
export const MAX_MODEL_NAME_CHARS = 200;
export const MAX_KEYWORD_CHARS = 200;
export const MAX_KEYWORD_WEIGHT = 100;

export interface ClassifierModel {
  model: string;
  includeBuiltin: boolean;
  scoring: Partial<ScoringOptions>;
  categories: Record<string, PrototypeSpec>;
}

type Json = unknown;

class ModelFileDefect extends Error {}

const isObject = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);

function fail(path: string, problem: string): never {
  throw new ModelFileDefect(`${path} ${problem}`);
}

function objectAt(value: Json, path: string): Record<string, Json> {
  return isObject(value) ? value : fail(path, 'must be a JSON object');
}

function optionalNumber(value: Json, path: string, min: number, max: number, integer = false): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
    fail(path, `must be ${integer ? 'an integer' : 'a number'} between ${min} and ${max}`);
  }
  return value;
}

function parseScoring(value: Json): Partial<ScoringOptions> {
  if (value === undefined) return {};
  const scoring = objectAt(value, 'scoring');
  const result: Partial<ScoringOptions> = {};
  const minScore = optionalNumber(scoring.min_score, 'scoring.min_score', 0, Number.MAX_SAFE_INTEGER);
  const relative = optionalNumber(scoring.relative_threshold, 'scoring.relative_threshold', 0, 1);
  const max = optionalNumber(scoring.max_categories, 'scoring.max_categories', 1, MAX_MODEL_CATEGORIES, true);
  if (minScore !== undefined) result.minScore = minScore;
  if (relative !== undefined) result.relativeThreshold = relative;
  if (max !== undefined) result.maxCategories = max;
  return result;
}

function parseKeyword(phrase: string, weight: Json, path: string): number {
  if (phrase.length > MAX_KEYWORD_CHARS) fail(path, `is longer than ${MAX_KEYWORD_CHARS} characters`);
  const words = classifierTokens(phrase).length;
  if (words === 0) fail(path, 'has no letters or digits');
  if (words > MAX_KEYWORD_WORDS) fail(path, `has more than ${MAX_KEYWORD_WORDS} words`);
  if (typeof weight !== 'number' || !Number.isFinite(weight) || weight === 0 || Math.abs(weight) > MAX_KEYWORD_WEIGHT) {
    fail(path, `must be a non-zero number between -${MAX_KEYWORD_WEIGHT} and ${MAX_KEYWORD_WEIGHT}`);
  }
  return weight;
}

function parseAliases(value: Json, path: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length > MAX_ALIASES_PER_CATEGORY) fail(path, `must be an array of at most ${MAX_ALIASES_PER_CATEGORY} strings`);
  return value.map((alias, i) => (typeof alias === 'string' && alias.trim() !== '' ? alias : fail(`${path}[${i}]`, 'must be a non-empty string')));
}

function parseCategory(name: string, value: Json): PrototypeSpec {
  const path = `categories[${JSON.stringify(name)}]`;
  if (name.trim() === '') fail(path, 'needs a non-empty name');
  const category = objectAt(value, path);
  const keywords = objectAt(category.keywords, `${path}.keywords`);
  const entries = Object.entries(keywords);
  if (entries.length === 0) fail(`${path}.keywords`, 'must hold at least one keyword');
  if (entries.length > MAX_KEYWORDS_PER_CATEGORY) fail(`${path}.keywords`, `holds more than ${MAX_KEYWORDS_PER_CATEGORY} keywords`);
  const parsed: Record<string, number> = {};
  for (const [phrase, weight] of entries) parsed[phrase] = parseKeyword(phrase, weight, `${path}.keywords[${JSON.stringify(phrase)}]`);
  return { aliases: parseAliases(category.aliases, `${path}.aliases`), keywords: parsed };
}

/** Validates a parsed JSON model; throws ModelFileDefect naming the first bad path. */
function parseModelJson(json: Json): ClassifierModel {
  const root = objectAt(json, 'the file');
  if (root.format !== CLASSIFIER_MODEL_FORMAT) fail('format', `must be "${CLASSIFIER_MODEL_FORMAT}"`);
  const model = root.model;
  if (typeof model !== 'string' || model.trim() === '' || model.length > MAX_MODEL_NAME_CHARS) {
    fail('model', `must be a non-empty string of at most ${MAX_MODEL_NAME_CHARS} characters`);
  }
  if (root.include_builtin !== undefined && typeof root.include_builtin !== 'boolean') fail('include_builtin', 'must be true or false');
  const categories = Object.entries(objectAt(root.categories, 'categories'));
  if (categories.length === 0) fail('categories', 'must hold at least one category');
  if (categories.length > MAX_MODEL_CATEGORIES) fail('categories', `holds more than ${MAX_MODEL_CATEGORIES} categories`);
  return {
    model: model.trim(),
    includeBuiltin: root.include_builtin === true,
    scoring: parseScoring(root.scoring),
    categories: Object.fromEntries(categories.map(([name, value]) => [name, parseCategory(name, value)])),
  };
}

function invalid(source: string, problem: string, cause?: unknown): ModelProviderError {
  return new ModelProviderError('model_file_invalid', `CLASSIFIER_MODEL_FILE ${source}: ${problem}`, { cause });
}

/** Parses and validates model-file text; `source` names the file in error messages. */
export function parseClassifierModel(content: string, source: string): ClassifierModel {
  let json: Json;
  try {
    json = JSON.parse(content);
  } catch (error) {
    throw invalid(source, `is not valid JSON (${(error as Error).message})`, error);
  }
  try {
    return parseModelJson(json);
  } catch (error) {
    if (error instanceof ModelFileDefect) throw invalid(source, error.message);
    throw error;
  }
}

/** A classifier over a validated model: the file's categories, plus built-in ones when include_builtin is set. */
export function classifierFromModel(model: ClassifierModel, modelFile: string | null): Classifier {
  const prototypes = model.includeBuiltin ? { ...BUILTIN_PROTOTYPES, ...model.categories } : model.categories;
  return createKeywordClassifier({ model: model.model, modelFile, prototypes, scoring: model.scoring });
}

export async function loadClassifierModelFile(path: string): Promise<Classifier> {
  let content: string;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw invalid(path, 'is not a regular file');
    if (info.size > MAX_CLASSIFIER_MODEL_FILE_BYTES) throw invalid(path, `is larger than ${MAX_CLASSIFIER_MODEL_FILE_BYTES} bytes`);
    content = await readFile(path, 'utf8');
  } catch (error) {
    if (error instanceof ModelProviderError) throw error;
    throw invalid(path, `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, error);
  }
  return classifierFromModel(parseClassifierModel(content, path), path);
}
