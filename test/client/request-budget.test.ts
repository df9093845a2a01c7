// The typed client's own count of its Client's rate-limit window (clients/typescript/src/request-budget.ts), with
// real timers: a wait for a slot covers both what the service told (no room until its reset) and the client's own
// count, so a caller is told of one wait, not of one per bound.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RequestBudget } from '../../clients/typescript/src/request-budget.ts';

const WINDOW_MS = 1_000;

test("a wait lasts until both the service's hold and the client's own count free a slot, and is told once", async () => {
  const budget = new RequestBudget(1, WINDOW_MS);
  const release = await budget.take(undefined, () => assert.fail('the first request waits for nothing'));
  release();
  const answered = Date.now();
  // The service's reset (whole seconds, from its side) ends 600 ms before the client's count frees the slot.
  budget.learn({ limit: 1, remaining: 0, resetSeconds: 1 }, answered - 600);
  const waits: number[] = [];
  await budget.take(undefined, (ms) => waits.push(ms));
  assert.equal(waits.length, 1, `told of ${waits.length} waits: ${waits.join(', ')} ms`);
  assert.ok(waits[0] > 600, `one wait of ${waits[0]} ms, to the later bound`);
  assert.ok(Date.now() >= answered + WINDOW_MS, 'no request before the window has room');
});

test('a hold the service told with every slot free still waits', async () => {
  const budget = new RequestBudget(5, WINDOW_MS);
  budget.learn({ limit: 5, remaining: 0, resetSeconds: 1 });
  const waits: number[] = [];
  const before = Date.now();
  await budget.take(undefined, (ms) => waits.push(ms));
  assert.equal(waits.length, 1);
  assert.ok(Date.now() >= before + 900, 'held until the reset the service told');
});
