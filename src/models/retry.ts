// Bounded retries with exponential backoff for model provider calls that failed in a retryable way.
// It never retries errors marked non-retryable, and never waits longer than the configured cap.

import { ModelProviderError } from './model-error.ts';

export interface RetryPolicy {
  /** Extra attempts after the first. */
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

function delayFor(attempt: number, policy: RetryPolicy, error: ModelProviderError): number {
  const exponential = policy.baseDelayMs * 2 ** attempt;
  // Up to 25% jitter keeps many workers from retrying in lockstep.
  const jittered = exponential * (1 + Math.random() * 0.25);
  const wanted = Math.max(jittered, error.retryAfterMs ?? 0);
  return Math.min(wanted, policy.maxDelayMs);
}

/** Runs `attempt` until it succeeds, fails non-retryably, or the retries are used up (the last error is thrown). */
export async function withRetries<T>(policy: RetryPolicy, attempt: (index: number) => Promise<T>): Promise<T> {
  for (let index = 0; ; index++) {
    try {
      return await attempt(index);
    } catch (error) {
      if (!(error instanceof ModelProviderError) || !error.retryable || index >= policy.maxRetries) throw error;
      await new Promise((done) => setTimeout(done, delayFor(index, policy, error)));
    }
  }
}
