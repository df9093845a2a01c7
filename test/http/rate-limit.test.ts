import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { RateLimiter } from '../../src/http/rate-limit.ts';
import { ControlStore } from '../../src/storage/control-store.ts';
import { openDatabase } from '../../src/storage/sqlite.ts';
import { CONTROL_MIGRATIONS } from '../../src/storage/control-migrations.ts';
import { removeDir, tempDataDir } from '../helpers/server.ts';

/** Two limiters over two connections to one control database: two api processes sharing a store. */
function sharedLimiters(limit: number, clock: () => number) {
  const dir = tempDataDir();
  const path = join(dir, 'control.db');
  const first = openDatabase(path, CONTROL_MIGRATIONS);
  const second = openDatabase(path, CONTROL_MIGRATIONS);
  const limits = { all: limit, search: limit };
  return {
    a: new RateLimiter(new ControlStore(first, clock), limits),
    b: new RateLimiter(new ControlStore(second, clock), limits),
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
