// The storage port's contract for the deployment's shared records, run against every adapter (SQLite and
// PostgreSQL) with the same tests: jobs with leases, discovery readiness, the authority record and named
// leases, rate windows, deployment secrets, uploads, and the registry of Clients. Lease and window expiry is
// waited out for real (the PostgreSQL adapter reads the database's clock, not an injectable one): to the moment
// the store recorded (untilPast) or until the store says so (until), never for a guessed time; and what must
// still hold (a lease, a delay) is given ample time, so that a busy machine cannot outlast it mid-test.

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { STORE_ADAPTERS, stopPostgres, untilPast } from '../helpers/storage-adapters.ts';
import { until } from '../helpers/processes.ts';
import type { OpenedStore, StoreAdapter } from '../helpers/storage-adapters.ts';
import type { NewJob } from '../../src/domain/jobs.ts';
import { AuthorityUnreadable } from '../../src/domain/publication-log.ts';

after(stopPostgres);

async function withStore(adapter: StoreAdapter, fn: (store: OpenedStore) => Promise<void>): Promise<void> {
  const store = await adapter.open();
  try {
    await fn(store);
  } finally {
    await store.close();
  }
}

/** A lease or delay that must still hold when the test next looks: no busy machine takes this long between two calls. */
const HELD_MS = 10_000;
/** A lease or delay the test then waits out. */
const SHORT_MS = 150;
/**
 * The retry delay of the test that sees a retry not yet due and then due: long enough that two store calls on a
 * busy machine never outlast it, and waited out to its recorded run time.
 */
const RETRY_DELAY_MS = 1_000;
/** A rate window that must not slide during a test's few calls, then is waited out to its recorded end. */
const WINDOW_MS = 1_000;

const NEW_JOB: NewJob = { clientId: 'c1', operation: 'embed', documentId: 'd1', versionKey: 'd1', request: { source: 'file', upload: 'up-1', filename: null, metadata: {} }, maxAttempts: 3 };

for (const adapter of STORE_ADAPTERS) {
  describe(`jobs: ${adapter.name}`, () => {
    test('a claim takes the oldest runnable job with a lease and counts an attempt; nothing left gives null', async () => {
      await withStore(adapter, async ({ storage }) => {
        const { jobs } = storage;
        const first = await jobs.enqueue(NEW_JOB);
        assert.equal(first.status, 'pending');
        assert.deepEqual(first.request, NEW_JOB.request);
        assert.ok(!Number.isNaN(Date.parse(first.createdAt)));
        await jobs.enqueue({ ...NEW_JOB, documentId: 'd2', versionKey: 'd2' });
        const claimed = (await jobs.claim('w1', 10_000))!;
        assert.equal(claimed.jobId, first.jobId);
        assert.equal(claimed.status, 'started');
        assert.equal(claimed.attempts, 1);
        assert.equal(claimed.leaseOwner, 'w1');
        assert.ok(claimed.leaseExpiresAt! > claimed.nextRunAt);
        assert.equal((await jobs.claim('w2', 10_000))!.documentId, 'd2');
        assert.equal(await jobs.claim('w3', 10_000), null);
      });
    });

    test("a document's metadata updates are claimed one after another, in the order they were accepted", async () => {
      await withStore(adapter, async ({ storage }) => {
        const { jobs } = storage;
        const update = (documentId: string, clientId = 'c1') => jobs.enqueue({ ...NEW_JOB, clientId, operation: 'metadata_update', documentId, versionKey: null, request: { metadata: {}, updated_fields: [] } });
        const first = await update('d1');
        const second = await update('d1');
        const otherDocument = await update('d2');
        const otherClient = await update('d1', 'c2');
        assert.equal((await jobs.claim('w1', 10_000))!.jobId, first.jobId);
        assert.deepEqual([(await jobs.claim('w2', 10_000))!.jobId, (await jobs.claim('w3', 10_000))!.jobId], [otherDocument.jobId, otherClient.jobId]);
        assert.equal(await jobs.claim('w4', 10_000), null, 'the second update of d1 waits for the first');
        assert.equal((await jobs.get('c1', second.jobId))!.status, 'pending');
        await jobs.finish(first.jobId, 'w1', { status: 'completed' });
        assert.equal((await jobs.claim('w4', 10_000))!.jobId, second.jobId);
      });
    });

    test('claims made at once take each job once', async () => {
      await withStore(adapter, async ({ storage, openAnother }) => {
        const other = await openAnother();
        for (let index = 0; index < 4; index++) await storage.jobs.enqueue({ ...NEW_JOB, documentId: `d${index}` });
        const claims = await Promise.all(Array.from({ length: 8 }, (_, index) => (index % 2 === 0 ? storage : other).jobs.claim(`w${index}`, 10_000)));
        const claimed = claims.filter((job) => job !== null).map((job) => job!.jobId);
        assert.equal(claimed.length, 4);
        assert.equal(new Set(claimed).size, 4, 'no job claimed twice');
      });
    });

    test('claims go oldest first across every kind: an expired lease, pending jobs and a due retry by run time, then acceptance', async () => {
      await withStore(adapter, async ({ storage }) => {
        const { jobs } = storage;
        const abandoned = await jobs.enqueue(NEW_JOB);
        await jobs.claim('dead-worker', HELD_MS);
        const retried = await jobs.enqueue({ ...NEW_JOB, documentId: 'd2', versionKey: 'd2' });
        const pending = await jobs.enqueue({ ...NEW_JOB, documentId: 'd3', versionKey: 'd3' });
        assert.equal((await jobs.claim('w1', 10_000))!.jobId, retried.jobId);
        await untilPast(pending.nextRunAt); // the retry runs again after the pending job's run time
        assert.equal(await jobs.scheduleRetry(retried.jobId, 'w1', 'provider timed out', 0), true);
        const later = await jobs.enqueue({ ...NEW_JOB, documentId: 'd4', versionKey: 'd4' });
        // The dead worker's last heartbeat gives it a short lease, which then expires.
        assert.equal(await jobs.heartbeat(abandoned.jobId, 'dead-worker', SHORT_MS), true);
        await untilPast((await jobs.getById(abandoned.jobId))!.leaseExpiresAt!);
        const order: string[] = [];
        for (let job = await jobs.claim('w2', 10_000); job; job = await jobs.claim('w2', 10_000)) order.push(job.jobId);
        assert.deepEqual(order, [abandoned.jobId, pending.jobId, retried.jobId, later.jobId]);
      });
    });

    test("an expired lease is claimed again; the old owner can no longer heartbeat or finish", async () => {
      await withStore(adapter, async ({ storage }) => {
        const { jobs } = storage;
        const job = await jobs.enqueue(NEW_JOB);
        await jobs.claim('dead-worker', HELD_MS);
        assert.equal(await jobs.claim('w2', 10_000), null, 'lease still valid');
        assert.equal(await jobs.heartbeat(job.jobId, 'dead-worker', SHORT_MS, 'processing'), true);
        const beating = (await jobs.getById(job.jobId))!;
        assert.equal(beating.status, 'processing');
        await untilPast(beating.leaseExpiresAt!);
        const reclaimed = (await jobs.claim('w2', 10_000))!;
        assert.equal(reclaimed.jobId, job.jobId);
        assert.equal(reclaimed.attempts, 2);
        assert.equal(await jobs.heartbeat(job.jobId, 'dead-worker', 10_000), false);
        assert.equal(await jobs.finish(job.jobId, 'dead-worker', { status: 'completed' }), false);
        assert.equal(await jobs.recordProgress(job.jobId, 'w2', { staged_generation: 7 }), true);
        assert.deepEqual((await jobs.getById(job.jobId))!.result, { staged_generation: 7 });
        assert.equal(await jobs.finish(job.jobId, 'w2', { status: 'failed', error: 'bad file', errorDetails: { code: 'x' } }), true);
        const finished = (await jobs.get('c1', job.jobId))!;
        assert.equal(finished.status, 'failed');
        assert.equal(finished.error, 'bad file');
        assert.deepEqual(finished.errorDetails, { code: 'x' });
        assert.equal(finished.leaseOwner, null);
        assert.ok(finished.completedAt);
        assert.equal(await jobs.claim('w3', 10_000), null, 'a finished job is never claimed');
      });
    });

    test('a retry waits for its delay and keeps its error; a wait for publication gives the attempt back', async () => {
      await withStore(adapter, async ({ storage }) => {
        const { jobs } = storage;
        const job = await jobs.enqueue(NEW_JOB);
        await jobs.claim('w1', 10_000);
        assert.equal(await jobs.scheduleRetry(job.jobId, 'w1', 'provider down', RETRY_DELAY_MS), true);
        const retrying = (await jobs.getById(job.jobId))!;
        assert.equal(retrying.status, 'retrying');
        assert.equal(retrying.error, 'provider down');
        assert.equal(retrying.leaseOwner, null);
        assert.equal(await jobs.claim('w1', 10_000), null, 'not due yet');
        await untilPast(retrying.nextRunAt);
        const again = (await jobs.claim('w1', 10_000))!;
        assert.equal(again.attempts, 2);
        assert.equal(await jobs.waitForPublication(job.jobId, 'w1', 'Waiting for publication (authority FENCING)', 0), true);
        const waiting = (await jobs.getById(job.jobId))!;
        assert.equal(waiting.attempts, 1, 'no attempt spent on waiting');
        assert.ok(waiting.publicationWaitSince !== null);
        await jobs.claim('w1', 10_000);
        await jobs.waitForPublication(job.jobId, 'w1', 'still waiting', 0);
        assert.equal((await jobs.getById(job.jobId))!.publicationWaitSince, waiting.publicationWaitSince, 'the wait keeps its start');
        assert.equal(await jobs.waitForPublication(job.jobId, 'not-the-owner', 'x', 0), false);
        await jobs.claim('w1', 10_000);
        await jobs.release(job.jobId, 'w1');
        const released = (await jobs.getById(job.jobId))!;
        assert.equal(released.status, 'retrying');
        assert.equal(released.attempts, 1);
        assert.equal(released.leaseOwner, null);
      });
    });

    test("a Client sees its own jobs only; lookups, deletion of a document's jobs, counts and live uploads", async () => {
      await withStore(adapter, async ({ storage }) => {
        const { jobs } = storage;
        const older = await jobs.enqueue(NEW_JOB);
        const newer = await jobs.enqueue({ ...NEW_JOB, request: { source: 'file', upload: 'up-2', filename: null, metadata: {} } });
        const update = await jobs.enqueue({ ...NEW_JOB, operation: 'metadata_update', versionKey: null, request: { metadata: {}, updated_fields: [] } });
        const otherVersion = await jobs.enqueue({ ...NEW_JOB, versionKey: 'v2', request: { source: 'text', filename: null, metadata: {} } });
        const foreign = await jobs.enqueue({ ...NEW_JOB, clientId: 'c2', request: { source: 'text', filename: null, metadata: {} } });
        assert.equal(await jobs.get('c2', older.jobId), null, "another Client's job is unknown");
        assert.equal((await jobs.get('c1', older.jobId))!.jobId, older.jobId);
        assert.equal(await jobs.getById('no-such-job'), null);
        assert.equal((await jobs.newestEmbedJob('c1', 'd1', 'd1'))!.jobId, newer.jobId);
        assert.equal(await jobs.newestEmbedJob('c1', 'd1', 'nope'), null);
        assert.deepEqual(await jobs.liveUploadNames(), new Set(['up-1', 'up-2']));
        const claimed = (await jobs.claim('w1', 10_000))!;
        await jobs.finish(claimed.jobId, 'w1', { status: 'completed' });
        assert.deepEqual(await jobs.liveUploadNames(), new Set(['up-2']), "a finished job's upload is no longer needed");
        const counts = (await jobs.countsByOperationAndState()).map(({ operation, status, count }) => ({ operation, status, count }));
        assert.deepEqual(
          counts.sort((a, b) => `${a.operation}${a.status}`.localeCompare(`${b.operation}${b.status}`)),
          [
            { operation: 'embed', status: 'completed', count: 1 },
            { operation: 'embed', status: 'pending', count: 3 },
            { operation: 'metadata_update', status: 'pending', count: 1 },
          ],
        );
        assert.deepEqual((await jobs.uploadsForDocument('c1', 'd1', 'd1')).sort(), ['up-1', 'up-2'], 'the uploads those jobs name, finished or not');
        assert.deepEqual(await jobs.uploadsForDocument('c1', 'd1', 'v2'), [], 'none for a version whose jobs name none');
        assert.deepEqual(await jobs.uploadsForDocument('c2', 'd1', null), []);
        assert.deepEqual((await jobs.deleteForDocument('c1', 'd1', 'd1')).sort(), [older.jobId, newer.jobId, update.jobId].sort(), 'a version and the jobs of every version');
        assert.deepEqual(await jobs.deleteForDocument('c1', 'd1', null), [otherVersion.jobId]);
        assert.equal((await jobs.getById(foreign.jobId))!.clientId, 'c2', "another Client's job of the same document stays");
      });
    });
  });

  describe(`discovery, authority, leases, rate windows, secrets, uploads: ${adapter.name}`, () => {
    test('readiness is ready until recorded; a backfill whose job failed leaves the Client blocked', async () => {
      await withStore(adapter, async ({ storage }) => {
        assert.deepEqual(await storage.discovery.readiness('c1'), { state: 'ready', backfillJobId: null, updatedAt: null });
        const job = await storage.jobs.enqueue({ ...NEW_JOB, operation: 'metadata_backfill', documentId: '', versionKey: null, request: {} });
        await storage.discovery.setReadiness('c1', 'backfilling', job.jobId);
        const backfilling = await storage.discovery.readiness('c1');
        assert.equal(backfilling.state, 'backfilling');
        assert.equal(backfilling.backfillJobId, job.jobId);
        assert.ok(backfilling.updatedAt);
        await storage.jobs.claim('w1', 10_000);
        await storage.jobs.finish(job.jobId, 'w1', { status: 'failed', error: 'x' });
        assert.equal((await storage.discovery.readiness('c1')).state, 'blocked');
        await storage.discovery.setReadiness('c1', 'ready');
        assert.deepEqual({ ...(await storage.discovery.readiness('c1')), updatedAt: null }, { state: 'ready', backfillJobId: null, updatedAt: null });
        assert.equal((await storage.discovery.readiness('c2')).updatedAt, null, 'per Client');
      });
    });

    test('the authority record starts READY, changes mode with its time, and is shared by every opener', async () => {
      await withStore(adapter, async ({ storage, openAnother }) => {
        const initial = await storage.authority.authority();
        assert.equal(initial.mode, 'READY');
        assert.ok(initial.authorityId);
        await untilPast(Date.parse(initial.changedAt)); // so that the change is recorded at a later millisecond
        const fencing = await storage.authority.setAuthorityMode('FENCING');
        assert.equal(fencing.mode, 'FENCING');
        assert.equal(fencing.authorityId, initial.authorityId);
        assert.ok(Date.parse(fencing.changedAt) > Date.parse(initial.changedAt));
        const other = await openAnother();
        assert.deepEqual(await other.authority.authority(), fencing, 'a second opener neither recreates nor resets it');
        await storage.authority.probe();
        assert.ok(!((await storage.authority.authority()) instanceof AuthorityUnreadable));
      });
    });

    test('a removed authority record stays missing for every opener, until an operator sets a mode', async () => {
      await withStore(adapter, async ({ storage, openAnother, removeAuthorityRecord }) => {
        await storage.authority.authority();
        await removeAuthorityRecord();
        await assert.rejects(storage.authority.authority(), AuthorityUnreadable);
        const restarted = await openAnother(); // a process starting on the store meanwhile
        await assert.rejects(restarted.authority.authority(), AuthorityUnreadable, 'opening the store does not recreate it');
        const repaired = await restarted.authority.setAuthorityMode('MAINTENANCE');
        assert.equal(repaired.mode, 'MAINTENANCE');
        assert.deepEqual(await storage.authority.authority(), repaired);
      });
    });

    test('a lease is held by one owner until released or expired; a lost lease cannot be renewed', async () => {
      await withStore(adapter, async ({ storage }) => {
        const { authority } = storage;
        assert.equal(await authority.acquireLease('fence:c1', 'a', HELD_MS), true);
        assert.equal(await authority.acquireLease('fence:c1', 'b', HELD_MS), false);
        assert.equal(await authority.acquireLease('fence:c2', 'b', 10_000), true, 'leases are named');
        const holder = (await authority.leaseHolder('fence:c1'))!;
        assert.equal(holder.owner, 'a');
        assert.ok(holder.expiresAt > Date.now() - 60_000);
        // The holder renews by acquiring again, here for a short lease, which then expires.
        assert.equal(await authority.acquireLease('fence:c1', 'a', SHORT_MS), true, 'the holder renews by acquiring again');
        await until('the renewed lease to expire', async () => (await authority.leaseHolder('fence:c1')) === null);
        assert.equal(await authority.acquireLease('fence:c1', 'b', 10_000), true);
        assert.equal(await authority.renewLease('fence:c1', 'a', 10_000), false, 'lost');
        assert.equal(await authority.renewLease('fence:c1', 'b', 10_000), true);
        await authority.releaseLease('fence:c1', 'a');
        assert.equal((await authority.leaseHolder('fence:c1'))!.owner, 'b', 'only the holder releases');
        await authority.releaseLease('fence:c1', 'b');
        assert.equal(await authority.leaseHolder('fence:c1'), null);
      });
    });

    test('rate windows count a request in every bucket or in none, per Client, and free up as the window slides', async () => {
      await withStore(adapter, async ({ storage }) => {
        const { rateLimits } = storage;
        const windowMs = WINDOW_MS;
        const both = [
          { bucket: 'all', limit: 3 },
          { bucket: 'search', limit: 1 },
        ];
        const first = await rateLimits.takeSlots('c1', both, windowMs);
        assert.equal(first.allowed, true);
        assert.deepEqual(first.granted, [1, 1], 'without a batch policy one slot a bucket');
        const refused = await rateLimits.takeSlots('c1', both, windowMs);
        assert.equal(refused.allowed, false, 'the search bucket is full');
        assert.ok(refused.retryAfterMs > 0 && refused.retryAfterMs <= windowMs, `retry after ${refused.retryAfterMs} ms`);
        // The refused request was counted nowhere: 'all' still has two slots.
        assert.equal((await rateLimits.takeSlots('c1', [{ bucket: 'all', limit: 3 }], windowMs)).allowed, true);
        assert.equal((await rateLimits.takeSlots('c1', [{ bucket: 'all', limit: 3 }], windowMs)).allowed, true);
        assert.equal((await rateLimits.takeSlots('c1', [{ bucket: 'all', limit: 3 }], windowMs)).allowed, false);
        assert.equal((await rateLimits.takeSlots('c2', both, windowMs)).allowed, true, 'another Client has its own windows');
        await untilPast(first.stampedAt + windowMs);
        assert.equal((await rateLimits.takeSlots('c1', both, windowMs)).allowed, true, 'the window slid');
      });
    });

    test('a rate window counts a batch only while it has room for it, and takes back the slots returned', async () => {
      await withStore(adapter, async ({ storage, openAnother }) => {
        const { rateLimits } = storage;
        const policy = { lifetimeMs: 1_000, roomShare: 4, minRoom: 10 };
        // Room 40: a batch of 10 wanted fits (40 / 4); another bucket with room 20 gets 5.
        const batch = await rateLimits.takeSlots('c1', [{ bucket: 'all', limit: 40, wanted: 10 }, { bucket: 'search', limit: 20, wanted: 10 }], 60_000, policy);
        assert.equal(batch.allowed, true);
        assert.deepEqual(batch.granted, [10, 5]);
        // Room under minRoom, one wanted, or no policy: one slot.
        assert.deepEqual((await rateLimits.takeSlots('c1', [{ bucket: 'tight', limit: 9, wanted: 10 }], 60_000, policy)).granted, [1]);
        assert.deepEqual((await rateLimits.takeSlots('c1', [{ bucket: 'all', limit: 40, wanted: 1 }], 60_000, policy)).granted, [1]);
        assert.deepEqual((await rateLimits.takeSlots('c1', [{ bucket: 'all', limit: 40, wanted: 10 }], 60_000)).granted, [1]);
        // 12 counted in `all`; 9 of the batch go back, from another opener (another process's store handle).
        const other = await openAnother();
        await other.rateLimits.returnSlots('c1', 'all', 9, batch.stampedAt);
        await other.rateLimits.returnSlots('c1', 'all', 5, batch.stampedAt + 1);
        let admitted = 0;
        while ((await rateLimits.takeSlots('c1', [{ bucket: 'all', limit: 40 }], 60_000)).allowed) admitted++;
        assert.equal(admitted, 40 - 3, 'the 9 returned are free again; nothing at another time was taken back');
        assert.equal((await rateLimits.takeSlots('c1', [{ bucket: 'all', limit: 40, wanted: 10 }], 60_000, policy)).allowed, false, 'a full window refuses a batch too');
        // A window holding only a batch: its slots count as taken a lifetime after now, so they leave it later.
        assert.deepEqual((await rateLimits.takeSlots('c1', [{ bucket: 'solo', limit: 40, wanted: 40 }], 60_000, { lifetimeMs: 1_000, roomShare: 1, minRoom: 10 })).granted, [40]);
        const refused = await rateLimits.takeSlots('c1', [{ bucket: 'solo', limit: 40 }], 60_000);
        assert.equal(refused.allowed, false);
        assert.ok(refused.retryAfterMs > 60_000 && refused.retryAfterMs <= 61_000, `retry after ${refused.retryAfterMs} ms`);
      });
    });

    test('rate windows taken at once from two openers never admit more than the limit', async () => {
      await withStore(adapter, async ({ storage, openAnother }) => {
        const other = await openAnother();
        const decisions = await Promise.all(Array.from({ length: 20 }, (_, index) => (index % 2 ? storage : other).rateLimits.takeSlots('c1', [{ bucket: 'all', limit: 7 }], 60_000)));
        assert.equal(decisions.filter((decision) => decision.allowed).length, 7);
      });
    });

    test('rate windows are counted by reading alone, and hits decided without the store are counted at their ages', async () => {
      await withStore(adapter, async ({ storage, openAnother }) => {
        const other = await openAnother();
        const windowMs = WINDOW_MS;
        assert.equal(await storage.rateLimits.countSlots('c1', 'all', windowMs), 0);
        await storage.rateLimits.takeSlots('c1', [{ bucket: 'all', limit: 5 }], windowMs);
        // Two hits allowed while the store refused writes: one just now, one long enough ago to have left the window.
        await other.rateLimits.recordSlots('c1', 'all', [0, 2 * windowMs]);
        await other.rateLimits.recordSlots('c1', 'all', []);
        assert.equal(await storage.rateLimits.countSlots('c1', 'all', windowMs), 2, 'the recent hit counts, the old one has left the window');
        assert.equal(await storage.rateLimits.countSlots('c2', 'all', windowMs), 0, 'another Client has its own windows');
        // The recorded hits take room in the decisions that follow: 5 allowed in all.
        let admitted = 0;
        let lastStamp = 0;
        for (;;) {
          const decision = await storage.rateLimits.takeSlots('c1', [{ bucket: 'all', limit: 5 }], windowMs);
          if (!decision.allowed) break;
          admitted++;
          lastStamp = decision.stampedAt;
        }
        assert.equal(admitted, 3);
        await untilPast(lastStamp + windowMs);
        assert.equal(await other.rateLimits.countSlots('c1', 'all', windowMs), 0, 'they leave the window');
        assert.equal((await storage.rateLimits.takeSlots('c1', [{ bucket: 'all', limit: 5 }], windowMs)).allowed, true);
      });
    });

    test('a deployment secret is created once and read the same by every opener', async () => {
      await withStore(adapter, async ({ storage, openAnother }) => {
        const other = await openAnother();
        const [first, second] = await Promise.all([storage.secrets.deploymentSecret('audit'), other.secrets.deploymentSecret('audit')]);
        assert.match(first, /^[0-9a-f]{64}$/);
        assert.equal(second, first);
        assert.equal(await storage.secrets.deploymentSecret('audit'), first);
        assert.notEqual(await storage.secrets.deploymentSecret('another'), first);
      });
    });

    test('uploads are saved whole, read by any opener, deleted, and swept when no live job names them', async () => {
      await withStore(adapter, async ({ storage, openAnother }) => {
        const bytes = new Uint8Array(300_000).map((_, index) => (index * 7) % 256);
        await storage.uploads.save('up-1', bytes);
        await storage.uploads.save('up-2', new Uint8Array([1, 2, 3]));
        await storage.uploads.save('up-3', new Uint8Array([]));
        const other = await openAnother();
        assert.deepEqual(new Uint8Array((await other.uploads.read('up-1'))!), bytes, 'read back byte for byte by another opener');
        assert.equal((await storage.uploads.read('up-3'))!.length, 0);
        assert.equal(await storage.uploads.read('missing'), null);
        await storage.uploads.delete('up-2');
        assert.equal(await storage.uploads.read('up-2'), null);
        await storage.uploads.delete('up-2');
        // Just saved: a job may be on its way to naming it, so the default grace keeps it.
        assert.equal(await storage.uploads.sweep(new Set(['up-1'])), 0);
        assert.equal((await storage.uploads.read('up-3'))!.length, 0);
        assert.equal(await storage.uploads.sweep(new Set(['up-1']), 0), 1);
        assert.ok(await storage.uploads.read('up-1'));
        assert.equal(await storage.uploads.read('up-3'), null);
      });
    });

    test('the registry knows the Clients that wrote; probes and lane schemas answer', async () => {
      await withStore(adapter, async ({ storage }) => {
        const { generationInput } = await import('../helpers/storage-adapters.ts');
        await storage.client('alpha').generations.stageAndActivate(generationInput('d', ['x']));
        await storage.client('beta').generations.stage(generationInput('d', ['y']));
        assert.deepEqual(await storage.knownClientIds(), ['alpha', 'beta']);
        assert.equal(await storage.provisionedClients(), 2);
        await storage.probe();
        await storage.client('alpha').probe();
        const schemas = await storage.laneSchemas();
        assert.match(schemas.engineVersion, /^(sqlite|postgresql)-\d+(\.\d+)*$/, 'the engine and its version, as health reports them');
        assert.ok(schemas.schemas.some((line) => line.includes('chunks')), 'the chunks table is described');
        assert.deepEqual(await storage.client('alpha').laneSchemas(), schemas.schemas);
      });
    });
  });
}
