import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ERROR_CATALOGUE } from '../../src/http/error-catalogue.ts';

const SPEC = readFileSync(new URL('../../../shared/SPEC.md', import.meta.url), 'utf8');

test('every error_code of the SPEC.md error table is in the catalogue with its status', () => {
  const rows = [...SPEC.matchAll(/^\| (\d{3}) \| ([A-Za-z_]+) \|/gm)].map((match) => ({ status: Number(match[1]), code: match[2] }));
  assert.ok(rows.length >= 10, 'the spec table was read');
  const entries = Object.values(ERROR_CATALOGUE);
  for (const row of rows) {
    assert.ok(
      entries.some((entry) => entry.errorCode === row.code && entry.status === row.status),
      `${row.status} ${row.code} is catalogued`,
    );
  }
});

test('every publication 503 carries Retry-After 1', () => {
  for (const [key, entry] of Object.entries(ERROR_CATALOGUE)) {
    if (entry.status === 503 && entry.errorCode.startsWith('publication_') && key !== 'publication_disabled') {
      assert.equal(entry.retryAfterSeconds, 1, key);
    }
  }
  assert.equal(ERROR_CATALOGUE.search_connection_dropped.retryAfterSeconds, 1);
  assert.equal(ERROR_CATALOGUE.internal_error.retryAfterSeconds, null);
});
