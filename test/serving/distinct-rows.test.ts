// Rows grouped by identical codes: numbered by first appearance, members ascending, the codes of each group
// taken from its first row; rows that differ in one component never share a group.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { groupCodes, groupOfRows, rowGroups } from '../../src/serving/graphs/distinct-rows.ts';

test('rows with identical codes form one group; any difference keeps them apart', () => {
  const dimensions = 4;
  const rows = [
    [1, 2, 3, 4],
    [5, 6, 7, 8],
    [1, 2, 3, 4],
    [1, 2, 3, -4],
    [5, 6, 7, 8],
    [1, 2, 3, 4],
  ];
  const codes = Int8Array.from(rows.flat());
  const groupOfRow = groupOfRows(codes, dimensions);
  assert.deepEqual([...groupOfRow], [0, 1, 0, 2, 1, 0]);
  const groups = rowGroups(groupOfRow);
  assert.equal(groups.count, 3);
  const membersOf = (group: number) => [...groups.members.subarray(groups.starts[group], groups.starts[group + 1])];
  assert.deepEqual([0, 1, 2].map(membersOf), [[0, 2, 5], [1, 4], [3]]);
  assert.deepEqual([...groupCodes(codes, dimensions, groups)], [1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, -4]);
  assert.deepEqual(rowGroups(groupOfRows(new Int8Array(0), dimensions)).count, 0);
});
