// The Client's budget as the service tells it on every answer of a rate-limited route: RateLimit-Limit (requests a
// window allows), RateLimit-Remaining (room left after this request) and RateLimit-Reset (seconds until the oldest
// request of the window leaves it). Tools pace on these instead of guessing the limit; an answer without them
// (an older service, a route without a budget) leaves them to their own guess.

export interface ServiceBudget {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

/** The share of the limit a tool's job polls leave to the person's other requests (a quarter: 7 of 30). */
export const POLL_HEADROOM_SHARE = 0.25;

function wholeNumber(headers: Headers, name: string): number | null {
  const text = headers.get(name);
  if (text === null || !/^\d{1,9}$/.test(text.trim())) return null;
  return Number(text.trim());
}

/** The budget an answer tells, or null when it does not tell all three figures. */
export function serviceBudgetOf(headers: Headers): ServiceBudget | null {
  const limit = wholeNumber(headers, 'ratelimit-limit');
  const remaining = wholeNumber(headers, 'ratelimit-remaining');
  const resetSeconds = wholeNumber(headers, 'ratelimit-reset');
  if (limit === null || limit < 1 || remaining === null || resetSeconds === null) return null;
  return { limit, remaining, resetSeconds };
}

/**
 * How long a job poll should wait, `elapsedMs` after `budget` was told, so that polls never take the last
 * POLL_HEADROOM_SHARE of the window: until a slot frees while the room left is that low, else not at all.
 */
export function pollHoldMs(budget: ServiceBudget | null, elapsedMs: number): number {
  if (budget === null) return 0;
  const headroom = Math.floor(budget.limit * POLL_HEADROOM_SHARE);
  if (budget.remaining > headroom) return 0;
  return Math.max(0, budget.resetSeconds * 1000 - elapsedMs);
}
