import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { RateLimiter, SLOT_BATCH_MIN_ROOM } from '../../src/http/rate-limit.ts';
import { SqliteRateLimitRepository } from '../../src/storage/sqlite/rate-limits.ts';
import { openDatabase } from '../../src/storage/sqlite/database.ts';
import { CONTROL_MIGRATIONS } from '../../src/storage/sqlite/control-migrations.ts';
import { removeDir, tempDataDir } from '../helpers/server.ts';

/** Two limiters over two connections to one control database: two api processes sharing a store. */
function sharedLimiters(limit: number | { all: number; search: number }, clock: () => number) {
  const dir = tempDataDir();
  const path = join(dir, 'control.db');
  const first = openDatabase(path, CONTROL_MIGRATIONS);
  const second = openDatabase(path, CONTROL_MIGRATIONS);
  const limits = typeof limit === 'number' ? { all: limit, search: limit } : limit;
  return {
    a: new RateLimiter(new SqliteRateLimitRepository(first, clock), limits),
    b: new RateLimiter(new SqliteRateLimitRepository(second, clock), limits),
    close() {
      first.close();
      second.close();
      removeDir(dir);
    },
  };
}

test('the window slides: a slot frees exactly when the oldest request leaves the window', async () => {
  let now = 1_000_000;
  const { a: limiter, close } = sharedLimiters(2, () => now);
  try {
    assert.equal((await limiter.take('c', 'all')).allowed, true);
    now += 10_000;
    assert.equal((await limiter.take('c', 'all')).allowed, true);
    now += 20_000;
    const refused = await limiter.take('c', 'all');
    assert.equal(refused.allowed, false);
    assert.equal(refused.retryAfterSeconds, 30);
    now += 30_001;
    assert.equal((await limiter.take('c', 'all')).allowed, true, 'the first request left the window');
    assert.equal((await limiter.take('c', 'all')).allowed, false, 'the second is still inside');
  } finally {
    close();
  }
});

test('refused requests do not count; Clients and buckets do not share budgets', async () => {
  let now = 1_000_000;
  const { a: limiter, close } = sharedLimiters(1, () => now);
  try {
    assert.equal((await limiter.take('a', 'all')).allowed, true);
    for (let i = 0; i < 5; i++) assert.equal((await limiter.take('a', 'all')).allowed, false);
    assert.equal((await limiter.take('b', 'all')).allowed, true);
    assert.equal((await limiter.take('a', 'search')).allowed, true);
    now += 60_001;
    assert.equal((await limiter.take('a', 'all')).allowed, true);
  } finally {
    close();
  }
});

test('two processes (two connections) draw on one budget per Client', async () => {
  const { a, b, close } = sharedLimiters(3, () => 5_000_000);
  try {
    const decisions = [await a.take('c', 'all'), await b.take('c', 'all'), await a.take('c', 'all'), await b.take('c', 'all')];
    assert.deepEqual(decisions.map((decision) => decision.allowed), [true, true, true, false]);
  } finally {
    close();
  }
});

test('a request drawing on two buckets is counted in both or in neither', async () => {
  let now = 1_000_000;
  const { a: limiter, close } = sharedLimiters({ all: 3, search: 1 }, () => now);
  try {
    assert.equal((await limiter.take('c', 'all', 'search')).allowed, true);
    const refused = await limiter.take('c', 'all', 'search');
    assert.equal(refused.allowed, false, 'the search bucket is full');
    assert.equal(refused.retryAfterSeconds, 60);
    // The refused search took nothing from `all`: two more requests fit there.
    assert.equal((await limiter.take('c', 'all')).allowed, true);
    assert.equal((await limiter.take('c', 'all')).allowed, true);
    assert.equal((await limiter.take('c', 'all')).allowed, false);
    now += 60_000;
    assert.equal((await limiter.take('c', 'all', 'search')).allowed, true, 'both windows slid past the first request');
  } finally {
    close();
  }
});

test('the running count follows the window over many slides', async () => {
  let now = 1_000_000;
  const { a: limiter, close } = sharedLimiters(5, () => now);
  try {
    // One request every 10 s against 5 a minute: after the first minute exactly one in six is refused.
    const allowed: boolean[] = [];
    for (let i = 0; i < 60; i++) {
      allowed.push((await limiter.take('c', 'all')).allowed);
      now += 10_000;
    }
    assert.deepEqual(allowed.slice(0, 6), [true, true, true, true, true, false]);
    // From then on, each refused request frees nothing, so the pattern repeats with period 6.
    for (let i = 6; i < 60; i++) assert.equal(allowed[i], allowed[i - 6], `request ${i}`);
  } finally {
    close();
  }
});

/** The limiters of sharedLimiters over stores that count their writes (takeSlots and returnSlots calls). */
function countedLimiters(limits: { all: number; search: number }, clock: () => number) {
  const dir = tempDataDir();
  const path = join(dir, 'control.db');
  const databases = [openDatabase(path, CONTROL_MIGRATIONS), openDatabase(path, CONTROL_MIGRATIONS)];
  const writes = { take: 0, give: 0, batchAsks: 0 };
  const limiters = databases.map((db) => {
    const store = new SqliteRateLimitRepository(db, clock);
    const counted = {
      takeSlots: (...args: Parameters<SqliteRateLimitRepository['takeSlots']>) => (writes.take++, (writes.batchAsks += Number(args[1].some((bucket) => (bucket.wanted ?? 1) > 1))), store.takeSlots(...args)),
      returnSlots: (...args: Parameters<SqliteRateLimitRepository['returnSlots']>) => (writes.give++, store.returnSlots(...args)),
      countSlots: (...args: Parameters<SqliteRateLimitRepository['countSlots']>) => store.countSlots(...args),
      recordSlots: (...args: Parameters<SqliteRateLimitRepository['recordSlots']>) => store.recordSlots(...args),
    };
    return new RateLimiter(counted, limits, 60_000, clock);
  });
  const held = (bucket: string) => (databases[0].prepare('SELECT hits FROM rate_counts WHERE client_id = ? AND bucket = ?').get('c', bucket) as { hits: number } | undefined)?.hits ?? 0;
  return {
    a: limiters[0],
    b: limiters[1],
    writes,
    held,
    close() {
      for (const db of databases) db.close();
      removeDir(dir);
    },
  };
}

test('a busy Client takes its slots in batches: a store write every many requests, and never more than the limit', async () => {
  let now = 1_000_000;
  const { a, b, writes, held, close } = countedLimiters({ all: 3_000, search: 100_000 }, () => now);
  try {
    let allowed = 0;
    // The first second: no demand known yet, so one store write a request.
    for (let i = 0; i < 40; i++) allowed += Number((await a.take('c', 'all')).allowed) + Number((await b.take('c', 'all')).allowed);
    assert.equal(writes.take, 80);
    now += 1_000;
    const before = writes.take;
    for (let i = 0; i < 200; i++) allowed += Number((await a.take('c', 'all')).allowed) + Number((await b.take('c', 'all')).allowed);
    assert.equal(allowed, 480);
    assert.ok(writes.take - before <= 20, `${writes.take - before} store writes for 400 requests`);
    // The window counts at least what was handed out, and at most that plus the slots still held.
    assert.ok(held('all') >= allowed && held('all') <= allowed + 2 * 64, `window holds ${held('all')}, ${allowed} handed out`);
    // Up to the limit: batches shrink with the room left, and a process may refuse while the other holds slots.
    for (let i = 0; i < 1_400; i++) allowed += Number((await a.take('c', 'all')).allowed) + Number((await b.take('c', 'all')).allowed);
    assert.ok(allowed <= 3_000, `${allowed} admitted against a limit of 3000`);
    // Once both give back what they hold, every slot of the window is usable, and no more.
    await a.returnHeld();
    await b.returnHeld();
    assert.equal(held('all'), allowed, 'the window counts exactly the requests admitted');
    while ((await a.take('c', 'all')).allowed) allowed++;
    assert.equal(allowed, 3_000);
  } finally {
    close();
  }
});

test('a request refused by one bucket takes nothing from the other bucket, held batch or window', async () => {
  let now = 1_000_000;
  const { a, held, close } = countedLimiters({ all: 10_000, search: 5 }, () => now);
  try {
    for (let i = 0; i < 100; i++) assert.equal((await a.take('c', 'all')).allowed, true);
    now += 1_000;
    // `all` now comes from a batch; `search` (room 5) is decided request by request.
    let searches = 0;
    for (let i = 0; i < 10; i++) searches += Number((await a.take('c', 'all', 'search')).allowed);
    assert.equal(searches, 5);
    await a.returnHeld();
    assert.equal(held('all'), 105, 'the five refused searches took nothing from `all`, and the batch\'s unused slots went back');
    assert.equal(held('search'), 5);
  } finally {
    close();
  }
});

test('a window with little room left is decided request by request: the last slots go to whichever process asks', async () => {
  let now = 2_000_000;
  const { a, b, writes, close } = countedLimiters({ all: 1_000, search: 100_000 }, () => now);
  try {
    // Busy for a second, then busier: with under 1,024 slots of room no batch is ever taken.
    for (let i = 0; i < 100; i++) await a.take('c', 'all');
    now += 1_000;
    const decisions: boolean[] = [];
    for (let i = 0; i < 500; i++) decisions.push((await a.take('c', 'all')).allowed, (await b.take('c', 'all')).allowed);
    assert.deepEqual(decisions.slice(0, 900), Array(900).fill(true), 'alternating processes, every slot admitted');
    assert.equal(decisions.filter(Boolean).length, 900);
    assert.equal(writes.take, 1_100, 'a store write a request');
    assert.equal(writes.give, 0);
  } finally {
    close();
  }
});

test('requests in flight together ask for one batch between them, not one each', async () => {
  let now = 3_000_000;
  const { a, writes, held, close } = countedLimiters({ all: 100_000, search: 100_000 }, () => now);
  try {
    for (let i = 0; i < 100; i++) await a.take('c', 'all');
    now += 1_000;
    const asksBefore = writes.batchAsks;
    const decisions = await Promise.all(Array.from({ length: 16 }, () => a.take('c', 'all')));
    assert.ok(decisions.every((decision) => decision.allowed));
    assert.equal(writes.batchAsks - asksBefore, 1, 'one of the 16 asked for a batch; the others for their own slot');
    await a.returnHeld();
    assert.equal(held('all'), 116);
  } finally {
    close();
  }
});

/**
 * A full disk, as a narrow fault seam: the real SQLite windows, whose writes fail with SQLITE_FULL (what SQLite
 * raises on a full disk) while `full` is set, and whose reads still answer. test/disk/full-disk.test.ts fills a
 * real file system; this seam lets the budget arithmetic be checked exactly, request by request.
 */
function fullDiskLimiters(limit: number, clock: () => number) {
  const dir = tempDataDir();
  const path = join(dir, 'control.db');
  const databases = [openDatabase(path, CONTROL_MIGRATIONS), openDatabase(path, CONTROL_MIGRATIONS)];
  const disk = { full: false };
  const diskFull = () => Object.assign(new Error('database or disk is full'), { errcode: 13 });
  const limiters = databases.map((db) => {
    const store = new SqliteRateLimitRepository(db, clock);
    const windows = {
      takeSlots: async (...args: Parameters<SqliteRateLimitRepository['takeSlots']>) => {
        if (disk.full) throw diskFull();
        return store.takeSlots(...args);
      },
      returnSlots: (...args: Parameters<SqliteRateLimitRepository['returnSlots']>) => store.returnSlots(...args),
      countSlots: (...args: Parameters<SqliteRateLimitRepository['countSlots']>) => store.countSlots(...args),
      recordSlots: async (...args: Parameters<SqliteRateLimitRepository['recordSlots']>) => {
        if (disk.full) throw diskFull();
        return store.recordSlots(...args);
      },
    };
    return new RateLimiter(windows, { all: limit, search: limit }, 60_000, clock, { isFull: (error) => (error as { errcode?: number }).errcode === 13, processes: 2 });
  });
  const stored = () => (databases[0].prepare("SELECT COUNT(*) AS n FROM rate_hits WHERE client_id = 'c' AND bucket = 'all'").get() as { n: number }).n;
  return {
    a: limiters[0],
    b: limiters[1],
    disk,
    stored,
    close() {
      for (const db of databases) db.close();
      removeDir(dir);
    },
  };
}

test('a full store: reads are still decided, each process on its share of the room the stored window shows, and the limit holds across the outage', async () => {
  let now = 1_000_000;
  const { a, b, disk, stored, close } = fullDiskLimiters(10, () => now);
  try {
    for (let i = 0; i < 4; i++) assert.equal((await a.take('c', 'all')).allowed, true, 'before the disk fills');
    assert.equal(stored(), 4);
    disk.full = true;
    now += 1_000;
    // 6 slots of room, 2 api processes: 3 each, decided without a write.
    const during = [];
    for (let i = 0; i < 5; i++) during.push((await a.take('c', 'all')).allowed, (await b.take('c', 'all')).allowed);
    assert.deepEqual(during.filter(Boolean).length, 6, `allowed while full: ${during}`);
    assert.equal(a.storeRefusingWrites, true, 'the process knows its store refuses writes');
    const refused = await a.take('c', 'all');
    assert.equal(refused.allowed, false);
    assert.ok(refused.retryAfterSeconds >= 1 && refused.retryAfterSeconds <= 60, `Retry-After ${refused.retryAfterSeconds}`);
    assert.equal(stored(), 4, 'nothing was written while the disk was full');
    // Space is back: each process counts what it allowed before deciding again, and leaves the other's share out
    // until that one has counted its own: the window is full (4 + 3 + 3) whichever process asks first.
    disk.full = false;
    now += 1_000;
    assert.equal((await a.take('c', 'all')).allowed, false, 'the 10 of the window are spent, 3 of them uncounted on the other process');
    assert.equal(stored(), 7, 'this process counted its 3');
    assert.equal((await b.take('c', 'all')).allowed, false, 'and on the other process too');
    assert.equal(stored(), 10, 'the requests allowed during the outage are counted in the store');
    // They leave the window at the times they were allowed: the 4 from before first.
    now += 58_001;
    assert.equal((await a.take('c', 'all')).allowed, true, 'a slot of the first four is free again');
    // The other's share stays left out for a window after the outage (7 of 10 counted, 3 reserved): less is
    // admitted for that minute, never more.
    assert.equal((await b.take('c', 'all')).allowed, false, 'the reserve holds for a window after the outage');
    now += 1_000;
    assert.equal((await b.take('c', 'all')).allowed, true, 'the outage has left the window');
  } finally {
    close();
  }
});

test('a store error that is not a full disk is not decided in-process: it goes up as it is', async () => {
  const dir = tempDataDir();
  const db = openDatabase(join(dir, 'control.db'), CONTROL_MIGRATIONS);
  try {
    const store = new SqliteRateLimitRepository(db);
    const broken = Object.assign(new Error('file is not a database'), { errcode: 26 });
    const windows = {
      takeSlots: async () => {
        throw broken;
      },
      returnSlots: store.returnSlots.bind(store),
      countSlots: store.countSlots.bind(store),
      recordSlots: store.recordSlots.bind(store),
    };
    const limiter = new RateLimiter(windows, { all: 10, search: 10 }, 60_000, undefined, { isFull: (error) => (error as { errcode?: number }).errcode === 13, processes: 1 });
    await assert.rejects(limiter.take('c', 'all'), (error) => error === broken);
    assert.equal(limiter.storeRefusingWrites, false);
  } finally {
    db.close();
    removeDir(dir);
  }
});

test('the budget a request is told: the store\'s room, and Reset when the oldest slot of the window frees (never early)', async () => {
  let now = 1_000_000;
  const dir = tempDataDir();
  const path = join(dir, 'control.db');
  const first = openDatabase(path, CONTROL_MIGRATIONS);
  const second = openDatabase(path, CONTROL_MIGRATIONS);
  // Two api processes on one store and one clock (the store's and the limiters' alike).
  const limits = { all: 3, search: 2 };
  const a = new RateLimiter(new SqliteRateLimitRepository(first, () => now), limits, 60_000, () => now);
  const b = new RateLimiter(new SqliteRateLimitRepository(second, () => now), limits, 60_000, () => now);
  try {
    const told = async (limiter: RateLimiter, ...buckets: ('all' | 'search')[]) => limiter.budget('c', buckets, await limiter.take('c', ...buckets));
    assert.deepEqual(await told(a, 'all'), { bucket: 'all', limit: 3, windowSeconds: 60, remaining: 2, resetSeconds: 60 });
    now += 10_000;
    assert.deepEqual(await told(a, 'all'), { bucket: 'all', limit: 3, windowSeconds: 60, remaining: 1, resetSeconds: 50 }, 'the first request leaves the window in 50 s');
    // The other process knows only its own request, just taken: it says 60 s, later than the truth (45 s), never earlier.
    now += 5_000;
    const other = await told(b, 'all');
    assert.deepEqual({ remaining: other?.remaining, resetSeconds: other?.resetSeconds }, { remaining: 0, resetSeconds: 60 });
    now += 1_000;
    const refused = await a.take('c', 'all');
    assert.equal(refused.allowed, false);
    assert.deepEqual(await a.budget('c', ['all'], refused), { bucket: 'all', limit: 3, windowSeconds: 60, remaining: 0, resetSeconds: refused.retryAfterSeconds });
    assert.equal(refused.retryAfterSeconds, 44, 'a slot frees when the first request leaves');
    // A search draws on both buckets: the tighter one decides.
    now += 60_000;
    assert.deepEqual(await told(a, 'all', 'search'), { bucket: 'search', limit: 2, windowSeconds: 60, remaining: 1, resetSeconds: 60 });
    assert.equal((await told(a, 'all'))?.remaining, 1, 'the whole budget counted the search too');
  } finally {
    first.close();
    second.close();
    removeDir(dir);
  }
});

test('at a limit of SLOT_BATCH_MIN_ROOM or more one count of the window serves a second of answers; below it, each answer counts', async () => {
  let now = 1_000_000;
  const dir = tempDataDir();
  const db = openDatabase(join(dir, 'control.db'), CONTROL_MIGRATIONS);
  // The real store, with its reads of the window counted: the cost this rule saves is that read.
  let counted = 0;
  class CountedReads extends SqliteRateLimitRepository {
    override async countSlots(clientId: string, bucket: string, windowMs: number): Promise<number> {
      counted++;
      return super.countSlots(clientId, bucket, windowMs);
    }
  }
  try {
    const high = new RateLimiter(new CountedReads(db, () => now), { all: SLOT_BATCH_MIN_ROOM, search: SLOT_BATCH_MIN_ROOM }, 60_000, () => now);
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await high.budget('c', ['all'], await high.take('c', 'all')));
    assert.equal(counted, 1, 'one count for three answers within a second');
    assert.equal(answers[0]?.remaining, SLOT_BATCH_MIN_ROOM - 1);
    now += 1_001;
    await high.budget('c', ['all'], await high.take('c', 'all'));
    assert.equal(counted, 2, 'a second later the window is counted again');
    const low = new RateLimiter(new CountedReads(db, () => now), { all: 30, search: 30 }, 60_000, () => now);
    counted = 0;
    const remaining = [];
    for (let i = 0; i < 3; i++) remaining.push((await low.budget('d', ['all'], await low.take('d', 'all')))?.remaining);
    assert.equal(counted, 3);
    assert.deepEqual(remaining, [29, 28, 27], 'counted down exactly');
  } finally {
    db.close();
    removeDir(dir);
  }
});
