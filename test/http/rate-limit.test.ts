import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SlidingWindowLimiter } from '../../src/http/rate-limit.ts';

test('the window slides: a slot frees exactly when the oldest request leaves the window', () => {
  let now = 0;
  const limiter = new SlidingWindowLimiter(2, 60_000, () => now);
  assert.equal(limiter.take('c').allowed, true);
  now = 10_000;
  assert.equal(limiter.take('c').allowed, true);
  now = 30_000;
  const refused = limiter.take('c');
  assert.equal(refused.allowed, false);
  assert.equal(refused.retryAfterSeconds, 30);
  now = 60_001;
  assert.equal(limiter.take('c').allowed, true, 'the first request left the window');
  assert.equal(limiter.take('c').allowed, false, 'the second is still inside');
});

test('refused requests do not count and Clients do not share budgets', () => {
  let now = 0;
  const limiter = new SlidingWindowLimiter(1, 60_000, () => now);
  assert.equal(limiter.take('a').allowed, true);
  for (let i = 0; i < 5; i++) assert.equal(limiter.take('a').allowed, false);
  assert.equal(limiter.take('b').allowed, true);
  now = 60_001;
  assert.equal(limiter.take('a').allowed, true);
});
