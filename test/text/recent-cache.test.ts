import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HOT_ENTRIES, RecentCache } from '../../src/text/recent-cache.ts';

test('a recent cache keeps what was used within the last half-limit insertions and never holds more than its limit', () => {
  const cache = new RecentCache<string, number>(8);
  for (let i = 0; i < 4; i++) cache.set(`a${i}`, i);
  // A fifth key starts a new generation: the first four are still found, and one found moves back into the new one.
  cache.set('b0', 10);
  assert.equal(cache.get('a1'), 1);
  for (let i = 1; i < 3; i++) cache.set(`b${i}`, 10 + i);
  // The current generation (b0, a1, b1, b2) is full: the next key drops a0, a2 and a3, which were not used since.
  cache.set('c0', 20);
  assert.equal(cache.get('a0'), undefined);
  assert.equal(cache.get('a2'), undefined);
  assert.equal(cache.get('a1'), 1);
  assert.equal(cache.get('b2'), 12);
  assert.equal(cache.get('c0'), 20);
  for (let i = 0; i < 1000; i++) {
    cache.set(`k${i}`, i);
    assert.ok(cache.size <= 8);
  }
  assert.equal(cache.get('k999'), 999);
  assert.equal(cache.get('k996'), 996);
});

test('setting a key the current generation holds replaces its value without starting a new generation', () => {
  const cache = new RecentCache<string, number>(4);
  cache.set('x', 1);
  cache.set('y', 2);
  cache.set('x', 3);
  assert.equal(cache.get('x'), 3);
  assert.equal(cache.size, 2);
  assert.throws(() => new RecentCache(1), RangeError);
});

test('a key found recently is answered from the front map, which follows a new value set for it and stays bounded', () => {
  const cache = new RecentCache<string, number>(4);
  cache.set('x', 1);
  assert.equal(cache.get('x'), 1); // now in the front map as well
  cache.set('x', 2);
  assert.equal(cache.get('x'), 2);
  // Keys moving through the generations many times over: every answer is the last value set.
  const last = new Map<string, number>();
  for (let i = 0; i < HOT_ENTRIES * 3; i++) {
    const key = `k${i % (HOT_ENTRIES + 7)}`;
    cache.set(key, i);
    last.set(key, i);
    const found = cache.get(key);
    assert.equal(found, i);
    const older = `k${(i * 31) % (HOT_ENTRIES + 7)}`;
    const seen = cache.get(older);
    assert.ok(seen === undefined || seen === last.get(older), `${older}: ${seen} is not its last value ${last.get(older)}`);
  }
});

test('find answers as get does, and an entry it finds in the previous generation is kept like one get found', () => {
  const cache = new RecentCache<string, number>(4);
  cache.set('a', 1);
  cache.set('b', 2);
  cache.set('c', 3); // a and b are the previous generation now
  assert.equal(cache.find('a'), 1);
  assert.equal(cache.find('zzz'), undefined);
  cache.set('d', 4); // the current generation (c, a) is full: it becomes the previous one, b is dropped
  assert.equal(cache.find('b'), undefined);
  assert.equal(cache.find('a'), 1);
  assert.equal(cache.get('c'), 3);
});
