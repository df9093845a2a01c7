// Sliding-window rate limiting per resolved Client: every key of a Client draws on one budget, whichever api
// process answers, because the windows live in the durable store. It sees only the Client, a bucket and a clock.
//
// A busy Client would cost a write to the store on every request. So while its window has plenty of room, a
// process takes a batch of slots at once (sized to its own recent demand, at most a share of the room left)
// and hands them to its next requests for a short lifetime, giving back the ones it did not hand out. The
// store counts a batch as taken at the end of its lifetime, so no slot is counted later than the request that
// used it: the limit holds in every window. A window with little room left (under SLOT_BATCH_MIN_ROOM; the
// default 30 a minute always) is decided request by request, exactly as without batches.

/** The shared windows decisions are taken in (the control store keeps them, for every process). */
export interface RateWindows {
  takeSlots(
    clientId: string,
    buckets: readonly { bucket: string; limit: number; wanted?: number }[],
    windowMs: number,
    batch?: { lifetimeMs: number; roomShare: number; minRoom: number },
  ): Promise<{ allowed: boolean; retryAfterMs: number; granted: number[]; stampedAt: number }>;
  returnSlots(clientId: string, bucket: string, count: number, stampedAt: number): Promise<void>;
}

/** The window of RATE_LIMIT_PER_MINUTE. */
export const RATE_LIMIT_WINDOW_MS = 60_000;

/** How long a process may hand out the slots of a batch (and how much later than taken they are counted). */
export const SLOT_BATCH_LIFETIME_MS = 1_000;
/** The most slots one batch takes. */
export const SLOT_BATCH_MAX = 64;
/** A batch takes at most 1/16 of the room left in the window. */
export const SLOT_BATCH_ROOM_SHARE = 16;
/**
 * Below this much room left, requests go one by one. Slots another process holds could otherwise refuse a
 * request a little before the limit; this way that can only happen to a Client that uses its last thousand
 * slots within a batch's lifetime.
 */
export const SLOT_BATCH_MIN_ROOM = 1_024;

/** The buckets: every protected route, and POST /search's additional counter. */
export const RATE_BUCKETS = { all: 'all', search: 'search' } as const;
export type RateBucket = (typeof RATE_BUCKETS)[keyof typeof RATE_BUCKETS];

export interface RateDecision {
  allowed: boolean;
  /** Whole seconds until a slot frees up (only when refused). */
  retryAfterSeconds: number;
}

/** Slots counted in the store that this process hands out until `expiresAt`. */
interface SlotBatch {
  clientId: string;
  bucket: RateBucket;
  left: number;
  expiresAt: number;
  stampedAt: number;
  timer: NodeJS.Timeout | null;
}

/** A (Client, bucket)'s batches and its demand: requests taken in the current and the previous lifetime. */
interface BucketState {
  batches: SlotBatch[];
  /** A batch is being asked for (one at a time). */
  asking: boolean;
  periodStart: number;
  current: number;
  previous: number;
}

export class RateLimiter {
  private readonly rateLimits: RateWindows;
  private readonly limits: Record<RateBucket, number>;
  private readonly windowMs: number;
  private readonly now: () => number;
  private readonly states = new Map<string, BucketState>();
  private readonly returning = new Set<Promise<void>>();

  constructor(rateLimits: RateWindows, limits: Record<RateBucket, number>, windowMs = RATE_LIMIT_WINDOW_MS, now: () => number = () => performance.now()) {
    this.rateLimits = rateLimits;
    this.limits = limits;
    this.windowMs = windowMs;
    this.now = now;
  }

  /**
   * Counts one request of the Client in each bucket if every window has room; a refused request is counted
   * in none (POST /search draws on `all` and `search` together).
   */
  async take(clientId: string, ...buckets: RateBucket[]): Promise<RateDecision> {
    // The time before the store is asked: a batch it counts is stamped at its own later time plus the
    // lifetime, so a batch that expires a lifetime after this moment is never handed out past its stamp.
    const now = this.now();
    const states = buckets.map((bucket) => this.stateOf(clientId, bucket, now));
    // Held slots are used only when every bucket has one, synchronously: no slot is set aside across an await.
    if (states.every((state) => hasHeld(state, now))) {
      for (const state of states) {
        takeHeld(state, now);
        state.current++;
      }
      return { allowed: true, retryAfterSeconds: 0 };
    }
    // One batch asked for at a time per bucket: requests that miss meanwhile ask for their own slot only.
    const wanted = states.map((state) => (state.asking ? 1 : Math.min(SLOT_BATCH_MAX, Math.max(1, state.previous))));
    const asking = states.filter((_, at) => wanted[at] > 1);
    for (const state of asking) state.asking = true;
    let decision: Awaited<ReturnType<RateWindows['takeSlots']>>;
    try {
      decision = await this.rateLimits.takeSlots(
        clientId,
        buckets.map((bucket, at) => ({ bucket, limit: this.limits[bucket], wanted: wanted[at] })),
        this.windowMs,
        { lifetimeMs: SLOT_BATCH_LIFETIME_MS, roomShare: SLOT_BATCH_ROOM_SHARE, minRoom: SLOT_BATCH_MIN_ROOM },
      );
    } finally {
      for (const state of asking) state.asking = false;
    }
    if (!decision.allowed) return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(decision.retryAfterMs / 1000)) };
    buckets.forEach((bucket, at) => {
      if (decision.granted[at] > 1) this.hold(clientId, bucket, decision.granted[at] - 1, decision.stampedAt, now + SLOT_BATCH_LIFETIME_MS);
    });
    for (const state of states) state.current++;
    return { allowed: true, retryAfterSeconds: 0 };
  }

  /** Gives every slot still held back to the store (at shutdown, so that other processes can use them). */
  async returnHeld(): Promise<void> {
    for (const state of this.states.values()) for (const batch of [...state.batches]) this.expire(batch);
    await Promise.all([...this.returning]);
  }

  private stateOf(clientId: string, bucket: RateBucket, now: number): BucketState {
    const key = stateKey(clientId, bucket);
    let state = this.states.get(key);
    if (state === undefined) {
      state = { batches: [], asking: false, periodStart: now, current: 0, previous: 0 };
      this.states.set(key, state);
    }
    if (now - state.periodStart >= SLOT_BATCH_LIFETIME_MS) {
      // Demand is what one lifetime asked for; after an idle stretch, nothing.
      state.previous = now - state.periodStart < 2 * SLOT_BATCH_LIFETIME_MS ? state.current : 0;
      state.current = 0;
      state.periodStart = now;
    }
    return state;
  }

  private hold(clientId: string, bucket: RateBucket, left: number, stampedAt: number, expiresAt: number): void {
    const state = this.stateOf(clientId, bucket, this.now());
    const batch: SlotBatch = { clientId, bucket, left, expiresAt, stampedAt, timer: null };
    batch.timer = setTimeout(() => this.expire(batch), Math.max(0, expiresAt - this.now()));
    batch.timer.unref();
    state.batches.push(batch);
  }

  /** Ends a batch: its slots are no longer handed out, and the ones left go back to the store. */
  private expire(batch: SlotBatch): void {
    const key = stateKey(batch.clientId, batch.bucket);
    const state = this.states.get(key);
    if (state === undefined || !state.batches.includes(batch)) return;
    state.batches.splice(state.batches.indexOf(batch), 1);
    if (batch.timer) clearTimeout(batch.timer);
    if (state.batches.length === 0 && !state.asking && state.current === 0 && state.previous === 0) this.states.delete(key);
    if (batch.left > 0) this.giveBack(batch, batch.left);
    batch.left = 0;
  }

  private giveBack(batch: SlotBatch, count: number): void {
    // Failing to give slots back (or a process that dies holding some) only leaves them counted until the
    // window slides past them: at most a minute and a second, and only while the window had 1,024 slots of room.
    const returned = this.rateLimits.returnSlots(batch.clientId, batch.bucket, count, batch.stampedAt).catch(() => undefined);
    this.returning.add(returned);
    void returned.finally(() => this.returning.delete(returned));
  }
}

function stateKey(clientId: string, bucket: RateBucket): string {
  return `${clientId}\u0000${bucket}`;
}

function hasHeld(state: BucketState, now: number): boolean {
  return state.batches.some((batch) => batch.left > 0 && now < batch.expiresAt);
}

/** Hands out one slot of the first live batch with slots left. */
function takeHeld(state: BucketState, now: number): void {
  const batch = state.batches.find((held) => held.left > 0 && now < held.expiresAt);
  if (batch) batch.left--;
}
