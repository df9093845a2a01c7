// Sliding-window rate limiting per resolved Client: every key of a Client draws on one budget.
// In-memory and per process; it never sees request contents, only the Client and a clock.

/** The window of RATE_LIMIT_PER_MINUTE. */
export const RATE_LIMIT_WINDOW_MS = 60_000;

export interface RateDecision {
  allowed: boolean;
  /** Whole seconds until a slot frees up (only when refused). */
  retryAfterSeconds: number;
}

export class SlidingWindowLimiter {
  private readonly limit: number;
  private readonly windowMs: number;
  private readonly now: () => number;
  private readonly hits = new Map<string, number[]>();

  constructor(limit: number, windowMs = RATE_LIMIT_WINDOW_MS, now: () => number = Date.now) {
    this.limit = limit;
    this.windowMs = windowMs;
    this.now = now;
  }

  /** Counts one request for the Client if the window has room; a refused request is not counted. */
  take(clientId: string): RateDecision {
    const now = this.now();
    const recent = (this.hits.get(clientId) ?? []).filter((at) => at > now - this.windowMs);
    if (recent.length >= this.limit) {
      this.hits.set(clientId, recent);
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((recent[0] + this.windowMs - now) / 1000)) };
    }
    recent.push(now);
    this.hits.set(clientId, recent);
    return { allowed: true, retryAfterSeconds: 0 };
  }
}
