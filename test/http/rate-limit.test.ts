import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { RateLimiter } from '../../src/http/rate-limit.ts';
import { SqliteRateLimitRepository } from '../../src/storage/sqlite-rate-limits.ts';
import { openDatabase } from '../../src/storage/sqlite.ts';
import { CONTROL_MIGRATIONS } from '../../src/storage/control-migrations.ts';
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
