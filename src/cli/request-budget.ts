// The CLI's share of its Client's rate-limit budget (SPEC.md: RATE_LIMIT_PER_MINUTE requests a minute, a sliding
// window over every protected route, shared by every key and tool of the Client). Every request the CLI sends
// passes through one fetch that counts them: a job poll waits while the CLI's own requests of the last minute
// leave less than POLL_HEADROOM_SHARE of the limit, so polling never spends the budget the person's other tools
// (the console, a search) need; a refusal's Retry-After holds every request until then, instead of each of them
// meeting the limit again. Whoever is waiting can be told (`waitingUntil`), so the wait is shown, not hidden.
//
// Until the service tells its budget the CLI assumes one (--rate-limit, else this machine's RATE_LIMIT_PER_MINUTE,
// 30 by default). Every answer of a rate-limited route then tells it (RateLimit-Limit, -Remaining, -Reset): the CLI
// keeps to the limit told, sends nothing while the window has no room left, and holds polls while the room left is
// the other tools' quarter, until a slot frees. A wrong guess costs time, never a refused result: a 429 is honoured.

import { POLL_HEADROOM_SHARE, serviceBudgetOf } from '../../clients/typescript/src/index.ts';
import type { ServiceBudget } from '../../clients/typescript/src/index.ts';
import { connectionFailure } from './connection.ts';

export { POLL_HEADROOM_SHARE };

/** The service's window (SPEC.md: requests per minute, sliding). */
export const RATE_WINDOW_MS = 60_000;
/** How many 429s in a row one request honours before its refusal is handed up. */
export const MAX_RATE_LIMIT_WAITS = 20;

/** Uploads, searches and listings are what the person asked for; polls only confirm, so they yield first. */
export type RequestKind = 'work' | 'poll';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class RequestBudget {
  /** When each of the CLI's own requests of the current window was sent, oldest first. */
  private readonly sent: number[] = [];
  /** No request goes before this (the latest Retry-After the service sent). */
  private holdUntil = 0;
  /** When each request now waiting may go. */
  private readonly waiting = new Set<{ at: number }>();
  /** No poll goes before this: the service said the room left is the other tools' share until then. */
  private pollHoldUntil = 0;
  private limits: Record<RequestKind, number>;
  private readonly now: () => number;
  /** 429 answers honoured so far, requests counted, and the time any request spent waiting for room (a summary's). */
  refusals = 0;
  requests = 0;
  waitedMs = 0;
  private waitStartedAt: number | null = null;
  /** Told when requests start to wait for room (how long for), unless a progress bar shows it instead. */
  onWait: ((ms: number) => void) | null = null;

  constructor(limitPerMinute: number, now: () => number = Date.now) {
    this.limits = limitsOf(limitPerMinute);
    this.now = now;
  }

  /** The limit kept to: the one assumed, or the service's once an answer told it. */
  get limit(): number {
    return this.limits.work;
  }

  /**
   * An answer told the Client's budget: its limit replaces the assumed one; with no room left nothing is sent, and
   * with only the others' quarter left no poll, until a slot frees. The room is the service's count, so requests
   * of the person's other tools are in it, which the CLI's own count cannot see.
   */
  learn(told: ServiceBudget): void {
    this.limits = limitsOf(told.limit);
    const freesAt = this.now() + told.resetSeconds * 1000;
    if (told.remaining === 0) this.holdUntil = Math.max(this.holdUntil, freesAt);
    if (told.remaining <= told.limit - this.limits.poll) this.pollHoldUntil = Math.max(this.pollHoldUntil, freesAt);
  }

  private prune(now: number): void {
    while (this.sent.length > 0 && this.sent[0] <= now - RATE_WINDOW_MS) this.sent.shift();
  }

  /** When a request of `kind` may go, given the requests already sent (and, for estimates, planned). */
  private readyAt(kind: RequestKind, sent: readonly number[], now: number): number {
    const cap = this.limits[kind];
    let at = Math.max(now, this.holdUntil, kind === 'poll' ? this.pollHoldUntil : 0);
    if (sent.length >= cap) at = Math.max(at, sent[sent.length - cap] + RATE_WINDOW_MS);
    return at;
  }

  /** Resolves when a request of `kind` may be sent, and counts it as sent. */
  async take(kind: RequestKind): Promise<void> {
    for (;;) {
      const now = this.now();
      this.prune(now);
      const at = this.readyAt(kind, this.sent, now);
      if (at <= now) {
        this.sent.push(now);
        this.requests++;
        return;
      }
      const wait = { at };
      if (this.waiting.size === 0) this.onWait?.(at - now);
      this.waiting.add(wait);
      this.waitStartedAt ??= now;
      try {
        await sleep(at - now);
      } finally {
        this.waiting.delete(wait);
        if (this.waiting.size === 0 && this.waitStartedAt !== null) {
          this.waitedMs += this.now() - this.waitStartedAt;
          this.waitStartedAt = null;
        }
      }
    }
  }

  /** The service refused a request: nothing is sent before its Retry-After has passed. */
  refused(retryAfterSeconds: number): void {
    this.refusals++;
    this.holdUntil = Math.max(this.holdUntil, this.now() + retryAfterSeconds * 1000);
  }

  /** When the soonest waiting request may go, or null when nothing waits for the budget. */
  waitingUntil(): number | null {
    let soonest: number | null = null;
    for (const { at } of this.waiting) soonest = soonest === null ? at : Math.min(soonest, at);
    return soonest;
  }

  /** Milliseconds before `count` more requests of `kind` can all have been sent (an ETA's lower bound). */
  msFor(count: number, kind: RequestKind): number {
    const now = this.now();
    this.prune(now);
    const planned = [...this.sent];
    let last = now;
    for (let i = 0; i < count; i++) {
      last = this.readyAt(kind, planned, now);
      planned.push(last);
    }
    return last - now;
  }
}

/** Requests a window allows the person's requests, and the three quarters of it polls may take. */
function limitsOf(limitPerMinute: number): Record<RequestKind, number> {
  return { work: limitPerMinute, poll: Math.max(1, Math.floor(limitPerMinute * (1 - POLL_HEADROOM_SHARE))) };
}

/** Seconds of a Retry-After header (the service sends whole seconds), or null without a usable one. */
export function retryAfterSeconds(response: Response): number | null {
  const header = response.headers.get('retry-after');
  const seconds = header === null ? Number.NaN : Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : null;
}

/** Job polls are GET /status/{job_id}; /health is public and spends nothing. */
function kindOf(request: Request): RequestKind | null {
  const path = new URL(request.url).pathname;
  if (path.endsWith('/health')) return null;
  return request.method === 'GET' && /\/status\/[^/]+$/.test(path) ? 'poll' : 'work';
}

/**
 * A fetch for the typed client that keeps within `budget`: it waits for room, honours each 429's Retry-After by
 * sending the same request again (the client never sees that refusal), and turns a failure to connect into an
 * error naming the service and the cause. Other refusals (a 503's Retry-After included) go to the client as they
 * came: it knows which requests are safe to repeat.
 */
export function budgetedFetch(budget: RequestBudget, serviceUrl: string, inner: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const kind = kindOf(request);
    for (let refusals = 0; ; refusals++) {
      if (kind !== null) await budget.take(kind);
      let response: Response;
      try {
        // A clone each time: the request's body can then be sent again after a refusal.
        response = await inner(request.clone());
      } catch (error) {
        if (request.signal.aborted) throw error;
        throw connectionFailure(serviceUrl, error);
      }
      const told = serviceBudgetOf(response.headers);
      if (told !== null) budget.learn(told);
      const seconds = response.status === 429 ? retryAfterSeconds(response) : null;
      if (seconds === null || refusals >= MAX_RATE_LIMIT_WAITS) return response;
      budget.refused(seconds);
      await response.body?.cancel();
    }
  };
}
