// A Client's rate-limit budget as one SearchClient spends it: at most `requests` requests in any window of
// `windowMs`, the sliding window the service counts in (SPEC.md). A request holds its slot from when it is sent
// until a window after its answer arrived: the service took the slot somewhere in between, so counting from the
// answer never sends the next request before the service would take it.

import { sleep } from './sleep.ts';
import type { ServiceBudget } from './service-budget.ts';

/**
 * A timer may fire a millisecond or so before Date.now() says its time has come (the two clocks round apart): a
 * wait for a slot lasts this much longer, so that it never ends just short of the slot and is told a second time.
 */
export const TIMER_SLACK_MS = 5;

export class RequestBudget {
  private requests: number;
  private readonly windowMs: number;
  /** When the answers of the counted requests arrived (epoch ms), oldest first. */
  private readonly answeredAt: number[] = [];
  private inFlight = 0;
  /** Callers waiting for a request in flight to be answered, when every slot is held by one. */
  private readonly waiters: (() => void)[] = [];
  /** No request goes before this (epoch ms): the service said the window has no room left until then. */
  private holdUntil = 0;

  constructor(requests: number, windowMs: number) {
    if (!Number.isInteger(requests) || requests < 1) throw new RangeError(`a budget of ${requests} requests is not a positive whole number`);
    this.requests = requests;
    this.windowMs = windowMs;
  }

  /**
   * Milliseconds until a slot is free (0: now); null while every slot is held by a request still in flight. Both
   * bounds in one: the service's hold and this client's own count of the window, so that one wait covers both
   * (the service's reset is in whole seconds and counted from its side, and can end before this client's count).
   */
  private delay(now: number): number | null {
    const hold = Math.max(0, this.holdUntil - now);
    while (this.answeredAt.length > 0 && this.answeredAt[0] + this.windowMs <= now) this.answeredAt.shift();
    if (this.answeredAt.length + this.inFlight < this.requests) return hold;
    if (this.answeredAt.length === 0) return hold > 0 ? hold : null;
    return Math.max(hold, this.answeredAt[0] + this.windowMs - now);
  }

  /**
   * Adopts what the service told of the budget (`at`, epoch ms, when the answer came): its limit instead of the
   * one guessed, and with no room left, no request before a slot frees. Other users of the Client's keys spend the
   * same window, so its room can be less than this client counts.
   */
  learn(budget: ServiceBudget, at = Date.now()): void {
    this.requests = budget.limit;
    if (budget.remaining === 0) this.holdUntil = Math.max(this.holdUntil, at + budget.resetSeconds * 1000);
  }

  /** The limit this budget keeps to (the one given, or the service's once told). */
  get limit(): number {
    return this.requests;
  }

  /**
   * Waits for a free slot (telling `onWait` how long first), takes it, and returns what to call once the answer
   * has arrived, or the request failed. A wait for a request in flight is not ended by the signal: that request
   * ends by itself (answered, failed or aborted), and the slot it frees is this one's.
   */
  async take(signal: AbortSignal | undefined, onWait: (ms: number) => void): Promise<() => void> {
    for (;;) {
      const ms = this.delay(Date.now());
      if (ms === 0) break;
      if (ms === null) {
        await new Promise<void>((resolve) => this.waiters.push(resolve));
      } else {
        onWait(ms);
        await sleep(ms + TIMER_SLACK_MS, signal);
      }
    }
    this.inFlight++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight--;
      this.answeredAt.push(Date.now());
      this.waiters.splice(0).forEach((wake) => wake());
    };
  }
}
