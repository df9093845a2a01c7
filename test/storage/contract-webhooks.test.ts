// The webhook repository's contract, run against every adapter (SQLite and PostgreSQL) with the same tests: a job's
// final outcome writes its deliveries with it (the outbox), only for the webhooks that want its event; a sender's
// lease keeps a document's deliveries in order and is taken over once it expires; attempts are recorded by the
// lease's owner only. Lease expiry is waited out for real (short leases): PostgreSQL reads the database's clock.

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { STORE_ADAPTERS, stopPostgres } from '../helpers/storage-adapters.ts';
import type { OpenedStore, StoreAdapter } from '../helpers/storage-adapters.ts';
import type { NewJob } from '../../src/domain/jobs.ts';
import type { StoragePort } from '../../src/storage/port.ts';
import type { WebhookEvent } from '../../src/domain/webhooks.ts';

after(stopPostgres);

async function withStore(adapter: StoreAdapter, fn: (store: OpenedStore) => Promise<void>): Promise<void> {
  const store = await adapter.open();
  try {
    await fn(store);
  } finally {
    await store.close();
  }
}

/** A lease the tests never see expire. */
const LIVE_LEASE_MS = 600_000;

const NEW_JOB: NewJob = { clientId: 'c1', operation: 'embed', documentId: 'd1', versionKey: 'v1', request: { source: 'file', upload: 'up-1', filename: null, metadata: {} }, maxAttempts: 3 };

async function webhook(storage: StoragePort, webhookId: string, events: WebhookEvent[], clientId = 'c1') {
  const created = await storage.webhooks.create({ webhookId, clientId, url: `http://receiver.test/${webhookId}`, events, secret: `secret-of-${webhookId}`, createdAt: new Date().toISOString() }, 20);
  assert.ok(created);
  return created;
}

/** Enqueues, claims and finishes one job; returns its id. */
async function finished(storage: StoragePort, status: 'completed' | 'failed', job: Partial<NewJob> = {}): Promise<string> {
  const enqueued = await storage.jobs.enqueue({ ...NEW_JOB, ...job } as NewJob);
  const claimed = await storage.jobs.claim('worker', 10_000);
  assert.equal(claimed?.jobId, enqueued.jobId);
  assert.equal(await storage.jobs.finish(enqueued.jobId, 'worker', { status }), true);
  return enqueued.jobId;
}

for (const adapter of STORE_ADAPTERS) {
  describe(`webhooks: ${adapter.name}`, () => {
    test("a final outcome writes one pending delivery per webhook of its Client that wants the event, and none for others", async () => {
      await withStore(adapter, async ({ storage }) => {
        await webhook(storage, 'all', ['job.completed', 'job.failed']);
        await webhook(storage, 'failed-only', ['job.failed']);
        await webhook(storage, 'other-client', ['job.completed', 'job.failed'], 'c2');
        const jobId = await finished(storage, 'completed');
        const log = (await storage.webhooks.deliveries('c1', 'all', 100))!;
        assert.deepEqual(log.map((entry) => [entry.jobId, entry.event, entry.status, entry.attempts]), [[jobId, 'job.completed', 'pending', 0]]);
        assert.deepEqual(await storage.webhooks.deliveries('c1', 'failed-only', 100), []);
        assert.deepEqual(await storage.webhooks.deliveries('c2', 'other-client', 100), []);
        assert.equal(await storage.webhooks.deliveries('c2', 'all', 100), null, "another Client's webhook reads as none");

        const leased = await storage.webhooks.lease('sender', 10_000, 10);
        assert.equal(leased.length, 1);
        assert.equal(leased[0].url, 'http://receiver.test/all');
        assert.equal(leased[0].secret, 'secret-of-all');
        assert.equal(leased[0].attempts, 1, 'a lease counts an attempt');
        assert.deepEqual(JSON.parse(leased[0].body), {
          event: 'job.completed',
          delivery_id: log[0].deliveryId,
          job_id: jobId,
          operation: 'embed',
          status: 'completed',
          document_id: 'd1',
          version_id: 'v1',
          occurred_at: JSON.parse(leased[0].body).occurred_at,
        });
        assert.equal((await storage.jobs.getById(jobId))!.completedAt, JSON.parse(leased[0].body).occurred_at, 'occurred_at is when the outcome was recorded');
      });
    });

    test('a finish by a worker that lost the job writes no delivery', async () => {
      await withStore(adapter, async ({ storage }) => {
        await webhook(storage, 'all', ['job.completed']);
        const enqueued = await storage.jobs.enqueue(NEW_JOB);
        await storage.jobs.claim('worker', 10_000);
        assert.equal(await storage.jobs.finish(enqueued.jobId, 'not-the-owner', { status: 'completed' }), false);
        assert.deepEqual(await storage.webhooks.deliveries('c1', 'all', 100), []);
      });
    });

    test("a document's later delivery is not leased while an earlier one is pending; another document's is", async () => {
      await withStore(adapter, async ({ storage }) => {
        await webhook(storage, 'all', ['job.completed', 'job.failed']);
        const first = await finished(storage, 'completed');
        const second = await finished(storage, 'failed');
        const elsewhere = await finished(storage, 'completed', { documentId: 'd2', versionKey: 'd2' });
        const leased = await storage.webhooks.lease('sender', 10_000, 10);
        assert.deepEqual(leased.map((delivery) => JSON.parse(delivery.body).job_id).sort(), [first, elsewhere].sort());
        const firstDelivery = leased.find((delivery) => JSON.parse(delivery.body).job_id === first)!;
        // A retry keeps it pending: the later one still waits.
        assert.equal(await storage.webhooks.recordAttempt(firstDelivery.deliveryId, 'sender', { delivered: false, statusCode: 500, error: 'Answered 500', retryInMs: 0 }), true);
        const again = await storage.webhooks.lease('sender', 10_000, 10);
        assert.deepEqual(again.map((delivery) => delivery.deliveryId), [firstDelivery.deliveryId]);
        assert.equal(again[0].attempts, 2);
        assert.equal(await storage.webhooks.recordAttempt(firstDelivery.deliveryId, 'sender', { delivered: true, statusCode: 200, error: null, retryInMs: null }), true);
        const next = await storage.webhooks.lease('sender', 10_000, 10);
        assert.deepEqual(next.map((delivery) => JSON.parse(delivery.body).job_id), [second]);
        const log = (await storage.webhooks.deliveries('c1', 'all', 100))!;
        const delivered = log.find((entry) => entry.deliveryId === firstDelivery.deliveryId)!;
        assert.deepEqual([delivered.status, delivered.attempts, delivered.lastStatusCode, delivered.lastError, delivered.nextAttemptAt], ['delivered', 2, 200, null, null]);
        assert.ok(delivered.deliveredAt !== null);
        // Given up (no retry left): failed, and the document's next delivery is free to go.
        const secondDelivery = next[0];
        assert.equal(await storage.webhooks.recordAttempt(secondDelivery.deliveryId, 'sender', { delivered: false, statusCode: null, error: 'No answer', retryInMs: null }), true);
        assert.equal((await storage.webhooks.deliveries('c1', 'all', 100))!.find((entry) => entry.deliveryId === secondDelivery.deliveryId)!.status, 'failed');
      });
    });

    test("an expired lease is taken over, and the first holder's attempt is then refused", async () => {
      await withStore(adapter, async ({ storage, openAnother }) => {
        await webhook(storage, 'all', ['job.completed']);
        const other = await openAnother();
        // A lease no busy machine outlives is not taken...
        await finished(storage, 'completed', { documentId: 'held' });
        const [held] = await storage.webhooks.lease('holds', LIVE_LEASE_MS, 10);
        assert.deepEqual(await other.webhooks.lease('survivor', 10_000, 10), [], 'a live lease is not taken');
        // ...and a short one is, once it has expired.
        await finished(storage, 'completed', { documentId: 'expires' });
        const [leased] = await storage.webhooks.lease('dies', 50, 10);
        assert.notEqual(leased.deliveryId, held.deliveryId);
        let taken: Awaited<ReturnType<StoragePort['webhooks']['lease']>> = [];
        for (const deadline = Date.now() + 10_000; taken.length === 0 && Date.now() < deadline; ) {
          taken = await other.webhooks.lease('survivor', 10_000, 10);
          if (taken.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
        }
        assert.deepEqual(taken.map((delivery) => delivery.deliveryId), [leased.deliveryId]);
        assert.equal(await storage.webhooks.recordAttempt(leased.deliveryId, 'dies', { delivered: true, statusCode: 200, error: null, retryInMs: null }), false);
        assert.equal(await other.webhooks.recordAttempt(leased.deliveryId, 'survivor', { delivered: true, statusCode: 200, error: null, retryInMs: null }), true);
      });
    });

    test('registration stops at the limit; removal takes the deliveries with it and is the owner\'s alone', async () => {
      await withStore(adapter, async ({ storage }) => {
        await webhook(storage, 'one', ['job.completed']);
        assert.equal(await storage.webhooks.create({ webhookId: 'two', clientId: 'c1', url: 'http://receiver.test/two', events: ['job.completed'], secret: 'secret-two-0000000', createdAt: new Date().toISOString() }, 1), null);
        await finished(storage, 'completed');
        assert.equal(await storage.webhooks.remove('c2', 'one'), false);
        assert.equal(await storage.webhooks.remove('c1', 'one'), true);
        assert.deepEqual(await storage.webhooks.list('c1'), []);
        assert.deepEqual(await storage.webhooks.lease('sender', 10_000, 10), [], 'no delivery of a removed webhook is sent');
      });
    });
  });
}
