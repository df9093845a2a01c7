import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readOverNetwork } from '../../src/search/network-read.ts';
import { ModelProviderError } from '../../src/models/model-error.ts';
import { ServiceError } from '../../src/domain/service-error.ts';

const drop = () => new ModelProviderError('provider_connection_dropped', 'dropped', { retryable: true });

test('one dropped connection is retried once and the read succeeds', async () => {
  let calls = 0;
  const value = await readOverNetwork(async () => {
    calls++;
    if (calls === 1) throw drop();
    return 'vector';
  });
  assert.equal(value, 'vector');
  assert.equal(calls, 2);
});

test('a second consecutive drop fails with search_connection_dropped (503 internal_error)', async () => {
  let calls = 0;
  await assert.rejects(
    readOverNetwork(async () => {
      calls++;
      throw drop();
    }),
    (error: unknown) => error instanceof ServiceError && error.code === 'search_connection_dropped',
  );
  assert.equal(calls, 2);
});

test('other transport errors are not retried', async () => {
  let calls = 0;
  const refused = new ModelProviderError('provider_unavailable', 'connection refused', { retryable: true });
  await assert.rejects(
    readOverNetwork(async () => {
      calls++;
      throw refused;
    }),
    (error: unknown) => error === refused,
  );
  assert.equal(calls, 1);
});
