// The CLI's count of its own requests against the Client's limit (src/cli/request-budget.ts), on a clock the test
// moves: polls stop at three quarters of the limit while the person's own requests may use all of it; a refusal's
// Retry-After holds everything; the estimate of when n more requests can have gone spans windows.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RATE_WINDOW_MS, RequestBudget } from '../../src/cli/request-budget.ts';

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

test('polls leave a quarter of the limit free; the person\'s requests may use all of it', async () => {
  const time = clock();
  const budget = new RequestBudget(8, time.now);
  for (let i = 0; i < 6; i++) await budget.take('poll');
  assert.equal(budget.msFor(1, 'poll'), RATE_WINDOW_MS, 'a seventh poll waits for the first to leave the window');
  assert.equal(budget.msFor(1, 'work'), 0);
  await budget.take('work');
  await budget.take('work');
  assert.equal(budget.msFor(1, 'work'), RATE_WINDOW_MS, 'the ninth request of the minute would be refused');
  time.advance(RATE_WINDOW_MS);
  assert.equal(budget.msFor(1, 'poll'), 0, 'a window later there is room again');
  assert.equal(budget.requests, 8);
});

test('a Retry-After holds every request, whatever room the CLI counts', async () => {
  const time = clock();
  const budget = new RequestBudget(30, time.now);
  await budget.take('work');
  budget.refused(23);
  assert.equal(budget.refusals, 1);
  assert.equal(budget.msFor(1, 'work'), 23_000);
  assert.equal(budget.msFor(1, 'poll'), 23_000);
  time.advance(23_000);
  assert.equal(budget.msFor(1, 'work'), 0);
});

test('the time n more requests need spans as many windows as they fill', () => {
  const time = clock();
  const budget = new RequestBudget(4, time.now);
  // 4 a minute, polls 3: the 3rd poll goes at once, the 4th to 6th a window later, the 7th two windows later.
  assert.equal(budget.msFor(3, 'poll'), 0);
  assert.equal(budget.msFor(6, 'poll'), RATE_WINDOW_MS);
  assert.equal(budget.msFor(7, 'poll'), 2 * RATE_WINDOW_MS);
});
