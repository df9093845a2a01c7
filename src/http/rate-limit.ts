// Sliding-window rate limiting per resolved Client: every key of a Client draws on one budget, whichever api
// process answers, because the windows live in the durable store. It sees only the Client, a bucket and a clock.
//
// A busy Client would cost a write to the store on every request. So while its window has plenty of room, a
// process takes a batch of slots at once (sized to its own recent demand, at most a share of the room left)
// and hands them to its next requests for a short lifetime, giving back the ones it did not hand out. The
// store counts a batch as taken at the end of its lifetime, so no slot is counted later than the request that
// used it: the limit holds in every window. A window with little room left (under SLOT_BATCH_MIN_ROOM; the
// default 30 a minute always) is decided request by request, exactly as without batches.
//
// A store that is full still reads but refuses every write, and a budget write per request would turn a full
// disk into an outage of every read. So when the store refuses a decision for want of space, this process
// decides in its own window instead: of the room the stored window still shows (read only), its share
// (1/API_PROCESSES, the api processes that share the store), so that all of them together stay within the
// limit. The hits it allows meanwhile are counted in the store, at the times they were allowed, as soon as
// it writes again, before any decision of that Client is taken there. Another process counts its own only when
// it next decides, so for a window after its last decision without the store a process leaves the others'
// shares out of the room it decides on: the limit holds across the outage, at the cost of admitting less for
// that minute. A store that cannot be read at all is no rate-limit question: the error goes up and the
// request is refused as the store's (503).

/** The shared windows decisions are taken in (the control store keeps them, for every process). */
export interface RateWindows {
  takeSlots(
    clientId: string,
    buckets: readonly { bucket: string; limit: number; wanted?: number }[],
    windowMs: number,
    batch?: { lifetimeMs: number; roomShare: number; minRoom: number },
  ): Promise<{ allowed: boolean; retryAfterMs: number; granted: number[]; stampedAt: number }>;
  returnSlots(clientId: string, bucket: string, count: number, stampedAt: number): Promise<void>;
  countSlots(clientId: string, bucket: string, windowMs: number): Promise<number>;
  recordSlots(clientId: string, bucket: string, agesMs: readonly number[]): Promise<void>;
}

/** How this process decides while the store refuses writes (see the top of this file). */
export interface FullStoreFallback {
  /** Whether an error of the store means it is full (StoragePort.failureOf(error)?.kind === 'full'). */
  isFull(error: unknown): boolean;
  /** The api processes that share the store and its windows (API_PROCESSES): each decides on its share of the room. */
  processes: number;
}

/** A Client's own limits per bucket (PATCH /admin/clients), null where the deployment's hold. */
export type ClientLimitLookup = (clientId: string) => Readonly<Record<RateBucket, number | null>>;

/** Without a fallback every store error goes up as it is. */
const NO_FALLBACK: FullStoreFallback = { isFull: () => false, processes: 1 };

/** How long after a decision taken in-process the store is still reported as refusing writes (health). */
export const STORE_FULL_REPORT_MS = 60_000;

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

/**
 * Retry-After of a request refused while the store is full and its stored window leaves this process no share:
 * when those stored hits leave the window is not known without a write, so the caller asks again soon.
 */
const UNKNOWN_ROOM_RETRY_MS = 1_000;

/** The buckets: every protected route, and POST /search's additional counter. */
export const RATE_BUCKETS = { all: 'all', search: 'search' } as const;
export type RateBucket = (typeof RATE_BUCKETS)[keyof typeof RATE_BUCKETS];

export interface RateDecision {
  allowed: boolean;
  /** Whole seconds until a slot frees up (only when refused). */
  retryAfterSeconds: number;
}

/**
 * The budget that decided a request, as its answer tells it (RateLimit-* headers, a 429's details): of the buckets
 * the request drew on, the one with the least room (for POST /search, the search counter when it is the tighter).
 */
export interface RateBudget {
  bucket: RateBucket;
  limit: number;
  windowSeconds: number;
  /** Requests the window has room for after this one (0 when refused). */
  remaining: number;
  /**
   * Whole seconds until the oldest request counted in the window leaves it and its slot is free again (0 for an
   * empty window; a refusal's Retry-After). Never early: see `budget`.
   */
  resetSeconds: number;
}

/**
 * The most grant times kept per (Client, bucket) to tell when the window's oldest request leaves it. Dropping the
 * oldest beyond this only makes RateLimit-Reset later than the truth, never earlier.
 */
const MAX_TRACKED_GRANTS = 1_024;
/**
 * For a limit of SLOT_BATCH_MIN_ROOM or more, how long one count of the window serves the RateLimit-Remaining of
 * every request of that (Client, bucket): counting a window of many thousand hits on each request would cost more
 * than the batches save, and at such a limit a figure a second old tells a caller the same.
 */
const COUNT_REUSE_MS = SLOT_BATCH_LIFETIME_MS;

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
  private readonly fallback: FullStoreFallback;
  private readonly clientLimits: ClientLimitLookup | null;
  /** Per (Client, bucket): when (this process's clock) each request allowed without the store was, not yet counted there. */
  private readonly uncounted = new Map<string, number[]>();
  /**
   * Per (Client, bucket): the slots the other processes may have allowed without the store and not counted
   * there yet (their shares at this process's last decision without the store), left out of the room until then.
   */
  private readonly reserved = new Map<string, { slots: number; until: number }>();
  /** When this process last decided without the store (this process's clock), or null. */
  private decidedWithoutStoreAt: number | null = null;
  /**
   * Per (Client, bucket): when (this process's clock, taken after the store answered, so never before the store
   * counted it) each slot this process was granted was counted, oldest first, for RateLimit-Reset.
   */
  private readonly grants = new Map<string, number[]>();
  /** Per (Client, bucket) of a limit of SLOT_BATCH_MIN_ROOM or more: the last count of its window, or the one under way. */
  private readonly counts = new Map<string, { hits: Promise<number>; at: number }>();

  constructor(
    rateLimits: RateWindows,
    limits: Record<RateBucket, number>,
    windowMs = RATE_LIMIT_WINDOW_MS,
    now: () => number = () => performance.now(),
    fallback: FullStoreFallback = NO_FALLBACK,
    clientLimits: ClientLimitLookup | null = null,
  ) {
    this.clientLimits = clientLimits;
    this.rateLimits = rateLimits;
    this.limits = limits;
    this.windowMs = windowMs;
    this.now = now;
    this.fallback = fallback;
  }

  /** The limit of the Client's bucket: its own where it has one, the deployment's otherwise. */
  limitFor(clientId: string, bucket: RateBucket): number {
    return this.clientLimits?.(clientId)[bucket] ?? this.limits[bucket];
  }

  /** Whether the store refused this process's budget writes for want of space within STORE_FULL_REPORT_MS. */
  get storeRefusingWrites(): boolean {
    return this.decidedWithoutStoreAt !== null && this.now() - this.decidedWithoutStoreAt < STORE_FULL_REPORT_MS;
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
      // Requests allowed while the store was full are counted there first: its decision then includes them.
      await this.countUncounted(clientId, buckets, now);
      decision = await this.rateLimits.takeSlots(
        clientId,
        buckets.map((bucket, at) => ({ bucket, limit: this.limitFor(clientId, bucket) - this.reservedSlots(clientId, bucket, now), wanted: wanted[at] })),
        this.windowMs,
        { lifetimeMs: SLOT_BATCH_LIFETIME_MS, roomShare: SLOT_BATCH_ROOM_SHARE, minRoom: SLOT_BATCH_MIN_ROOM },
      );
    } catch (error) {
      if (!this.fallback.isFull(error)) throw error;
      return this.decideWithoutStore(clientId, buckets, states, now);
    } finally {
      for (const state of asking) state.asking = false;
    }
    // The store decided: it writes again (health stops reporting it refusing writes).
    this.decidedWithoutStoreAt = null;
    if (!decision.allowed) return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(decision.retryAfterMs / 1000)) };
    const answeredAt = this.now();
    buckets.forEach((bucket, at) => {
      // A batch is counted a lifetime ahead (see the top of this file), so it leaves the window that much later.
      this.recordGrant(clientId, bucket, decision.granted[at] > 1 ? answeredAt + SLOT_BATCH_LIFETIME_MS : answeredAt);
      if (decision.granted[at] > 1) this.hold(clientId, bucket, decision.granted[at] - 1, decision.stampedAt, now + SLOT_BATCH_LIFETIME_MS);
    });
    for (const state of states) state.current++;
    return { allowed: true, retryAfterSeconds: 0 };
  }

  /**
   * The store is full: decides in this process, on its share of the room the stored window shows (all buckets
   * or none, as the store would). Reading the window can fail too: then the store cannot be read, and that
   * error goes up.
   */
  private async decideWithoutStore(clientId: string, buckets: readonly RateBucket[], states: BucketState[], now: number): Promise<RateDecision> {
    this.decidedWithoutStoreAt = now;
    const stored: number[] = [];
    for (const bucket of buckets) stored.push(await this.rateLimits.countSlots(clientId, bucket, this.windowMs));
    // From here on synchronously: requests deciding side by side each see the others' hits (no await between).
    let retryAfterMs = 0;
    const windows = buckets.map((bucket) => this.uncountedWindow(clientId, bucket, now));
    const processes = Math.max(1, this.fallback.processes);
    for (const [at, bucket] of buckets.entries()) {
      const share = Math.floor(Math.max(0, this.limitFor(clientId, bucket) - stored[at]) / processes);
      if (processes > 1) this.reserved.set(stateKey(clientId, bucket), { slots: share * (processes - 1), until: now + this.windowMs });
      if (windows[at].length < share) continue;
      // The oldest request of this process's own leaves first; with none, the stored ones are unknown to it.
      retryAfterMs = Math.max(retryAfterMs, windows[at].length > 0 ? windows[at][0] + this.windowMs - now : UNKNOWN_ROOM_RETRY_MS);
    }
    if (retryAfterMs > 0) return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)) };
    for (const window of windows) window.push(now);
    for (const bucket of buckets) this.recordGrant(clientId, bucket, now);
    for (const state of states) state.current++;
    return { allowed: true, retryAfterSeconds: 0 };
  }

  /** The slots left out of this (Client, bucket)'s room for the other processes' uncounted requests (0 when none). */
  private reservedSlots(clientId: string, bucket: RateBucket, now: number): number {
    const key = stateKey(clientId, bucket);
    const reserve = this.reserved.get(key);
    if (reserve === undefined) return 0;
    if (now < reserve.until) return reserve.slots;
    this.reserved.delete(key);
    return 0;
  }

  /** The requests of this (Client, bucket) allowed without the store and still inside the window, oldest first. */
  private uncountedWindow(clientId: string, bucket: RateBucket, now: number): number[] {
    const key = stateKey(clientId, bucket);
    let times = this.uncounted.get(key);
    if (times === undefined) {
      times = [];
      this.uncounted.set(key, times);
    }
    while (times.length > 0 && times[0] <= now - this.windowMs) times.shift();
    return times;
  }

  /** Counts in the store the requests allowed without it (those still inside the window), at their times. */
  private async countUncounted(clientId: string, buckets: readonly RateBucket[], now: number): Promise<void> {
    for (const bucket of buckets) {
      const key = stateKey(clientId, bucket);
      if (!this.uncounted.has(key)) continue;
      const times = this.uncountedWindow(clientId, bucket, now);
      if (times.length > 0) await this.rateLimits.recordSlots(clientId, bucket, times.map((at) => now - at));
      // Counted (or aged out): from here the store decides on them; a failure above keeps them for the next try.
      this.uncounted.delete(key);
    }
  }

  private recordGrant(clientId: string, bucket: RateBucket, at: number): void {
    const key = stateKey(clientId, bucket);
    let times = this.grants.get(key);
    if (times === undefined) {
      times = [];
      this.grants.set(key, times);
    }
    times.push(at);
    if (times.length > MAX_TRACKED_GRANTS) times.shift();
  }

  /** The oldest slot this process was granted that is still inside the window, or undefined. */
  private oldestGrant(clientId: string, bucket: RateBucket, now: number): number | undefined {
    const key = stateKey(clientId, bucket);
    const times = this.grants.get(key);
    if (times === undefined) return undefined;
    while (times.length > 0 && times[0] <= now - this.windowMs) times.shift();
    if (times.length === 0) this.grants.delete(key);
    return times[0];
  }

  /**
   * The hits of a (Client, bucket)'s window as the store counts them: read for each request below
   * SLOT_BATCH_MIN_ROOM (the default 30 always), else one count shared for COUNT_REUSE_MS. The map holds one entry
   * per (Client, bucket) of such a limit: the Clients are the deployment's, so it stays small.
   */
  private windowCount(clientId: string, bucket: RateBucket): Promise<number> {
    if (this.limitFor(clientId, bucket) < SLOT_BATCH_MIN_ROOM) return this.rateLimits.countSlots(clientId, bucket, this.windowMs);
    const key = stateKey(clientId, bucket);
    const now = this.now();
    const last = this.counts.get(key);
    if (last !== undefined && now - last.at < COUNT_REUSE_MS) return last.hits;
    const hits = this.rateLimits.countSlots(clientId, bucket, this.windowMs);
    this.counts.set(key, { hits, at: now });
    // A count that failed is not reused: the next request counts again.
    hits.catch(() => this.counts.get(key)?.hits === hits && this.counts.delete(key));
    return hits;
  }

  /**
   * The budget that decided a request `take` answered with `decision`, for its answer to tell. Remaining is the
   * store's count (one read per bucket), so it holds across api processes; held batch slots count as spent.
   * The store does not say when its oldest hit leaves, so Reset is when the oldest slot this process was granted
   * does: exact when this process took every request of the window (one api process, the default), later than
   * the truth when another process's are older, and the whole window when none is this process's. A pacing
   * tool that waits for it is never early. A count the store cannot give leaves the answer without a budget.
   */
  async budget(clientId: string, buckets: readonly RateBucket[], decision: RateDecision): Promise<RateBudget | null> {
    const windowSeconds = Math.ceil(this.windowMs / 1000);
    const described: RateBudget[] = [];
    for (const bucket of buckets) {
      // The Client's own limit where an operator set one (PATCH /admin/clients), else the deployment's.
      const limit = this.limitFor(clientId, bucket);
      let hits: number;
      try {
        hits = await this.windowCount(clientId, bucket);
      } catch {
        if (decision.allowed || buckets.length > 1) return null;
        // One bucket refused: that is the one, whatever the count.
        hits = limit;
      }
      const now = this.now();
      const oldest = this.oldestGrant(clientId, bucket, now);
      const resetSeconds = hits === 0 ? 0 : oldest === undefined ? windowSeconds : Math.min(windowSeconds, Math.max(1, Math.ceil((oldest + this.windowMs - now) / 1000)));
      described.push({ bucket, limit, windowSeconds, remaining: Math.max(0, limit - hits), resetSeconds });
    }
    // The tightest budget decided: the least room, and of equals the one that frees a slot last.
    const tightest = described.reduce((best, next) => (next.remaining < best.remaining || (next.remaining === best.remaining && next.resetSeconds > best.resetSeconds) ? next : best));
    if (decision.allowed) return tightest;
    // Refused: the full bucket decided, and its slot frees when the store said.
    return { ...tightest, remaining: 0, resetSeconds: decision.retryAfterSeconds };
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
