// SPEC.md's Limits table and src/domain/spec-limits.ts say the same: every row of the one is a row of the
// other, with the same value, rendered from the constants the code applies.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { SPEC_LIMITS } from '../src/spec-limits.ts';

const SPEC = readFileSync(new URL('../../shared/SPEC.md', import.meta.url), 'utf8');

/** The Limits table's rows: limit name -> value cell. */
function specLimits(): Map<string, string> {
  const section = SPEC.slice(SPEC.indexOf('\n## Limits'), SPEC.indexOf('\n## ', SPEC.indexOf('\n## Limits') + 1));
  const rows = new Map<string, string>();
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    // | Limit | Value | Applies to |, without the header and the separator.
    if (cells.length !== 5 || cells[1] === 'Limit' || /^-+$/.test(cells[1])) continue;
    rows.set(cells[1], cells[2]);
  }
  return rows;
}

test('SPEC.md has a Limits table this test can read', () => {
  assert.ok(specLimits().size >= 20, `${specLimits().size} rows`);
});

test('every limit of SPEC.md is in the table with the same value, and nothing else is', () => {
  const spec = specLimits();
  assert.deepEqual([...spec.keys()].sort(), Object.keys(SPEC_LIMITS).sort());
  for (const [limit, value] of spec) {
    const ours = SPEC_LIMITS[limit];
    if (ours === null) {
      assert.doesNotMatch(value, /\d/, `${limit}: SPEC.md gives it a value now`);
      continue;
    }
    assert.equal(ours, value, limit);
  }
});
