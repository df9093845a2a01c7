// The typed client (clients/typescript) against the real service: its generated files are what this checkout's
// service declares, and its helpers upload a text and a corpus file, wait for their jobs, search with a filter,
// walk the documents page by page, update, delete and restore, name a refusal by its envelope and its details, repeat
// a read refused with Retry-After until it is answered, and wait for a job within the rate-limit budget: growing
// waits between polls, and a poll the rate limit refuses waited out as the service asks (or thrown when the wait is
// over the caller's cap, or ended by the caller's signal).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { useTestServer, startTestServer, api, KEYS, removeDir } from '../helpers/server.ts';
import { until } from '../helpers/processes.ts';
import { createSearchClient, SearchServiceError } from '../../clients/typescript/src/index.ts';
import type { WaitNotice } from '../../clients/typescript/src/index.ts';
import { DOCUMENT_PATH, SCHEMA_PATH, documentText, renderSchema } from '../../clients/typescript/scripts/generate.ts';

const server = useTestServer();
const client = () => createSearchClient({ baseUrl: server.url, apiKey: KEYS.alpha });
const DOCX = new URL('../../../shared/corpus/docx/mammoth_tables.docx', import.meta.url);

test('the committed OpenAPI document is the one the service serves, and schema.ts is rendered from it', async () => {
  const served = await api(server.url, '/openapi.json', { key: KEYS.alpha });
  assert.equal(served.status, 200);
  const committed = readFileSync(DOCUMENT_PATH, 'utf8');
  assert.equal(committed, documentText(served.json), 'clients/typescript/openapi.json is stale: run npm run client:generate');
  assert.equal(readFileSync(SCHEMA_PATH, 'utf8'), await renderSchema(JSON.parse(committed)), 'clients/typescript/src/schema.ts is stale: run npm run client:generate');
});

test('with an operator key the client creates a Client, issues it a scoped key, lists, limits and revokes', async () => {
  const operator = createSearchClient({ baseUrl: server.url, apiKey: KEYS.operator });
  assert.equal((await operator.createClient('client-typed')).client_id, 'client-typed');
  await assert.rejects(operator.createClient('client-typed'), (error: unknown) => error instanceof SearchServiceError && error.status === 409 && error.code === 'client_exists');
  const issued = await operator.issueKey('client-typed', { scopes: ['read'], label: 'typed' });
  assert.deepEqual(issued.scopes, ['read']);
  const reader = createSearchClient({ baseUrl: server.url, apiKey: issued.key });
  // The service's api processes learn of a key within 1 s: the one answering may not have read it yet.
  const page = await until('the issued key to be known to the api process answering', () => reader.documentPage().catch(() => null));
  assert.equal(page.total, 0);
  const refusal = await until('a search with the read-only key to be refused for its scope', () => reader.search({ query: 'anything' }).then(() => null, (error: unknown) => error instanceof SearchServiceError && error.status === 403 && error));
  assert.equal(refusal.code, 'forbidden');
  assert.deepEqual((await operator.listKeys('client-typed')).map((key) => [key.key_id, key.label]), [[issued.key_id, 'typed']]);
  const limited = await operator.changeClient('client-typed', { search_rate_limit_per_minute: 7 });
  assert.equal(limited.search_rate_limit_per_minute, 7);
  assert.ok((await operator.listClients()).some((row) => row.client_id === 'client-typed' && row.search_rate_limit_per_minute === 7));
  await operator.revokeKey(issued.key_id);
  await until('the revoked key to answer 401', () => reader.documentPage().then(() => false, (error: unknown) => error instanceof SearchServiceError && error.status === 401));
});

test('upload a text and a file, wait for both, search with a filter, read pages, update, delete and restore', async () => {
  const search = client();
  const text = await search.uploadText({ documentId: 'client-memo', text: 'Minutes of the quarterly treasury meeting in Kuching about foreign exchange hedging.', metadata: { branch: 'Kuching' } });
  assert.equal(text.status, 'pending');
  assert.equal(text.document_id, 'client-memo');
  const file = await search.uploadFile({ documentId: 'client-tables', file: new Uint8Array(readFileSync(DOCX)), filename: 'tables.docx', metadata: { branch: 'Miri' } });
  const polled: string[] = [];
  const memoJob = await search.waitForJob(text.job_id, { intervalMs: 50, onPoll: (job) => polled.push(job.status), until: (job) => job.status === 'completed' && job.search_ready === true });
  assert.equal(memoJob.status, 'completed');
  assert.ok(polled.length >= 1);
  assert.equal((await search.waitForJob(file.job_id, { intervalMs: 50 })).status, 'completed');

  const found = await search.search({ query: 'treasury hedging', filters: { 'metadata.custom.branch': 'Kuching' }, highlight: true });
  assert.deepEqual(found.results.map((hit) => hit.document_version.document_id), ['client-memo']);
  assert.equal(found.results[0].rank, 1);
  const none = await search.search({ query: 'treasury hedging', filters: { 'metadata.custom.branch': 'Miri' } });
  assert.ok(none.results.every((hit) => hit.document_version.document_id !== 'client-memo'));

  const extras = [];
  for (let i = 0; i < 3; i++) extras.push(await search.uploadText({ documentId: `client-extra-${i}`, text: `Extra note number ${i} about petty cash.` }));
  for (const extra of extras) assert.equal((await search.waitForJob(extra.job_id, { intervalMs: 50 })).status, 'completed');
  const seen: string[] = [];
  for await (const summary of search.documents({ pageSize: 2 })) seen.push(summary.document_id);
  assert.deepEqual(seen.toSorted(), ['client-extra-0', 'client-extra-1', 'client-extra-2', 'client-memo', 'client-tables'], 'three pages of two, every document once');

  const update = await search.update({ document_id: 'client-memo', metadata: { branch: 'Sibu' } });
  assert.equal(update.status, 'pending');
  assert.equal((await search.waitForJob(update.job_id, { intervalMs: 50 })).status, 'completed');
  const moved = await search.search({ query: 'treasury hedging', filters: { 'metadata.custom.branch': 'Sibu' } });
  assert.deepEqual(moved.results.map((hit) => hit.document_version.document_id), ['client-memo']);

  const deleted = await search.delete('client-memo');
  assert.equal(deleted.status, 'soft_deleted');
  assert.ok((await search.search({ query: 'treasury hedging' })).results.every((hit) => hit.document_version.document_id !== 'client-memo'));
  const listed: string[] = [];
  for await (const summary of search.documents({ includeDeleted: false })) listed.push(summary.document_id);
  assert.ok(!listed.includes('client-memo'));
  const restored = await search.restore('client-memo');
  assert.equal(restored.status, 'restored');
  const back = await search.search({ query: 'treasury hedging' });
  assert.equal(back.results[0]?.document_version.document_id, 'client-memo');
  assert.match((await search.text('client-memo')).chunks?.[0]?.text ?? '', /treasury meeting/);
});

test('a refusal is thrown as its envelope: a wrong key, an unknown job', async () => {
  const stranger = createSearchClient({ baseUrl: server.url, apiKey: 'not-a-key' });
  await assert.rejects(stranger.search({ query: 'anything' }), (error: unknown) => error instanceof SearchServiceError && error.status === 401 && error.code === 'auth_failed' && error.requestId !== null);
  await assert.rejects(client().status('no-such-job'), (error: unknown) => error instanceof SearchServiceError && error.status === 404 && !error.retryable);
});

test('request reaches any route of the document by its path, with path and query parameters', async () => {
  const page = await client().request<{ documents: unknown[]; has_more: boolean }>('GET', '/documents', { query: { limit: 1, offset: 0 } });
  assert.equal(page.documents.length, 1);
  assert.equal(page.has_more, true);
  await assert.rejects(client().request('GET', '/status/{job_id}', { path: { job_id: 'no such job' } }), (error: unknown) => error instanceof SearchServiceError && error.status === 404);
  await assert.rejects(client().request('GET', '/status/{job_id}'), /needs the path parameter job_id/);
});

test("an operator's client exports a Client as NDJSON and imports it into another Client of the deployment, once", async () => {
  const operator = createSearchClient({ baseUrl: server.url, apiKey: KEYS.operator });
  const accepted = await client().uploadText({ documentId: 'moved-memo', versionId: 'v1', text: 'Treasury memo on ringgit hedging for the Johor Bahru desk.', metadata: { desk: 'treasury' } });
  await client().waitForJob(accepted.job_id);
  const exported = await operator.exportClient('client-alpha');
  const lines = exported.trimEnd().split('\n').map((line) => JSON.parse(line));
  assert.equal(lines[0].format, 'hds-export/1');
  assert.equal(lines[0].client_id, 'client-alpha');
  const memo = lines.find((line) => line.document_id === 'moved-memo');
  assert.deepEqual(memo.custom_metadata, { desk: 'treasury' });
  // Only that version, into client-beta: its job is queued for beta and serves the same chunks there.
  const imported = await operator.importClient('client-beta', `${JSON.stringify(lines[0])}\n${JSON.stringify(memo)}\n`);
  assert.equal(imported.client_id, 'client-beta');
  assert.deepEqual(imported.jobs.map((job) => [job.document_id, job.version_id, job.operation, job.status]), [['moved-memo', 'v1', 'embed', 'pending']]);
  const beta = createSearchClient({ baseUrl: server.url, apiKey: KEYS.beta });
  assert.equal((await beta.waitForJob(imported.jobs[0].job_id)).status, 'completed');
  const [there, here] = [await beta.text('moved-memo'), await client().text('moved-memo')];
  assert.deepEqual((there.chunks ?? []).map((chunk) => chunk.text), (here.chunks ?? []).map((chunk) => chunk.text));
  assert.equal(there.created_at, here.created_at, 'the version keeps its created_at');
  const again = await operator.importClient('client-beta', `${JSON.stringify(lines[0])}\n${JSON.stringify(memo)}\n`);
  assert.deepEqual([again.jobs, again.skipped], [[], 1]);
  await assert.rejects(operator.importClient('client-beta', '{"format":"hds-export/0"}\n'), (error: unknown) => error instanceof SearchServiceError && error.status === 422 && /line 1/.test(error.message));
});

test("a validation failure's message says which field and why, from the envelope's details", async () => {
  await assert.rejects(client().search({ query: 'hedging', limit: 1000 }), (error: unknown) => {
    assert.ok(error instanceof SearchServiceError);
    assert.equal(error.status, 422);
    assert.equal(error.detail, 'Request validation failed');
    const [entry] = error.details as { loc: string[]; msg: string }[];
    assert.deepEqual(entry.loc, ['body', 'limit']);
    assert.equal(error.message, `422 validation_error: Request validation failed (limit: ${entry.msg})`);
    return true;
  });
});

test('waitForJob waits longer before each poll, doubling from intervalMs up to maxIntervalMs', async () => {
  const polledAt: number[] = [];
  const watching: typeof fetch = async (input, init) => {
    if ((input instanceof Request ? input.url : String(input)).includes('/status/')) polledAt.push(performance.now());
    return fetch(input, init);
  };
  const search = createSearchClient({ baseUrl: server.url, apiKey: KEYS.alpha, fetch: watching });
  const accepted = await search.uploadText({ documentId: 'client-backoff', text: 'A note on petty cash reconciliation in Bintulu.' });
  let polls = 0;
  const job = await search.waitForJob(accepted.job_id, { intervalMs: 100, maxIntervalMs: 400, onPoll: () => polls++, until: () => polls === 5 });
  assert.equal(job.job_id, accepted.job_id);
  assert.equal(polledAt.length, 5);
  const gaps = polledAt.slice(1).map((at, i) => at - polledAt[i]);
  // Lower bounds only: a busy machine makes the gaps longer, never shorter than the waits.
  for (const [i, least] of [100, 200, 400, 400].entries()) assert.ok(gaps[i] >= least - 1, `gap ${i + 1} is ${gaps[i].toFixed(0)} ms, at least ${least} ms: ${gaps.map((gap) => gap.toFixed(0)).join(', ')}`);
});

// Three requests a minute: the upload and two polls spend the budget, so the next request is refused with the time
// until the first of them leaves the window (up to a minute: each of these waits that long once, for the service).
// The two run side by side, each on a service of its own.
const SMALL_LIMIT = { RATE_LIMIT_PER_MINUTE: '3', SEARCH_RATE_LIMIT_PER_MINUTE: '3' };

async function withLimitedServer(body: (url: string) => Promise<void>): Promise<void> {
  const limited = await startTestServer(SMALL_LIMIT);
  try {
    await body(limited.url);
  } finally {
    await limited.close();
    removeDir(limited.dataDir);
  }
}

test('at a rate limit of 3 requests a minute', { concurrency: true }, async (t) => {
  await Promise.all([
    t.test('a poll refused with 429 is waited out as the service asks, unless over the cap or aborted', () =>
      withLimitedServer(async (url) => {
        const notices: WaitNotice[] = [];
        const search = createSearchClient({ baseUrl: url, apiKey: KEYS.alpha, onWait: (notice) => notices.push(notice) });
        const accepted = await search.uploadText({ documentId: 'client-limited', text: 'Board minutes on the Sandakan branch lease.' });
        await search.status(accepted.job_id);
        await search.status(accepted.job_id);

        const impatient = createSearchClient({ baseUrl: url, apiKey: KEYS.alpha, maxRetryAfterSeconds: 1 });
        await assert.rejects(impatient.waitForJob(accepted.job_id), (error: unknown) => error instanceof SearchServiceError && error.status === 429 && error.retryAfterSeconds! > 1);

        const stop = new AbortController();
        const stopped = new Error('the caller stopped waiting');
        await assert.rejects(search.waitForJob(accepted.job_id, { signal: stop.signal, onWait: () => stop.abort(stopped) }), (error: unknown) => error === stopped);
        assert.equal(notices.length, 1, 'the client told of the wait before it was aborted');

        const waits: WaitNotice[] = [];
        const job = await search.waitForJob(accepted.job_id, { onWait: (notice) => waits.push(notice) });
        assert.equal(job.status, 'completed');
        assert.equal(waits.length, 1);
        const [wait] = waits;
        assert.equal(wait.reason, 'rate_limited');
        assert.equal(wait.error?.status, 429);
        assert.equal(wait.path, '/status/{job_id}');
        assert.equal(wait.attempt, 1);
        assert.ok(wait.seconds >= 1 && wait.seconds <= 60, `Retry-After ${wait.seconds}`);
        assert.equal(wait.seconds, wait.error?.retryAfterSeconds);
        assert.equal(notices.length, 2, "the client's own onWait heard of both waits");
      }),
    ),
    t.test('a client told the budget (requestsPerMinute) waits for its own slot and is never refused', () =>
      withLimitedServer(async (url) => {
        const statuses: number[] = [];
        const watching: typeof fetch = async (input, init) => {
          const response = await fetch(input, init);
          statuses.push(response.status);
          return response;
        };
        const notices: WaitNotice[] = [];
        const search = createSearchClient({ baseUrl: url, apiKey: KEYS.alpha, requestsPerMinute: 3, fetch: watching, onWait: (notice) => notices.push(notice) });
        const accepted = await search.uploadText({ documentId: 'client-paced', text: 'Board minutes on the Tawau branch lease.' });
        await search.status(accepted.job_id);
        await search.status(accepted.job_id);
        const job = await search.waitForJob(accepted.job_id);
        assert.equal(job.status, 'completed');
        assert.deepEqual(statuses, [202, 200, 200, 200], 'four requests, none refused');
        assert.equal(notices.length, 1);
        assert.equal(notices[0].reason, 'budget');
        assert.equal(notices[0].error, null);
        assert.equal(notices[0].path, '/status/{job_id}');
        assert.ok(notices[0].seconds > 0 && notices[0].seconds <= 60, `waits ${notices[0].seconds} s`);
      }),
    ),
  ]);
});

test('a read refused with 503 and Retry-After is repeated after the wait the service asked for', async () => {
  const operator = (mode: string) => api(server.url, '/admin/authority/mode', { key: KEYS.operator, body: { mode } });
  assert.equal((await operator('MAINTENANCE')).status, 200);
  const refusals: { status: number; retryAfter: string | null }[] = [];
  let sawRefusal!: () => void;
  const refused = new Promise<void>((resolve) => (sawRefusal = resolve));
  const watching: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (response.status === 503) {
      refusals.push({ status: response.status, retryAfter: response.headers.get('retry-after') });
      sawRefusal();
    }
    return response;
  };
  const patient = createSearchClient({ baseUrl: server.url, apiKey: KEYS.alpha, fetch: watching });
  const answer = patient.search({ query: 'treasury' });
  try {
    await refused;
  } finally {
    assert.equal((await operator('READY')).status, 200);
  }
  const result = await answer;
  assert.ok(Array.isArray(result.results));
  assert.ok(refusals.length >= 1);
  assert.ok(Number(refusals[0].retryAfter) >= 1, 'the refusal carried Retry-After');
});
