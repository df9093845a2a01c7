// How many connections each api process sheds, from the counts of the active ones: on made-up counts.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connectionsToShed } from '../../src/runtime/connection-shares.ts';

test('a replacement with no connections: the survivor sheds down to the mean', () => {
  assert.deepEqual(connectionsToShed([0, 16]), [0, 8]);
  assert.deepEqual(connectionsToShed([16, 0, 2]), [10, 0, 0]);
});

test('a spread within the tolerance sheds nothing, so a steady load is not churned', () => {
  assert.deepEqual(connectionsToShed([7, 9]), [0, 0]);
  assert.deepEqual(connectionsToShed([3, 5]), [0, 0], 'two over the mean is within MIN_EXCESS');
  assert.deepEqual(connectionsToShed([90, 110]), [0, 0], 'ten over a mean of 100 is within the 25% tolerance');
  assert.deepEqual(connectionsToShed([60, 140]), [0, 40]);
});

test('one api process, or none active, sheds nothing', () => {
  assert.deepEqual(connectionsToShed([12]), [0]);
  assert.deepEqual(connectionsToShed([0, 0]), [0, 0]);
  assert.deepEqual(connectionsToShed([]), []);
});

test('repeated counts converge when the reconnections are dealt out unevenly', () => {
  let counts = [0, 16];
  for (let round = 0; round < 6; round++) {
    const shed = connectionsToShed(counts);
    // The cluster hands three of every four reconnections to the busy process (the worst seen): it sheds again.
    const moved = shed.map((count) => count - Math.round((count * 3) / 4));
    const back = shed.map((count, index) => count - moved[index]);
    counts = counts.map((count, index) => count - shed[index] + back[index] + moved.filter((_, other) => other !== index).reduce((sum, value) => sum + value, 0));
  }
  assert.ok(Math.abs(counts[0] - counts[1]) <= 4, `spread after six counts: ${counts}`);
  assert.equal(counts[0] + counts[1], 16);
});
