import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readWithRetry, ConnectionDropped } from '../../src/search/read-retry.ts';
import { ServiceError } from '../../src/domain/service-error.ts';

test('one dropped connection is retried once and the read succeeds', async () => {
  let calls = 0;
  const value = await readWithRetry(() => {
    calls++;
    if (calls === 1) throw new ConnectionDropped();
    return 'rows';
  });
  assert.equal(value, 'rows');
  assert.equal(calls, 2);
});

test('a second consecutive drop fails with search_connection_dropped (503 internal_error)', async () => {
  let calls = 0;
  await assert.rejects(
    readWithRetry(() => {
      calls++;
      throw new ConnectionDropped();
    }),
    (error: unknown) => error instanceof ServiceError && error.code === 'search_connection_dropped',
  );
  assert.equal(calls, 2);
});

test('other errors are not retried', async () => {
  let calls = 0;
  await assert.rejects(
    readWithRetry(() => {
      calls++;
      throw new TypeError('bad');
    }),
    TypeError,
  );
  assert.equal(calls, 1);
});
