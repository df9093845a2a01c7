// Reads shared by callers side by side: no caller gets an answer from a read begun before its call.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FreshReads } from '../../src/runtime/fresh-reads.ts';

/** A read per call, each held until the test settles it, numbered in the order they began. */
function heldReads() {
  const begun: { key: string; settle: (value: number) => void; fail: (error: Error) => void }[] = [];
  const reads = new FreshReads<string, number>(
    (key) =>
      new Promise<number>((resolve, reject) => {
        begun.push({ key, settle: resolve, fail: reject });
      }),
  );
  return { reads, begun };
}

test('a caller alone reads at once, and a caller after it settled reads again', async () => {
  const { reads, begun } = heldReads();
  const first = reads.get('a');
  assert.equal(begun.length, 1);
  begun[0].settle(1);
  assert.equal(await first, 1);
  const second = reads.get('a');
  assert.equal(begun.length, 2, 'a settled read is never reused');
  begun[1].settle(2);
  assert.equal(await second, 2);
});

test('callers arriving while a read is under way share one read that begins after it, not the one under way', async () => {
  const { reads, begun } = heldReads();
  const early = reads.get('a');
  const late = [reads.get('a'), reads.get('a'), reads.get('a')];
  assert.equal(begun.length, 1, 'the queued read has not begun while the first is under way');
  begun[0].settle(1);
  assert.equal(await early, 1);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(begun.length, 2, 'one read for every caller that arrived meanwhile');
  // A caller arriving once the queued read is under way is not given it either.
  const later = reads.get('a');
  begun[1].settle(2);
  assert.deepEqual(await Promise.all(late), [2, 2, 2]);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(begun.length, 3);
  begun[2].settle(3);
  assert.equal(await later, 3);
});

test('a failed read fails its own callers only; the queued read still begins and answers', async () => {
  const { reads, begun } = heldReads();
  const early = reads.get('a');
  const late = reads.get('a');
  begun[0].fail(new Error('store unreachable'));
  await assert.rejects(early, /store unreachable/);
  await new Promise((resolve) => setImmediate(resolve));
  begun[1].settle(7);
  assert.equal(await late, 7);
});

test('keys are read apart', async () => {
  const { reads, begun } = heldReads();
  const a = reads.get('a');
  const b = reads.get('b');
  assert.deepEqual(
    begun.map((read) => read.key),
    ['a', 'b'],
    'a read under way for one key holds back no other',
  );
  begun[1].settle(2);
  begun[0].settle(1);
  assert.deepEqual(await Promise.all([a, b]), [1, 2]);
});

test('a read that throws at once rejects its callers instead of throwing at them', async () => {
  const reads = new FreshReads<string, number>(() => {
    throw new Error('no such store');
  });
  await assert.rejects(reads.get('a'), /no such store/);
});
