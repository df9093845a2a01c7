// What an answer of a rate-limited route tells of the Client's budget, so that tools pace themselves on the
// service's own figures instead of guessing the limit: RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset
// (draft-ietf-httpapi-ratelimit-headers, as plain integers), and a 429's details. The budget is counted while the
// route runs (access.ts starts it) and written as the answer goes out, error answers included.

import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RateBudget } from './rate-limit.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The budget that decided this request, being counted; null on routes without a budget. */
    rateBudget: Promise<RateBudget | null> | null;
  }
}

export const RATE_LIMIT_HEADERS = { limit: 'RateLimit-Limit', remaining: 'RateLimit-Remaining', reset: 'RateLimit-Reset' } as const;

/** A 429's details: the budget that refused, its window, and the wait Retry-After says too. */
export function rateLimitDetails(budget: RateBudget): { limit: number; window_seconds: number; retry_after_seconds: number } {
  return { limit: budget.limit, window_seconds: budget.windowSeconds, retry_after_seconds: budget.resetSeconds };
}

/** The onSend hook: the budget's headers on every answer of a rate-limited route (none when it could not be counted). */
export async function sendRateLimitHeaders(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  if (request.rateBudget === null) return payload;
  const budget = await request.rateBudget;
  if (budget !== null) {
    reply.header(RATE_LIMIT_HEADERS.limit, String(budget.limit));
    reply.header(RATE_LIMIT_HEADERS.remaining, String(budget.remaining));
    reply.header(RATE_LIMIT_HEADERS.reset, String(budget.resetSeconds));
  }
  return payload;
}
