// The classification status lifecycle of a job (SPEC.md "Classification"): pending until run, then
// completed or failed; disabled when CLASSIFICATION_ENABLED is false. Running it never throws and never
// reports a category outside the allowed list, whatever the classifier returns.

import { CLASSIFICATION_STATUSES, type ClassificationStatus } from '../domain/job-states.ts';
import type { Classifier } from './classifier.ts';

export { CLASSIFICATION_STATUSES, type ClassificationStatus };

/** A classifier taking longer than this fails the classification (not the indexing). */
export const DEFAULT_CLASSIFICATION_TIMEOUT_MS = 30_000;
/** Failure causes are cut to this length before they reach logs or job records. */
export const MAX_CLASSIFICATION_ERROR_CHARS = 300;

const TERMINAL: ReadonlySet<ClassificationStatus> = new Set(['completed', 'failed', 'disabled']);

export interface ClassificationOutcome {
  status: ClassificationStatus;
  categories: string[];
  /** Why it failed; null unless status is failed. */
  error: string | null;
}

export interface ClassificationRequest {
  enabled: boolean;
  classifier: Classifier | null;
  text: string;
  allowedCategories: readonly string[];
  timeoutMs?: number;
}

/** The status a new job starts with. */
export function initialClassificationStatus(enabled: boolean): ClassificationStatus {
  return enabled ? 'pending' : 'disabled';
}

export function isTerminalClassificationStatus(status: ClassificationStatus): boolean {
  return TERMINAL.has(status);
}

function failed(cause: unknown): ClassificationOutcome {
  const message = cause instanceof Error ? cause.message : String(cause);
  return { status: 'failed', categories: [], error: message.slice(0, MAX_CLASSIFICATION_ERROR_CHARS) };
}

function withTimeout<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`classifier timed out after ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** Only allowed names, each once, in the classifier's order. */
function keepAllowed(categories: unknown, allowed: readonly string[]): string[] {
  if (!Array.isArray(categories)) throw new Error('classifier returned no category list');
  const allowedSet = new Set(allowed);
  return [...new Set(categories.filter((c): c is string => typeof c === 'string' && allowedSet.has(c)))];
}

/** Runs classification for one document and returns its terminal outcome. */
export async function runClassification(request: ClassificationRequest): Promise<ClassificationOutcome> {
  if (!request.enabled) return { status: 'disabled', categories: [], error: null };
  if (request.classifier === null) return failed(new Error('no classifier is configured'));
  try {
    const classify = Promise.resolve().then(() => request.classifier!.classify(request.text, request.allowedCategories));
    const categories = await withTimeout(classify, request.timeoutMs ?? DEFAULT_CLASSIFICATION_TIMEOUT_MS);
    return { status: 'completed', categories: keepAllowed(categories, request.allowedCategories), error: null };
  } catch (error) {
    return failed(error);
  }
}
