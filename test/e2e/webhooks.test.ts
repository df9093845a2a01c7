// Webhooks for job outcomes end to end (DESIGN.md "Webhooks"), on the suites' store: the real service, real
// receivers on random local ports (WEBHOOK_ALLOW_PRIVATE_NETWORKS=true lets it reach them), real corpus documents.
// Deliveries are signed, carry identities and states only, are retried after a non-2xx answer, keep a document's
// order, and survive a worker killed while a delivery is in flight; private addresses are refused without the setting.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { api, KEYS, removeDir, startTestServer, uploadFile, uploadText, waitForJob } from '../helpers/server.ts';
import { childPids, until } from '../helpers/processes.ts';
import { CORPUS } from '../helpers/corpus-expectations.ts';
import { signedWith, startReceiver } from '../helpers/webhook-receiver.ts';
import type { ReceivedDelivery } from '../helpers/webhook-receiver.ts';
import { childEnv } from '../helpers/child-env.ts';

/** A bank statement of the corpus: several chunks, more than CLIENT_MAX_CHUNKS allows below, so its upload fails. */
const STATEMENT = readFileSync(new URL('txt/mt940_ASNB_0708271685_09022020_164516.940.txt', CORPUS));
/** A short real text (one chunk). */
const NOTICE = readFileSync(new URL('txt/tika_multi-language.txt', CORPUS), 'utf8');
const SECRET = 'whsec-test-5f2b8c1d9e3a7046';
const BODY_FIELDS = ['delivery_id', 'document_id', 'event', 'job_id', 'occurred_at', 'operation', 'status', 'version_id'];
/** Values the deliveries must never carry: custom metadata and the document's own words. */
const METADATA_VALUE = 'Zainab binti Osman PRIVATE-7731';

const ALLOWED = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_BASE_MS: '100', API_PROCESSES: '1' };

async function register(url: string, key: string, body: unknown) {
  return api(url, '/webhooks', { key, body });
}

async function deliveryLog(url: string, key: string, webhookId: string) {
  const answer = await api(url, `/webhooks/${webhookId}/deliveries`, { key });
  assert.equal(answer.status, 200, answer.text);
  return answer.json.deliveries as Record<string, any>[];
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Runs `hds` (src/cli.ts) as a person would, to its exit. */
function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['src/cli.ts', ...args], { cwd: ROOT, env: childEnv() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

const answeredOk = (delivery: ReceivedDelivery) => delivery.answered !== null && delivery.answered >= 200 && delivery.answered < 300;

test('completed and failed jobs are delivered signed, with identities and states only; a webhook hears only its events; registration checks its body', async () => {
  const server = await startTestServer({ ...ALLOWED, CLIENT_MAX_CHUNKS: '3', WEBHOOK_TIMEOUT_MS: '60000' });
  const everything = await startReceiver();
  const failuresOnly = await startReceiver();
  try {
    // Refusals first: none of them registers anything.
    const refusals = [
      { body: { url: everything.url, events: ['job.completed'], secret: SECRET, extra: 1 }, loc: ['body', 'extra'] },
      { body: { url: everything.url, events: ['job.started'], secret: SECRET }, loc: ['body', 'events', '0'] },
      { body: { url: everything.url, events: [], secret: SECRET }, loc: ['body', 'events'] },
      { body: { url: everything.url, events: ['job.completed'], secret: 'short' }, loc: ['body', 'secret'] },
      { body: { url: 'ftp://127.0.0.1/hook', events: ['job.completed'], secret: SECRET }, loc: ['body', 'url'] },
      { body: { url: 'http://user:pw@127.0.0.1/hook', events: ['job.completed'], secret: SECRET }, loc: ['body', 'url'] },
      { body: { url: 'not a url', events: ['job.completed'], secret: SECRET }, loc: ['body', 'url'] },
    ];
    for (const { body, loc } of refusals) {
      const refused = await register(server.url, KEYS.alpha, body);
      assert.equal(refused.status, 422, `${JSON.stringify(body)}: ${refused.text}`);
      assert.equal(refused.json.error_code, 'validation_error');
      assert.ok(refused.json.details.some((detail: { loc: unknown[] }) => JSON.stringify(detail.loc) === JSON.stringify(loc)), refused.text);
    }
    assert.deepEqual((await api(server.url, '/webhooks', { key: KEYS.alpha })).json, { webhooks: [] });

    const all = await register(server.url, KEYS.alpha, { url: everything.url, events: ['job.completed', 'job.failed', 'job.partial_failed', 'job.superseded'], secret: SECRET });
    assert.equal(all.status, 201, all.text);
    assert.deepEqual(Object.keys(all.json).sort(), ['created_at', 'events', 'url', 'webhook_id']);
    const failed = await register(server.url, KEYS.alpha, { url: failuresOnly.url, events: ['job.failed'], secret: `${SECRET}-2` });
    assert.equal(failed.status, 201, failed.text);
    const listed = await api(server.url, '/webhooks', { key: KEYS.alpha });
    assert.deepEqual(listed.json.webhooks.map((webhook: { webhook_id: string }) => webhook.webhook_id), [all.json.webhook_id, failed.json.webhook_id]);
    assert.ok(!listed.text.includes(SECRET), 'no secret is ever answered');
    assert.deepEqual((await api(server.url, '/webhooks', { key: KEYS.beta })).json, { webhooks: [] }, "another Client's webhooks are not listed");

    const fits = await uploadText(server.url, KEYS.alpha, { document_id: 'notice', version_id: 'v1', text: NOTICE, metadata: { holder: METADATA_VALUE } });
    const completed = await waitForJob(server.url, KEYS.alpha, fits.json.job_id);
    assert.equal(completed.status, 'completed', JSON.stringify(completed));
    const tooBig = await uploadFile(server.url, KEYS.alpha, { document_id: 'statement', metadata: JSON.stringify({ holder: METADATA_VALUE }) }, { name: 'statement.940.txt', bytes: STATEMENT, type: 'text/plain' });
    assert.equal(tooBig.status, 202, JSON.stringify(tooBig.json));
    assert.equal((await waitForJob(server.url, KEYS.alpha, tooBig.json.job_id)).status, 'failed');

    const seen = await everything.waitFor('both outcomes', (received) => [fits.json.job_id, tooBig.json.job_id].every((jobId) => received.some((delivery) => delivery.json.job_id === jobId)));
    const byJob = (jobId: string) => seen.find((delivery) => delivery.json.job_id === jobId)!;
    assert.deepEqual(
      { ...byJob(fits.json.job_id).json, delivery_id: null, occurred_at: null },
      { event: 'job.completed', delivery_id: null, job_id: fits.json.job_id, operation: 'embed', status: 'completed', document_id: 'notice', version_id: 'v1', occurred_at: null },
    );
    // SPEC.md: an upload that names no version_id has its document_id as its version id.
    assert.deepEqual(
      { ...byJob(tooBig.json.job_id).json, delivery_id: null, occurred_at: null },
      { event: 'job.failed', delivery_id: null, job_id: tooBig.json.job_id, operation: 'embed', status: 'failed', document_id: 'statement', version_id: 'statement', occurred_at: null },
    );
    for (const delivery of seen) {
      assert.ok(signedWith(SECRET, delivery), `a valid signature: ${delivery.signature}`);
      assert.ok(!signedWith(`${SECRET}-2`, delivery), 'signed with its own webhook secret');
      assert.deepEqual(Object.keys(delivery.json).sort(), BODY_FIELDS);
      assert.ok(!delivery.raw.includes('PRIVATE-7731') && !delivery.raw.includes('Zainab'), 'no metadata value');
      for (const word of ['ASNB', NOTICE.trim().split(/\s+/).slice(0, 4).join(' ')]) assert.ok(!delivery.raw.includes(word), `no document text (${word})`);
      assert.equal(delivery.json.occurred_at, new Date(String(delivery.json.occurred_at)).toISOString());
    }

    const onlyFailed = await failuresOnly.waitFor('the failed outcome', (received) => received.some((delivery) => delivery.json.job_id === tooBig.json.job_id));
    assert.ok(signedWith(`${SECRET}-2`, onlyFailed[0]));
    // Its log holds the failed outcome alone: the completed one, recorded first, was never written for it.
    const failedLog = await until('the failed-only log to settle', async () => {
      const log = await deliveryLog(server.url, KEYS.alpha, failed.json.webhook_id);
      return log.every((delivery) => delivery.status === 'delivered') ? log : null;
    });
    assert.deepEqual(failedLog.map((delivery) => delivery.job_id), [tooBig.json.job_id]);
    assert.deepEqual(failuresOnly.received.map((delivery) => delivery.json.event), ['job.failed']);

    const log = await until('both deliveries to be logged as delivered', async () => {
      const entries = await deliveryLog(server.url, KEYS.alpha, all.json.webhook_id);
      return entries.length === 2 && entries.every((delivery) => delivery.status === 'delivered') ? entries : null;
    });
    assert.deepEqual(log.map((delivery) => delivery.job_id), [tooBig.json.job_id, fits.json.job_id], 'newest first');
    for (const entry of log) {
      assert.equal(entry.last_status_code, 200);
      assert.equal(entry.next_attempt_at, null);
      assert.ok(entry.attempts >= 1 && entry.delivered_at !== null);
      assert.ok(seen.some((delivery) => delivery.json.delivery_id === entry.delivery_id), 'the log names the delivery_id the receiver saw');
    }

    // Removal: another Client's id is the same 404 as none; after it, its log is gone too.
    assert.equal((await api(server.url, `/webhooks/${failed.json.webhook_id}`, { method: 'DELETE', key: KEYS.beta })).status, 404);
    assert.equal((await api(server.url, `/webhooks/${failed.json.webhook_id}/deliveries`, { key: KEYS.beta })).status, 404);
    const removed = await api(server.url, `/webhooks/${failed.json.webhook_id}`, { method: 'DELETE', key: KEYS.alpha });
    assert.deepEqual([removed.status, removed.json], [200, { webhook_id: failed.json.webhook_id, deleted: true }]);
    assert.equal((await api(server.url, `/webhooks/${failed.json.webhook_id}/deliveries`, { key: KEYS.alpha })).status, 404);
    assert.deepEqual((await api(server.url, '/webhooks', { key: KEYS.alpha })).json.webhooks.map((webhook: { webhook_id: string }) => webhook.webhook_id), [all.json.webhook_id]);
  } finally {
    await server.close();
    await everything.close();
    await failuresOnly.close();
    removeDir(server.dataDir);
  }
});

test('a receiver that answers 500 is retried until it answers 200, and a later outcome of the same document waits for the earlier', async () => {
  const server = await startTestServer({ ...ALLOWED, WEBHOOK_TIMEOUT_MS: '60000' });
  let releaseFirst!: () => void;
  const firstReleased = new Promise<void>((resolve) => (releaseFirst = resolve));
  let firstJob: string | null = null;
  // The first delivery is held open (so that the document's next outcome is recorded meanwhile), then answered 500.
  const receiver = await startReceiver(async (delivery) => {
    if (firstJob === null) {
      firstJob = String(delivery.json.job_id);
      await firstReleased;
      return 500;
    }
    return 200;
  });
  try {
    const hook = await register(server.url, KEYS.beta, { url: receiver.url, events: ['job.completed', 'job.failed'], secret: SECRET });
    assert.equal(hook.status, 201, hook.text);
    const upload = await uploadText(server.url, KEYS.beta, { document_id: 'ordered', text: NOTICE });
    await receiver.waitFor('the first delivery', (received) => received.length === 1);
    assert.equal(firstJob, upload.json.job_id);
    const update = await api(server.url, '/update', { method: 'PATCH', key: KEYS.beta, body: { document_id: 'ordered', metadata: { holder: METADATA_VALUE } } });
    assert.equal(update.status, 202, update.text);
    assert.equal((await waitForJob(server.url, KEYS.beta, update.json.job_id)).status, 'completed');
    // The update's outcome is recorded while the upload's delivery is still in flight: it must wait for it.
    releaseFirst();

    const received = await receiver.waitFor('the update delivered', (all) => all.some((delivery) => delivery.json.job_id === update.json.job_id && answeredOk(delivery)));
    const uploads = received.filter((delivery) => delivery.json.job_id === upload.json.job_id);
    assert.ok(uploads.length >= 2, 'the 500 was retried');
    assert.equal(uploads[0].answered, 500);
    const firstOk = received.findIndex((delivery) => delivery.json.job_id === upload.json.job_id && answeredOk(delivery));
    const firstUpdate = received.findIndex((delivery) => delivery.json.job_id === update.json.job_id);
    assert.ok(firstOk !== -1 && firstOk < firstUpdate, `the upload's outcome reached the receiver before the update's: ${JSON.stringify(received.map((delivery) => [delivery.json.operation, delivery.answered]))}`);
    // A retry sends the same delivery: the same id, the same bytes, the same signature.
    assert.equal(new Set(uploads.map((delivery) => delivery.raw)).size, 1);
    assert.ok(uploads.every((delivery) => signedWith(SECRET, delivery)));
    assert.equal(received[firstUpdate].json.operation, 'metadata_update');
    assert.ok(!received[firstUpdate].raw.includes('PRIVATE-7731'), 'no metadata value of the update');

    const log = await until('the log to show both delivered', async () => {
      const entries = await deliveryLog(server.url, KEYS.beta, hook.json.webhook_id);
      return entries.length === 2 && entries.every((entry) => entry.status === 'delivered') ? entries : null;
    });
    const uploadEntry = log.find((entry) => entry.job_id === upload.json.job_id)!;
    assert.equal(uploadEntry.attempts, uploads.length);
    assert.equal(uploadEntry.last_status_code, 200);
    assert.equal(uploadEntry.event, 'job.completed');
  } finally {
    releaseFirst();
    await server.close();
    await receiver.close();
    removeDir(server.dataDir);
  }
});

test('a worker killed while a delivery is in flight: after its restart every outcome still arrives, signed', async () => {
  // The timeout (and with it the lease, timeout + margin) outlasts the moment between a delivery's arrival and the
  // kill by far; the new worker takes the delivery over once that lease has expired.
  const server = await startTestServer({ ...ALLOWED, WEBHOOK_TIMEOUT_MS: '15000' });
  let killed = false;
  // Before the kill no delivery is answered: each is held open until its sender goes away. After it, 200.
  const receiver = await startReceiver((_delivery, _index, request) => {
    if (killed) return 200;
    return new Promise<null>((resolve) => request.socket.once('close', () => resolve(null)));
  });
  try {
    const hook = await register(server.url, KEYS.alpha, { url: receiver.url, events: ['job.completed'], secret: SECRET });
    assert.equal(hook.status, 201, hook.text);
    const jobs: string[] = [];
    for (const documentId of ['crash-a', 'crash-b', 'crash-c']) {
      const accepted = await uploadText(server.url, KEYS.alpha, { document_id: documentId, text: `${NOTICE}\n${documentId}` });
      jobs.push(accepted.json.job_id);
    }
    await receiver.waitFor('a delivery in flight', (received) => received.length >= 1);
    const [worker] = childPids(server.server, 'worker');
    killed = true;
    process.kill(worker, 'SIGKILL');
    await until('the worker to be replaced', () => {
      const workers = childPids(server.server, 'worker');
      return workers.length === 1 && !workers.includes(worker);
    });
    for (const jobId of jobs) assert.equal((await waitForJob(server.url, KEYS.alpha, jobId, { timeoutMs: 90_000 })).status, 'completed');

    const received = await receiver.waitFor('every outcome answered 200', (all) => jobs.every((jobId) => all.some((delivery) => delivery.json.job_id === jobId && answeredOk(delivery))), 120_000);
    const held = received[0];
    assert.equal(held.answered, null, 'the first delivery was never answered before the kill');
    assert.ok(received.some((delivery) => delivery.json.delivery_id === held.json.delivery_id && answeredOk(delivery)), 'the delivery in flight was sent again');
    for (const delivery of received) assert.ok(signedWith(SECRET, delivery), 'every delivery is signed');
    const log = await until('the log to show every outcome delivered', async () => {
      const entries = await deliveryLog(server.url, KEYS.alpha, hook.json.webhook_id);
      return entries.length === jobs.length && entries.every((entry) => entry.status === 'delivered') ? entries : null;
    }, 60_000);
    assert.ok(log.find((entry) => entry.delivery_id === held.json.delivery_id)!.attempts >= 2, 'the cut-off attempt counted');
  } finally {
    await server.close();
    await receiver.close();
    removeDir(server.dataDir);
  }
});

test('without WEBHOOK_ALLOW_PRIVATE_NETWORKS, private, loopback, link-local and other non-public addresses are refused with 422; hds webhooks adds, lists, shows deliveries and removes', async () => {
  const server = await startTestServer({ API_PROCESSES: '1' });
  try {
    const refused = [
      'http://127.0.0.1:8080/hook',
      'http://localhost:8080/hook',
      'http://[::1]/hook',
      'http://10.1.2.3/hook',
      'http://172.16.0.5/hook',
      'http://192.168.1.20/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://[fe80::1]/hook',
      'http://[fd12:3456::1]/hook',
      'http://[::ffff:127.0.0.1]/hook',
      'http://0.0.0.0/hook',
      'http://[::]/hook',
      'http://224.0.0.1/hook',
      'http://100.64.0.1/hook',
    ];
    for (const url of refused) {
      const answer = await register(server.url, KEYS.alpha, { url, events: ['job.completed'], secret: SECRET });
      assert.equal(answer.status, 422, `${url}: ${answer.text}`);
      assert.equal(answer.json.error_code, 'validation_error');
      assert.match(answer.json.detail, /WEBHOOK_ALLOW_PRIVATE_NETWORKS/, url);
      assert.deepEqual(answer.json.details[0].loc, ['body', 'url']);
    }
    assert.deepEqual((await api(server.url, '/webhooks', { key: KEYS.alpha })).json, { webhooks: [] }, 'nothing was registered');
    // A public address literal needs no lookup and is accepted: the check refuses ranges, not every address.
    const accepted = await register(server.url, KEYS.alpha, { url: 'https://1.1.1.1/hook', events: ['job.completed'], secret: SECRET });
    assert.equal(accepted.status, 201, accepted.text);
    assert.equal((await api(server.url, `/webhooks/${accepted.json.webhook_id}`, { method: 'DELETE', key: KEYS.alpha })).status, 200);

    // The same through hds webhooks: a refusal says why (exit 1), a secret it makes is shown once, and --json.
    const base = ['--url', server.url, '--key', KEYS.beta];
    const refusedByCli = await cli([...base, 'webhooks', 'add', 'http://127.0.0.1:9/hook']);
    assert.equal(refusedByCli.code, 1);
    assert.match(refusedByCli.stderr, /WEBHOOK_ALLOW_PRIVATE_NETWORKS/);
    const added = await cli([...base, 'webhooks', 'add', 'https://1.1.1.1/hook', '--event', 'job.failed', '--event', 'job.superseded', '--json']);
    assert.equal(added.code, 0, added.stderr);
    const webhook = JSON.parse(added.stdout);
    assert.deepEqual(webhook.events, ['job.failed', 'job.superseded']);
    assert.match(webhook.secret, /^[0-9a-f]{64}$/, 'a made secret is shown once');
    const human = await cli([...base, 'webhooks', 'add', 'https://1.1.1.1/other', '--secret', SECRET]);
    assert.equal(human.code, 0, human.stderr);
    assert.doesNotMatch(human.stdout, /secret/, 'a secret given is not printed');
    const listed = await cli([...base, 'webhooks', 'list']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, new RegExp(`^${webhook.webhook_id}  https://1\\.1\\.1\\.1/hook  job\\.failed,job\\.superseded$`, 'm'));
    assert.ok(!listed.stdout.includes(webhook.secret) && !listed.stdout.includes(SECRET));
    const deliveries = await cli([...base, 'webhooks', 'deliveries', webhook.webhook_id]);
    assert.deepEqual([deliveries.code, deliveries.stdout], [0, 'no deliveries\n']);
    assert.deepEqual(JSON.parse((await cli([...base, 'webhooks', 'deliveries', webhook.webhook_id, '--json'])).stdout), { webhook_id: webhook.webhook_id, deliveries: [] });
    const removed = await cli([...base, 'webhooks', 'remove', webhook.webhook_id]);
    assert.deepEqual([removed.code, removed.stdout], [0, `removed ${webhook.webhook_id}\n`]);
    assert.equal((await cli([...base, 'webhooks', 'remove', webhook.webhook_id])).code, 1, 'a second removal is a 404');
    const remaining = JSON.parse((await cli([...base, 'webhooks', 'list', '--json'])).stdout);
    assert.deepEqual(remaining.webhooks.map((entry: { url: string }) => entry.url), ['https://1.1.1.1/other']);
  } finally {
    await server.close();
    removeDir(server.dataDir);
  }
});
