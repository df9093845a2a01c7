// The CLI's count of its own requests against the Client's limit (src/cli/request-budget.ts), on a clock the test
// moves: polls stop at three quarters of the limit while the person's own requests may use all of it; a refusal's
// Retry-After holds everything; the estimate of when n more requests can have gone spans windows.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { budgetedFetch, RATE_WINDOW_MS, RequestBudget } from '../../src/cli/request-budget.ts';

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

test('the budget an answer tells replaces the assumed limit; no room left holds everything, the others\' quarter holds polls', async () => {
  const time = clock();
  const budget = new RequestBudget(30, time.now);
  assert.equal(budget.limit, 30);
  budget.learn({ limit: 4, remaining: 3, resetSeconds: 60 });
  assert.equal(budget.limit, 4, 'the service\'s limit, not the guess');
  for (let i = 0; i < 3; i++) await budget.take('poll');
  assert.equal(budget.msFor(1, 'poll'), RATE_WINDOW_MS, 'polls keep to three of the four');
  // Other tools spent the window: the CLI counts room for 27 more, the service says none until a slot frees in 9 s.
  const wide = new RequestBudget(30, time.now);
  wide.learn({ limit: 30, remaining: 0, resetSeconds: 9 });
  assert.equal(wide.refusals, 0, 'told, not refused');
  assert.equal(wide.msFor(1, 'work'), 9_000);
  assert.equal(wide.msFor(1, 'poll'), 9_000);
  time.advance(9_000);
  assert.equal(wide.msFor(1, 'work'), 0);
  // Seven left of thirty is the others' quarter: the person's requests go, polls wait for the slot.
  wide.learn({ limit: 30, remaining: 7, resetSeconds: 5 });
  assert.equal(wide.msFor(1, 'work'), 0);
  assert.equal(wide.msFor(1, 'poll'), 5_000);
  wide.learn({ limit: 30, remaining: 20, resetSeconds: 50 });
  assert.equal(wide.msFor(1, 'poll'), 5_000, 'a later, roomier answer does not shorten a hold already told');
});

test('budgetedFetch learns the budget from each answer\'s RateLimit-* headers (a real local server)', async () => {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'ratelimit-limit': '12', 'ratelimit-remaining': '0', 'ratelimit-reset': '7' });
    response.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const budget = new RequestBudget(30);
    const answer = await budgetedFetch(budget, url)(`${url}/documents`);
    assert.equal(answer.status, 200);
    assert.equal(budget.limit, 12);
    const wait = budget.msFor(1, 'work');
    assert.ok(wait > 0 && wait <= 7_000, `the next request waits ${wait} ms (until the slot the service told frees)`);
    // An answer without the headers (an older service) leaves the assumed limit.
    const guessed = new RequestBudget(30);
    await budgetedFetch(guessed, url, async () => new Response('{}', { status: 200 }))(`${url}/documents`);
    assert.equal(guessed.limit, 30);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
