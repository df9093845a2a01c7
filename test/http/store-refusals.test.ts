// What /health learns of a full store from the writes refused (store-refusals.ts): the full refusals alone
// count, a recorded job clears them, and they stop counting STORE_FULL_REPORT_MS after the last one.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StoreRefusals } from '../../src/http/store-refusals.ts';
import { STORE_FULL_REPORT_MS } from '../../src/http/rate-limit.ts';
import { StoreFailure } from '../../src/domain/store-failure.ts';

const full = () => new StoreFailure('full', 'postgresql', 'The PostgreSQL database is out of disk space');
const down = () => new StoreFailure('unreachable', 'postgresql', 'PostgreSQL cannot be reached');

test('a full refusal reports the store refusing writes; an unreachable store or no failure does not', () => {
  let now = 1_000;
  const refusals = new StoreRefusals(() => now);
  assert.equal(refusals.seen(null), null);
  const unreachable = down();
  assert.equal(refusals.seen(unreachable), unreachable, 'the failure is handed back as it is');
  assert.equal(refusals.refusingWrites, false, 'an unreachable store is the probe\'s to report, not a full one');
  refusals.seen(full());
  assert.equal(refusals.refusingWrites, true);
  now += STORE_FULL_REPORT_MS - 1;
  assert.equal(refusals.refusingWrites, true, 'still within the report window');
  now += 1;
  assert.equal(refusals.refusingWrites, false, 'the window after the last refusal has passed');
});

test('a write accepted after a refusal clears the report; a refusal after it sets it again', () => {
  const refusals = new StoreRefusals(() => 5_000);
  refusals.seen(full());
  refusals.writeAccepted();
  assert.equal(refusals.refusingWrites, false);
  refusals.seen(full());
  assert.equal(refusals.refusingWrites, true);
});
