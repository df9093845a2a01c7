// test/tiers.ts places every test file in exactly one tier, and its rows resolve as the table says: a file's own
// row before its folder's, the nearest folder before one further up, nothing for a file no row covers.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { E2E_ABOVE_THE_STORE, inStartOrder, STARTED_FIRST, offTheClock, ON_THE_CLOCK, place, PLACES, postgresE2e, testFiles, tierOf, TIERS } from './tiers.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

test('every test file of the checkout belongs to a tier, and every file row names one', () => {
  const files = testFiles(ROOT);
  assert.ok(files.length >= 150, `test files found: ${files.length}`);
  const placement = place(files);
  assert.deepEqual(placement.unplaced, [], 'test files no row of test/tiers.ts places');
  assert.deepEqual(placement.stale, [], 'rows of test/tiers.ts naming no test file');
  // Each file runs in one tier only (the runner's postgres step runs the e2e tier's files a second time).
  const placed = TIERS.flatMap((tier) => placement.byTier[tier]);
  assert.equal(placed.length, files.length);
  assert.equal(new Set(placed).size, files.length);
  for (const tier of TIERS) assert.ok(placement.byTier[tier].length > 0, `tier ${tier} has files`);
  assert.ok(placement.byTier.e2e.every((file) => file.startsWith('test/e2e/')));
  assert.ok(placement.byTier.serial.every((file) => file.endsWith('.serial.ts')));
});

test('a file row wins over its folder, the nearest folder over one above, and a file no row covers has no tier', () => {
  const places = { 'test/a/': 'store', 'test/a/b/': 'unit', 'test/a/b/slow.test.ts': 'integration', 'test/top.test.ts': 'unit' } as const;
  assert.equal(tierOf('test/a/b/slow.test.ts', places), 'integration');
  assert.equal(tierOf('test/a/b/quick.test.ts', places), 'unit');
  assert.equal(tierOf('test/a/b/c/deep.test.ts', places), 'unit');
  assert.equal(tierOf('test/a/other.test.ts', places), 'store');
  assert.equal(tierOf('test/top.test.ts', places), 'unit');
  assert.equal(tierOf('test/new.test.ts', places), null);
  assert.equal(tierOf('test/ab/x.test.ts', places), null, 'a folder row covers that folder, not one whose name starts the same');
  const placement = place(['test/a/x.test.ts', 'test/new/y.test.ts'], places);
  assert.deepEqual(placement.unplaced, ['test/new/y.test.ts']);
  assert.deepEqual(placement.stale, ['test/a/b/slow.test.ts', 'test/top.test.ts']);
});

test('the e2e folder is the e2e tier, and the browser, disk and serial suites are tiers of their own', () => {
  assert.equal(PLACES['test/e2e/'], 'e2e');
  assert.equal(PLACES['test/browser/'], 'browser');
  assert.equal(PLACES['test/disk/'], 'disk');
  assert.equal(PLACES['test/serial/'], 'serial');
});

test('the postgres step runs every e2e file but those named above the store, and each name is a present e2e file', () => {
  const e2e = place(testFiles(ROOT)).byTier.e2e;
  for (const file of E2E_ABOVE_THE_STORE) assert.ok(e2e.includes(file), `${file} is not an e2e file`);
  const again = postgresE2e(e2e);
  assert.equal(again.length, e2e.length - E2E_ABOVE_THE_STORE.size);
  assert.ok(again.every((file) => !E2E_ABOVE_THE_STORE.has(file)));
  assert.ok(again.includes('test/e2e/processes.test.ts') && again.includes('test/e2e/postgres-store.test.ts'));
  assert.deepEqual(postgresE2e(['test/e2e/new.test.ts']), ['test/e2e/new.test.ts'], 'a new file runs on both stores');
});

test('the files on the clock run apart from the rest of their step, and every file once; the long e2e files start first', () => {
  const placement = place(testFiles(ROOT));
  const e2e = placement.byTier.e2e;
  for (const file of ON_THE_CLOCK) assert.ok(e2e.includes(file) || placement.byTier.browser.includes(file), `${file} is not an e2e or browser file`);
  const all = Object.values(placement.byTier).flat();
  for (const file of STARTED_FIRST) assert.ok(all.includes(file), `${file} is not a test file of any tier`);
  const e2eFirst = STARTED_FIRST.filter((file) => e2e.includes(file));
  assert.ok(e2eFirst.length > 0);
  for (const file of ON_THE_CLOCK) if (e2e.includes(file)) assert.ok(E2E_ABOVE_THE_STORE.has(file), `${file} waits on the clock once, on SQLite only`);
  const { rest, clock } = offTheClock(e2e);
  assert.deepEqual(clock, e2e.filter((file) => ON_THE_CLOCK.has(file)));
  assert.ok(clock.length > 0);
  assert.deepEqual([...rest, ...clock].sort(), [...e2e].sort(), 'each e2e file in one of the two runs');
  assert.deepEqual(rest.slice(0, e2eFirst.length), e2eFirst);
  assert.equal(inStartOrder(placement.byTier.unit)[0], STARTED_FIRST.find((file) => placement.byTier.unit.includes(file)), 'the other steps start their long files first too');
  assert.deepEqual(offTheClock(placement.byTier.browser).clock, ['test/browser/console-budget.test.ts']);
  assert.deepEqual(inStartOrder(['test/e2e/a.test.ts', 'test/e2e/webhooks.test.ts', 'test/e2e/b.test.ts', 'test/e2e/processes.test.ts']), ['test/e2e/processes.test.ts', 'test/e2e/webhooks.test.ts', 'test/e2e/a.test.ts', 'test/e2e/b.test.ts']);
  assert.equal(postgresE2e(e2e)[0], e2eFirst[0], 'the postgres step starts its long files first too');
});
