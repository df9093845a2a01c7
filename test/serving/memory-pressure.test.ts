// A forced collection happens only when the process is near its budget after an eviction, and only where the
// process exposes V8's collector; what served Clients may hold shrinks by what a collection leaves over the
// target, and comes back, never past the estimate's allowance, while the process stays under it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { COLLECT_AT_SHARE, COLLECTED_TARGET_SHARE, EXPOSE_GC_FLAG, MemoryPressure, SETTLE_COLLECT_MS } from '../../src/serving/memory-pressure.ts';

const MIB = 1024 * 1024;
const BUDGET = 256 * MIB;
const TARGET = Math.floor(BUDGET * COLLECTED_TARGET_SHARE);

function pressureWith(resident: { now: number; afterCollection: number }) {
  let collected = 0;
  const pressure = new MemoryPressure({
    budgetBytes: BUDGET,
    servedBytes: 80 * MIB,
    collect: () => {
      collected++;
      resident.now = resident.afterCollection;
    },
    residentBytes: () => resident.now,
  });
  return { pressure, collected: () => collected };
}

test('a process well under its budget never collects; one near it collects once per eviction round', () => {
  const resident = { now: Math.floor(BUDGET * COLLECT_AT_SHARE), afterCollection: 180 * MIB };
  const { pressure, collected } = pressureWith(resident);
  pressure.relieve();
  assert.equal(collected(), 0, 'under the share of the budget that calls for a collection');
  resident.now += 1;
  pressure.relieve();
  assert.equal(collected(), 1, 'past it');
  pressure.relieve();
  assert.equal(collected(), 1, 'back under it after the collection');
  assert.equal(pressure.collections, 1);
  assert.equal(pressure.servedBytes(), 80 * MIB, 'a collection that reached the target keeps the allowance');
});

test('what a collection leaves over the target comes off the allowance, and returns while the process stays under it', () => {
  const resident = { now: 300 * MIB, afterCollection: TARGET + 30 * MIB };
  const { pressure } = pressureWith(resident);
  pressure.relieve();
  assert.equal(pressure.servedBytes(), 50 * MIB, 'the 30 MiB the estimate missed');
  resident.now = TARGET + 100 * MIB;
  resident.afterCollection = TARGET + 100 * MIB;
  pressure.relieve();
  assert.equal(pressure.servedBytes(), 0, 'never below nothing');
  resident.now = TARGET - 40 * MIB;
  pressure.relieve();
  assert.equal(pressure.servedBytes(), 20 * MIB, 'half the room under the target comes back');
  for (let round = 0; round < 10; round++) pressure.relieve();
  assert.equal(pressure.servedBytes(), 80 * MIB, 'never past the estimate');
});

test('after loads and catch-ups, one collection runs once SETTLE_COLLECT_MS pass without another', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const resident = { now: 10 * MIB, afterCollection: 10 * MIB };
  const { pressure, collected } = pressureWith(resident);
  pressure.settleLater();
  t.mock.timers.tick(SETTLE_COLLECT_MS - 1);
  pressure.settleLater(); // more work: the collection waits for it to settle too
  t.mock.timers.tick(SETTLE_COLLECT_MS - 1);
  assert.equal(collected(), 0, 'not while work goes on');
  t.mock.timers.tick(1);
  assert.equal(collected(), 1, 'once it settled, whatever the budget');
  assert.equal(pressure.collections, 1);
  t.mock.timers.tick(10 * SETTLE_COLLECT_MS);
  assert.equal(collected(), 1, 'one collection per spell of work');
  const without = new MemoryPressure({ budgetBytes: BUDGET, servedBytes: MIB, collect: null });
  without.settleLater();
  t.mock.timers.tick(SETTLE_COLLECT_MS);
  assert.equal(without.collections, 0, 'nothing to run without an exposed collector');
});

test('without an exposed collector nothing is forced and the allowance is the estimate', () => {
  const pressure = new MemoryPressure({ budgetBytes: 1, servedBytes: 10 * MIB, collect: null, residentBytes: () => 1024 * MIB });
  pressure.relieve();
  assert.equal(pressure.collections, 0);
  assert.equal(pressure.servedBytes(), 10 * MIB);
});

test('the collector is exposed exactly in a process started with the flag api processes get', () => {
  const module = new URL('../../src/serving/memory-pressure.ts', import.meta.url).href;
  const probe = `import { exposedCollector } from '${module}'; const collect = exposedCollector(); if (collect) collect(); console.log(collect === null ? 'none' : 'collected');`;
  const run = (flags: string[]) => execFileSync(process.execPath, [...flags, '--input-type=module', '-e', probe], { encoding: 'utf8' }).trim();
  assert.equal(run([EXPOSE_GC_FLAG]), 'collected');
  assert.equal(run([]), 'none');
});
