import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Fence, FenceTimeout } from '../../src/publication/fence.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('holders run one at a time in arrival order', async () => {
  const fence = new Fence();
  const order: string[] = [];
  await Promise.all([
    fence.run(1000, async () => {
      order.push('a-start');
      await sleep(30);
      order.push('a-end');
    }),
    fence.run(1000, async () => {
      order.push('b-start');
      order.push('b-end');
    }),
  ]);
  assert.deepEqual(order, ['a-start', 'a-end', 'b-start', 'b-end']);
});

test('a waiter gives up after its bound without running, and the queue keeps working', async () => {
  const fence = new Fence();
  let ran = false;
  const holder = fence.run(1000, () => sleep(100));
  await assert.rejects(fence.run(20, () => { ran = true; }), FenceTimeout);
  assert.equal(ran, false);
  await holder;
  assert.equal(await fence.run(20, () => 'next'), 'next');
  assert.equal(fence.held, false);
});
