import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WakeCoalescer } from '../src/supervisor-link.ts';

/** A coalescer on a clock the test moves, counting what it sends; `sent` resolves at the next send. */
function coalescer(windowMs: number) {
  let now = 1_000;
  let sends = 0;
  let onSend: (() => void) | null = null;
  const wakes = new WakeCoalescer(
    () => {
      sends++;
      onSend?.();
    },
    windowMs,
    () => now,
  );
  return {
    wakes,
    sends: () => sends,
    at: (time: number) => (now = time),
    sent: () => new Promise<void>((resolve) => (onSend = resolve)),
  };
}

test('a wake goes out at once when none went out within the window', () => {
  const { wakes, sends, at } = coalescer(25);
  wakes.wake();
  assert.equal(sends(), 1);
  at(1_030);
  wakes.wake();
  assert.equal(sends(), 2);
});

test('wakes within the window go out as one, at its end, and none is lost', async () => {
  const { wakes, sends, at, sent } = coalescer(25);
  wakes.wake();
  assert.equal(sends(), 1);
  at(1_005);
  const trailing = sent();
  wakes.wake();
  at(1_010);
  wakes.wake();
  wakes.wake();
  assert.equal(sends(), 1, 'the calls inside the window wait for its end');
  await trailing;
  assert.equal(sends(), 2, 'one wake covers every call of the window');
  at(1_020);
  const next = sent();
  wakes.wake();
  assert.equal(sends(), 2, 'the trailing wake opened a new window');
  await next;
  assert.equal(sends(), 3);
});
