// The console lives within its Client's rate-limit budget (RATE_LIMIT_PER_MINUTE, 30 by default, shared by every
// key of the Client and every tab of the console). Every request goes through one gate: a refusal with
// Retry-After (429, or 503 on a read) closes the gate for as long as the service asked, however long that is, the
// wait is shown, and the request is made again; requests started meanwhile wait at the gate instead of spending
// the budget on refusals. Jobs are polled with a growing interval, so a few uploads in flight do not eat the minute.
// The gate also hears the budget every answer tells (RateLimit-* headers): when the service says no room is left,
// it closes until a slot frees before anything meets a refusal (the wait shows once a request is held there), and
// polls leave the window's last quarter alone.

import { pollHoldMs, SearchServiceError } from '../../clients/typescript/src/index.ts';
import type { ServiceBudget } from '../../clients/typescript/src/index.ts';

/** First pause between two status reads of one job. */
export const POLL_FIRST_MS = 1_000;
/** Each pause is this much longer than the one before... */
export const POLL_GROWTH = 1.5;
/** ...up to this. */
export const POLL_MAX_MS = 8_000;
/**
 * Refusals one request sits out before it reports the last one. The service bounds each Retry-After (at most the
 * 60 s window), so this only stops a service that keeps refusing forever from holding a control for ever.
 */
export const MAX_WAITS = 10;

/** Writes are repeated only when refused before any work (429); a refused read changed nothing (429 and 503). */
export type CallKind = 'read' | 'write';

export interface WaitReport {
  /** Whole seconds left; 0 when the gate opens. */
  seconds: number;
  /** rate_limited, publication_busy, ...: what the service said. */
  code: string;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class RateGate {
  private openAt = 0;
  private ticker: ReturnType<typeof setInterval> | null = null;
  private code = '';
  private readonly onWait: (report: WaitReport) => void;
  /** The budget the last answer told, and when (Date.now()); null until one did. */
  private told: { budget: ServiceBudget; at: number } | null = null;

  constructor(onWait: (report: WaitReport) => void) {
    this.onWait = onWait;
  }

  /** Resolves once no refusal asks to wait any longer. */
  async passed(): Promise<void> {
    // A request is held: from now until the gate opens, the wait is shown.
    if (this.closed()) this.show();
    for (let left = this.openAt - Date.now(); left > 0; left = this.openAt - Date.now()) await pause(left);
    // The gate is open: the notice hears so now, before the request goes, not at the countdown's next tick.
    if (this.ticker !== null) this.report();
  }

  /** Whether a refusal's wait is still running. */
  closed(): boolean {
    return this.openAt > Date.now();
  }

  /** A refusal asked to wait `seconds`: nothing goes out before then, and the countdown is shown meanwhile. */
  close(seconds: number, code: string): void {
    this.hold(seconds, code);
    this.show();
  }

  /**
   * An answer told the Client's budget: with no room left, nothing goes out until a slot frees. The gate closes
   * quietly; the wait shows only once a request comes to it (passed), so a notice never counts down for nothing.
   */
  learn(budget: ServiceBudget): void {
    this.told = { budget, at: Date.now() };
    if (budget.remaining === 0 && budget.resetSeconds > 0) this.hold(budget.resetSeconds, 'rate_limited');
  }

  /** The budget the service last told, or null (an older service, or nothing answered yet). */
  get serviceBudget(): ServiceBudget | null {
    return this.told?.budget ?? null;
  }

  /** How long a job poll waits besides its own pause: while the told room is in its last quarter, until a slot frees. */
  pollHoldMs(): number {
    return this.told === null ? 0 : pollHoldMs(this.told.budget, Date.now() - this.told.at);
  }

  private hold(seconds: number, code: string): void {
    this.openAt = Math.max(this.openAt, Date.now() + seconds * 1000);
    this.code = code;
  }

  /** Shows the countdown now and every second until the gate opens. */
  private show(): void {
    this.report();
    if (this.closed()) this.ticker ??= setInterval(() => this.report(), 1000);
  }

  private report(): void {
    const seconds = Math.max(0, Math.ceil((this.openAt - Date.now()) / 1000));
    this.onWait({ seconds, code: this.code });
    if (seconds === 0 && this.ticker !== null) {
      clearInterval(this.ticker);
      this.ticker = null;
    }
  }

  /** Makes `call` until it is answered without a Retry-After refusal the console may repeat. */
  async call<T>(kind: CallKind, call: () => Promise<T>): Promise<T> {
    for (let waits = 0; ; waits++) {
      await this.passed();
      try {
        return await call();
      } catch (error) {
        if (!(error instanceof SearchServiceError) || !error.retryable || waits >= MAX_WAITS) throw error;
        if (error.status === 503 && kind === 'write') throw error;
        this.close(error.retryAfterSeconds!, error.code);
      }
    }
  }
}

/** The pause before the status read after `polls` reads, growing from POLL_FIRST_MS to POLL_MAX_MS. */
export function pollPauseMs(polls: number): number {
  return Math.min(POLL_MAX_MS, POLL_FIRST_MS * POLL_GROWTH ** Math.max(0, polls - 1));
}

export { pause };
