// The sender's own checks, against a real receiver on a local port: at delivery time a non-public address is refused
// before anything is sent, whether the URL names it or a host name resolves to it (the connection goes only to
// addresses the lookup checked); with the operator's setting it is sent, signed. And the retry rule's arithmetic.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isPublicAddress } from '../../src/webhooks/address-guard.ts';
import { sendDelivery } from '../../src/webhooks/delivery-sender.ts';
import { attemptOf } from '../../src/webhooks/delivery-loop.ts';
import { DELIVERY_MAX_BACKOFF_MS, DELIVERY_RETRY_WINDOW_MS } from '../../src/domain/webhooks.ts';
import type { LeasedDelivery } from '../../src/domain/webhooks.ts';
import { signedWith, startReceiver } from '../helpers/webhook-receiver.ts';

const SECRET = 'sender-test-secret-0042';

function delivery(url: string): LeasedDelivery {
  return { deliveryId: 'd-1', url, secret: SECRET, body: JSON.stringify({ event: 'job.completed', delivery_id: 'd-1' }), attempts: 1, createdAtMs: Date.now() };
}

test('addresses outside the public internet are told apart from public ones, IPv4 carried in IPv6 included', () => {
  const nonPublic = ['127.0.0.1', '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.0.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.251', '255.255.255.255', '::', '::1', 'fe80::1', 'fd00::1', 'fc00::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '64:ff9b::a00:1', 'not-an-address'];
  const isPublic = ['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'];
  assert.deepEqual(nonPublic.filter(isPublicAddress), []);
  assert.deepEqual(isPublic.filter((address) => !isPublicAddress(address)), []);
});

test('at delivery time a loopback receiver is refused without the setting, named by address or by a host name, and nothing reaches it', async () => {
  const receiver = await startReceiver();
  try {
    const { port } = new URL(receiver.url);
    for (const url of [receiver.url, `http://localhost:${port}/hook`]) {
      const result = await sendDelivery(delivery(url), { timeoutMs: 10_000, allowPrivateNetworks: false, userAgent: 'test' });
      assert.equal(result.statusCode, null, url);
      assert.match(result.error ?? '', /non-public address/, url);
    }
    assert.equal(receiver.received.length, 0, 'the receiver saw nothing');
    const allowed = await sendDelivery(delivery(`http://localhost:${port}/hook`), { timeoutMs: 10_000, allowPrivateNetworks: true, userAgent: 'test' });
    assert.deepEqual(allowed, { statusCode: 200, error: null });
    assert.equal(receiver.received.length, 1);
    assert.ok(signedWith(SECRET, receiver.received[0]));
  } finally {
    await receiver.close();
  }
});

test('a failed attempt is retried after the base delay doubling, capped, and given up once the next would fall past an hour', () => {
  const createdAtMs = 1_000_000;
  const leased = (attempts: number): LeasedDelivery => ({ ...delivery('http://receiver.test/'), attempts, createdAtMs });
  const failedAnswer = { statusCode: 500, error: null };
  assert.deepEqual(attemptOf(leased(1), failedAnswer, 10_000, createdAtMs), { delivered: false, statusCode: 500, error: 'Answered 500', retryInMs: 10_000 });
  assert.equal(attemptOf(leased(3), failedAnswer, 10_000, createdAtMs).retryInMs, 40_000);
  assert.equal(attemptOf(leased(12), failedAnswer, 10_000, createdAtMs).retryInMs, DELIVERY_MAX_BACKOFF_MS);
  assert.equal(attemptOf(leased(12), failedAnswer, 10_000, createdAtMs + DELIVERY_RETRY_WINDOW_MS - DELIVERY_MAX_BACKOFF_MS).retryInMs, DELIVERY_MAX_BACKOFF_MS);
  assert.equal(attemptOf(leased(12), failedAnswer, 10_000, createdAtMs + DELIVERY_RETRY_WINDOW_MS - DELIVERY_MAX_BACKOFF_MS + 1).retryInMs, null, 'given up');
  assert.deepEqual(attemptOf(leased(1), { statusCode: 204, error: null }, 10_000, createdAtMs), { delivered: true, statusCode: 204, error: null, retryInMs: null });
  assert.equal(attemptOf(leased(1), { statusCode: 301, error: null }, 10_000, createdAtMs).delivered, false, 'a redirect is not followed: not delivered');
  assert.equal(attemptOf(leased(1), { statusCode: null, error: 'No answer within 10000 ms' }, 10_000, createdAtMs).error, 'No answer within 10000 ms');
});
