// Sliding-window rate limiting per resolved Client: every key of a Client draws on one budget, whichever api
// process answers, because the windows live in the durable store. It sees only the Client, a bucket and a clock.

/** The shared windows decisions are taken in (the control store keeps them, for every process). */
export interface RateWindows {
  takeSlots(clientId: string, buckets: readonly { bucket: string; limit: number }[], windowMs: number): Promise<{ allowed: boolean; retryAfterMs: number }>;
}

/** The window of RATE_LIMIT_PER_MINUTE. */
export const RATE_LIMIT_WINDOW_MS = 60_000;

/** The buckets: every protected route, and POST /search's additional counter. */
export const RATE_BUCKETS = { all: 'all', search: 'search' } as const;
export type RateBucket = (typeof RATE_BUCKETS)[keyof typeof RATE_BUCKETS];

export interface RateDecision {
  allowed: boolean;
  /** Whole seconds until a slot frees up (only when refused). */
  retryAfterSeconds: number;
}

export class RateLimiter {
  private readonly rateLimits: RateWindows;
  private readonly limits: Record<RateBucket, number>;
  private readonly windowMs: number;

  constructor(rateLimits: RateWindows, limits: Record<RateBucket, number>, windowMs = RATE_LIMIT_WINDOW_MS) {
    this.rateLimits = rateLimits;
    this.limits = limits;
    this.windowMs = windowMs;
  }

  /**
   * Counts one request of the Client in each bucket if every window has room; a refused request is counted
   * in none (POST /search draws on `all` and `search` together).
   */
  async take(clientId: string, ...buckets: RateBucket[]): Promise<RateDecision> {
    const decision = await this.rateLimits.takeSlots(clientId, buckets.map((bucket) => ({ bucket, limit: this.limits[bucket] })), this.windowMs);
    return { allowed: decision.allowed, retryAfterSeconds: decision.allowed ? 0 : Math.max(1, Math.ceil(decision.retryAfterMs / 1000)) };
  }
}
