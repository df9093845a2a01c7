// The merge policy decided on hand-made segment lists (oldest first, rows and dead rows), without a snapshot,
// a segment or a builder: the figures are the policy's, and each case names the rule it pins.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compactionRun, MAX_SEGMENTS, SEGMENT_CLASS_BASE_ROWS, SEGMENT_DEAD_MIN_ROWS, SEGMENT_MERGE_FACTOR, settleRun, sizeClass } from '../../src/serving/merging/merge-policy.ts';
import type { SegmentSize } from '../../src/serving/merging/merge-policy.ts';

/** Segments of these many rows, none dead. */
const live = (...rows: number[]): SegmentSize[] => rows.map((count) => ({ rows: count, deadRows: 0 }));
const deadInAll = (segments: readonly SegmentSize[]) => segments.reduce((sum, segment) => sum + segment.deadRows, 0);
const run = (segments: SegmentSize[]) => compactionRun(segments, deadInAll(segments));

test('size classes grow by SEGMENT_MERGE_FACTOR from SEGMENT_CLASS_BASE_ROWS * SEGMENT_MERGE_FACTOR rows', () => {
  const firstBound = SEGMENT_CLASS_BASE_ROWS * SEGMENT_MERGE_FACTOR;
  assert.equal(sizeClass(0), 0);
  assert.equal(sizeClass(firstBound - 1), 0);
  assert.equal(sizeClass(firstBound), 1);
  assert.equal(sizeClass(firstBound * SEGMENT_MERGE_FACTOR - 1), 1);
  assert.equal(sizeClass(firstBound * SEGMENT_MERGE_FACTOR), 2);
});

test('the newest run of SEGMENT_MERGE_FACTOR adjacent segments of one size class merges, and no shorter run', () => {
  assert.equal(SEGMENT_MERGE_FACTOR, 4, 'the lists below are written for runs of four');
  assert.equal(run(live(10, 20, 30)), null, 'three small segments stay apart');
  assert.deepEqual(run(live(10, 20, 30, 40)), { start: 0, end: 4 });
  // Two runs of class 0 around nothing else: the newest is taken first.
  assert.deepEqual(run(live(10, 20, 30, 40, 50)), { start: 1, end: 5 });
  // A large segment in front of four small ones is not part of their run.
  assert.deepEqual(run(live(5000, 10, 20, 30, 40)), { start: 1, end: 5 });
  // Four adjacent of class 1 behind newer small ones still form a run; mixed classes never do.
  assert.deepEqual(run(live(300, 400, 500, 600, 10, 20)), { start: 0, end: 4 });
  assert.equal(run(live(300, 10, 400, 20, 500, 30)), null, 'no four adjacent of one class');
});

test('past MAX_SEGMENTS the two newest merge regardless of their classes', () => {
  // Alternating classes: no run of one class anywhere, so only the bound can ask for a merge.
  const alternating = Array.from({ length: MAX_SEGMENTS + 1 }, (_, i) => (i % 2 === 0 ? 5000 : 10));
  assert.deepEqual(run(live(...alternating)), { start: MAX_SEGMENTS - 1, end: MAX_SEGMENTS + 1 });
  assert.equal(run(live(...alternating.slice(1))), null, 'at MAX_SEGMENTS exactly nothing merges');
});

test('a segment at least half dead, with SEGMENT_DEAD_MIN_ROWS dead rows or more, is rewritten alone: the deadest first', () => {
  const segments: SegmentSize[] = [
    { rows: 200, deadRows: 80 }, // under half
    { rows: 400, deadRows: 200 }, // half: due
    { rows: 300, deadRows: 250 }, // due, and deader
    { rows: 5000, deadRows: 0 },
  ];
  assert.deepEqual(run(segments), { start: 2, end: 3 });
  assert.equal(run([{ rows: 200, deadRows: 80 }, ...live(5000)]), null, '80 dead rows of 200 stay');
  const few = SEGMENT_DEAD_MIN_ROWS - 1;
  assert.equal(run([{ rows: few, deadRows: few }, ...live(5000)]), null, 'a small segment is not rewritten for a few dead rows');
});

test('dead rows are not counted when the segments hold too few in all, nor of a segment too large to be half dead', () => {
  const counted: number[] = [];
  const counting = (rows: number, dead: number, position: number): SegmentSize => ({
    rows,
    get deadRows() {
      counted.push(position);
      return dead;
    },
  });
  // Bulk ingest: nothing dead anywhere, so no segment is asked.
  assert.equal(compactionRun([counting(5000, 0, 0), counting(300, 0, 1)], 0), null);
  assert.deepEqual(counted, []);
  // 100 dead in all: the segment of 5,000 rows cannot be half dead and is not asked; the one of 150 is, and is due.
  assert.deepEqual(compactionRun([counting(5000, 0, 0), counting(150, 100, 1)], 100), { start: 1, end: 2 });
  assert.deepEqual(counted, [1]);
});

test('a size-class run comes before a mostly dead segment', () => {
  const segments: SegmentSize[] = [{ rows: 300, deadRows: 250 }, ...live(10, 20, 30, 40)];
  assert.deepEqual(run(segments), { start: 1, end: 5 });
});

test('the settle merge takes the newest segments back over each older one at most SEGMENT_MERGE_FACTOR times the rows taken', () => {
  assert.equal(settleRun([]), null);
  assert.equal(settleRun(live(100)), null, 'one segment: nothing to settle');
  assert.deepEqual(settleRun(live(100, 100)), { start: 0, end: 2 });
  // 10 + 30 = 40 taken; 160 is at most four times that, so it joins (200 taken); 5,000 is more than 800: it stays.
  assert.deepEqual(settleRun(live(5000, 160, 30, 10)), { start: 1, end: 4 });
  // Just over the factor: 41 behind 10 stays out, and one segment alone is no merge.
  assert.equal(settleRun(live(41, 10)), null);
  assert.deepEqual(settleRun(live(40, 10)), { start: 0, end: 2 });
  // Dead rows count as rows here too: what settles is what the segments hold.
  assert.deepEqual(settleRun([{ rows: 400, deadRows: 390 }, ...live(100)]), { start: 0, end: 2 });
});
