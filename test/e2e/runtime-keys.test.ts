// Clients and keys at runtime (DESIGN.md "Clients and keys at runtime"), end to end on the suites' store: two
// services on one DATA_DIR (and one database on PostgreSQL), so that what the operator does through the first is
// checked on the api process of the second, which learns it only from the store. Every wait for the second to
// agree is a bounded poll for the event, never a fixed sleep. Then scopes, and a key confined by a filter
// attacked the way a caller would try to see past it.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { api, KEYS, removeDir, startTestServer, tempDataDir, uploadText, waitForJob } from '../helpers/server.ts';
import type { TestServer } from '../helpers/server.ts';
import { until } from '../helpers/processes.ts';

/** Generous: the second service reads the rows every 250 ms, but the machine may be busy. */
const PROPAGATION_TIMEOUT_MS = 20_000;
/** How far ahead the expiring key expires: room for the second service to be seen accepting it first. */
const EXPIRY_AHEAD_MS = 15_000;

let first: TestServer;
let second: TestServer;
const jobs: Record<string, string> = {};

/** client-alpha's documents: two of team legal, two of team finance; one of each is soft-deleted. All say "quarterly". */
const DOCUMENTS = [
  { id: 'legal-1', team: 'legal', text: 'The quarterly indemnity review of the office lease.', deleted: false },
  { id: 'legal-2', team: 'legal', text: 'A quarterly note on the archived indemnity memo.', deleted: true },
  { id: 'fin-1', team: 'finance', text: 'The quarterly budget forecast for the finance department.', deleted: false },
  { id: 'fin-2', team: 'finance', text: 'A quarterly finance ledger that was withdrawn.', deleted: true },
];

before(async () => {
  const dataDir = tempDataDir();
  first = await startTestServer({ API_PROCESSES: '1', WORKER_PROCESSES: '1' }, dataDir);
  // The second service has no worker: it only answers, from the store the first writes to.
  second = await startTestServer({ API_PROCESSES: '1', WORKER_PROCESSES: '0' }, dataDir);
  for (const document of DOCUMENTS) {
    const accepted = await uploadText(first.url, KEYS.alpha, { document_id: document.id, text: document.text, metadata: { team: document.team } });
    assert.equal(accepted.status, 202, accepted.text);
    jobs[document.id] = accepted.json.job_id;
    assert.equal((await waitForJob(first.url, KEYS.alpha, accepted.json.job_id)).status, 'completed');
    if (document.deleted) assert.equal((await api(first.url, `/document/${document.id}`, { method: 'DELETE', key: KEYS.alpha })).status, 200);
  }
});

after(async () => {
  await second?.close();
  await first?.close();
  if (first) removeDir(first.dataDir);
});

const admin = (server: TestServer, path: string, options: { method?: string; body?: unknown } = {}) => api(server.url, path, { ...options, key: KEYS.operator });

async function issue(clientId: string, body: Record<string, unknown> = {}) {
  const issued = await admin(first, `/admin/clients/${clientId}/keys`, { body });
  assert.equal(issued.status, 201, issued.text);
  return issued.json as { key_id: string; key: string; scopes: string[]; filter: unknown; expires_at: string | null };
}

/** Polls `server` until the key's GET /documents answers `status`. */
function untilStatus(server: TestServer, key: string, status: number, what: string) {
  return until(what, async () => (await api(server.url, '/documents', { key })).status === status, PROPAGATION_TIMEOUT_MS);
}

const ids = (answer: any): string[] => (answer.json.results ?? answer.json.documents).map((row: any) => row.document_version?.document_id ?? row.document_id).sort();

test('a Client is created once, issued a key that works on the other api process, listed without its secret, and revoked there too', async () => {
  const created = await admin(first, '/admin/clients', { body: { client_id: 'client-gamma' } });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.json.client_id, 'client-gamma');
  const again = await admin(second, '/admin/clients', { body: { client_id: 'client-gamma' } });
  assert.equal(again.status, 409);
  assert.equal(again.json.error_code, 'client_exists');
  // A Client named in API_KEY_CLIENTS exists without being created.
  assert.equal((await admin(first, '/admin/clients', { body: { client_id: 'client-alpha' } })).json.error_code, 'client_exists');
  assert.equal((await admin(first, '/admin/clients', { body: { client_id: ' ' } })).status, 422);
  assert.equal((await admin(first, '/admin/clients', { body: { client_id: 'x', extra: 1 } })).status, 422);
  // A Client's key never reaches the operator routes.
  assert.equal((await api(first.url, '/admin/clients', { key: KEYS.alpha })).status, 401);

  const key = await issue('client-gamma', { label: 'ci' });
  assert.match(key.key, /^hds_[0-9a-f]{24}_/);
  assert.deepEqual(key.scopes, ['search', 'read', 'write']);
  await untilStatus(second, key.key, 200, 'the issued key to work on the second service');
  const upload = await uploadText(second.url, key.key, { document_id: 'gamma-1', text: 'A quarterly gamma note.' });
  assert.equal(upload.status, 202, 'a key with write uploads');
  assert.equal((await waitForJob(first.url, key.key, upload.json.job_id)).status, 'completed');

  const listed = await admin(second, '/admin/clients/client-gamma/keys');
  assert.equal(listed.status, 200);
  assert.deepEqual(listed.json.keys.map((row: any) => [row.key_id, row.label, row.client_id]), [[key.key_id, 'ci', 'client-gamma']]);
  assert.equal(listed.text.includes(key.key), false, 'the secret is never shown again');
  assert.equal('key' in listed.json.keys[0], false);
  assert.equal((await admin(second, '/admin/clients/nobody/keys')).status, 404);

  const clients = await admin(second, '/admin/clients');
  assert.equal(clients.status, 200);
  const byId = new Map(clients.json.clients.map((row: any) => [row.client_id, row]));
  assert.deepEqual([...byId.keys()].sort(), ['client-alpha', 'client-beta', 'client-gamma']);
  const alpha = byId.get('client-alpha') as any;
  assert.equal(alpha.versions, DOCUMENTS.length, 'usage counts soft-deleted versions as held');
  assert.ok(alpha.chunks >= DOCUMENTS.length && alpha.bytes > 0);
  assert.equal((byId.get('client-gamma') as any).documents, 1);

  assert.equal((await admin(first, `/admin/keys/${key.key_id}`, { method: 'DELETE' })).status, 204);
  assert.equal((await api(first.url, '/documents', { key: key.key })).status, 401, 'the process that revoked it refuses it at once');
  await untilStatus(second, key.key, 401, 'the revoked key to answer 401 on the second service');
  assert.equal((await admin(second, `/admin/keys/${key.key_id}`, { method: 'DELETE' })).status, 404);
  assert.deepEqual((await admin(second, '/admin/clients/client-gamma/keys')).json.keys, []);
  // A made-up key of the issued form is no key.
  assert.equal((await api(second.url, '/documents', { key: key.key.slice(0, -1) + (key.key.endsWith('A') ? 'B' : 'A') })).status, 401);
});

test('a disabled Client answers 401 for its API_KEY_CLIENTS keys and its issued ones on every process, and works again once enabled', async () => {
  const issued = await issue('client-beta');
  const disabled = await admin(first, '/admin/clients/client-beta', { method: 'PATCH', body: { disabled: true } });
  assert.equal(disabled.status, 200, disabled.text);
  assert.equal(disabled.json.disabled, true);
  await untilStatus(second, KEYS.beta, 401, 'the disabled Client\'s settings key to answer 401');
  await untilStatus(second, issued.key, 401, 'the disabled Client\'s issued key to answer 401');
  assert.equal((await api(second.url, '/documents', { key: KEYS.alpha })).status, 200, 'other Clients are untouched');
  assert.equal((await admin(second, '/admin/clients/client-beta', { method: 'PATCH', body: { disabled: false } })).status, 200);
  await untilStatus(first, KEYS.beta, 200, 'the enabled Client\'s key to work again');
  await untilStatus(first, issued.key, 200, 'the enabled Client\'s issued key to work again');

  assert.equal((await admin(first, '/admin/clients/nobody', { method: 'PATCH', body: { disabled: true } })).status, 404);
  assert.equal((await admin(first, '/admin/clients/client-beta', { method: 'PATCH', body: {} })).status, 422);
  assert.equal((await admin(first, '/admin/clients/client-beta', { method: 'PATCH', body: { disabled: 'yes' } })).status, 422);
  assert.equal((await admin(first, '/admin/clients/client-beta', { method: 'PATCH', body: { rate_limit_per_minute: 0 } })).status, 422);
});

test("a Client's own rate limit overrides the deployment's for that Client only", async () => {
  const limited = await admin(first, '/admin/clients', { body: { client_id: 'client-limited' } });
  assert.equal(limited.status, 201);
  const key = await issue('client-limited');
  const set = await admin(first, '/admin/clients/client-limited', { method: 'PATCH', body: { rate_limit_per_minute: 2 } });
  assert.equal(set.json.rate_limit_per_minute, 2);
  const statuses = [];
  const told = [];
  for (let i = 0; i < 3; i++) {
    const answer = await api(first.url, '/documents', { key: key.key });
    statuses.push(answer.status);
    told.push(answer.headers.get('ratelimit-limit'));
  }
  assert.deepEqual(statuses, [200, 200, 429]);
  assert.deepEqual(told, ['2', '2', '2'], "the RateLimit-Limit header tells the Client's own limit");
  assert.equal((await api(first.url, '/documents', { key: KEYS.alpha })).status, 200, "the deployment's limit holds for the others");
  const reset = await admin(first, '/admin/clients/client-limited', { method: 'PATCH', body: { rate_limit_per_minute: null } });
  assert.equal(reset.json.rate_limit_per_minute, null);
  assert.equal((await api(first.url, '/documents', { key: key.key })).status, 200);
});

test('a key with expires_at answers 401 once it has passed, on the other process too; an expiry in the past or without a zone is refused', async () => {
  const expiresAt = new Date(Date.now() + EXPIRY_AHEAD_MS).toISOString();
  const key = await issue('client-alpha', { expires_at: expiresAt });
  assert.equal(key.expires_at, expiresAt);
  assert.equal((await api(first.url, '/documents', { key: key.key })).status, 200);
  await untilStatus(second, key.key, 200, 'the key to work on the second service before it expires');
  await untilStatus(second, key.key, 401, 'the expired key to answer 401 on the second service');
  assert.ok(Date.now() >= Date.parse(expiresAt), 'it answered 401 only once expired');
  for (const expires_at of [new Date(Date.now() - 1000).toISOString(), '2999-01-01', 'tomorrow']) {
    const refused = await admin(first, '/admin/clients/client-alpha/keys', { body: { expires_at } });
    assert.equal(refused.status, 422, expires_at);
    assert.equal(refused.json.error_code, 'validation_error');
  }
});

test('scopes: a key without the scope a route needs answers 403 forbidden in the error envelope', async () => {
  const searchOnly = await issue('client-alpha', { scopes: ['search'] });
  const readOnly = await issue('client-alpha', { scopes: ['read'] });
  const searchRead = await issue('client-alpha', { scopes: ['search', 'read'] });
  assert.equal((await api(first.url, '/search', { key: searchOnly.key, body: { query: 'quarterly' } })).status, 200);
  const refused = await api(first.url, '/documents', { key: searchOnly.key });
  assert.equal(refused.status, 403);
  assert.equal(refused.json.error_code, 'forbidden');
  assert.equal(typeof refused.json.request_id, 'string');
  assert.equal((await api(first.url, '/search', { key: readOnly.key, body: { query: 'quarterly' } })).status, 403);
  assert.equal((await api(first.url, '/documents', { key: readOnly.key })).status, 200);
  assert.equal((await api(first.url, `/status/${jobs['legal-1']}`, { key: readOnly.key })).status, 200);
  assert.equal((await uploadText(first.url, searchRead.key, { document_id: 'never', text: 'never stored' })).status, 403);
  assert.equal((await api(first.url, '/update', { method: 'PATCH', key: searchRead.key, body: { document_id: 'legal-1', metadata: { team: 'finance' } } })).status, 403);
  assert.equal((await api(first.url, '/document/legal-1', { method: 'DELETE', key: searchRead.key })).status, 403);
  assert.equal((await api(first.url, '/document/legal-2/restore', { method: 'POST', key: searchRead.key })).status, 403);
  // Webhooks are the write scope's, reading them too: their delivery log names every document of the Client.
  assert.equal((await api(first.url, '/webhooks', { key: searchRead.key })).status, 403);
  assert.equal((await api(first.url, '/webhooks', { method: 'POST', key: searchRead.key, body: { url: 'https://hooks.example.com/x', events: ['job.completed'], secret: 'a-secret-of-length' } })).status, 403);
  assert.equal((await api(first.url, '/documents', { key: KEYS.alpha })).json.total, 2, 'nothing a refused key sent changed anything');

  for (const body of [{ scopes: [] }, { scopes: ['admin'] }, { scopes: ['read', 'read'] }, { filter: { 'metadata.custom.team': 'legal' }, scopes: ['read', 'write'] }, { filter: { nope: 'x' } }, { filter: { 'location.page_number': 1 } }, { filter: {} }, { filter: 'team' }, { label: 7 }, { owner: 'x' }]) {
    const answer = await admin(first, '/admin/clients/client-alpha/keys', { body });
    assert.equal(answer.status, 422, JSON.stringify(body));
  }
});

test('a key confined by a filter sees only the versions it matches, however the caller asks', async () => {
  const confined = await issue('client-alpha', { filter: { 'metadata.custom.team': 'legal' } });
  assert.deepEqual(confined.scopes, ['search', 'read'], 'a filtered key defaults to search and read');
  const key = confined.key;
  await untilStatus(second, key, 200, 'the confined key to work on the second service');
  const search = (body: Record<string, unknown>) => api(second.url, '/search', { key, body: { query: 'quarterly', limit: 20, ...body } });

  // The unconfined Client sees both teams: there is something to hide.
  assert.deepEqual(ids(await api(second.url, '/search', { key: KEYS.alpha, body: { query: 'quarterly', limit: 20 } })), ['fin-1', 'legal-1']);

  const plain = await search({});
  assert.deepEqual(ids(plain), ['legal-1']);
  assert.equal(plain.json.meta.total, 1);
  // Filters that would widen it, or name what is outside it: narrower or empty, never wider.
  const other = await search({ filters: { 'metadata.custom.team': 'finance' } });
  assert.equal(other.status, 200);
  assert.deepEqual(ids(other), []);
  assert.equal(other.json.meta.total, 0);
  assert.deepEqual(ids(await search({ filters: { 'metadata.custom.team': ['legal', 'finance'] } })), ['legal-1']);
  assert.deepEqual(ids(await search({ filters: { document_id: ['fin-1', 'fin-2'] } })), []);
  assert.deepEqual(ids(await search({ include_deleted: true })), ['legal-1', 'legal-2']);
  assert.deepEqual(ids(await search({ include_deleted: true, filters: { document_id: 'fin-2' } })), []);
  // The metadata lane and both lanes are confined too: "finance" is a metadata value of the other team only.
  assert.deepEqual(ids(await search({ query: 'finance', scope: 'metadata' })), []);
  assert.deepEqual(ids(await api(second.url, '/search', { key: KEYS.alpha, body: { query: 'finance', scope: 'metadata' } })), ['fin-1']);
  assert.deepEqual(ids(await search({ query: 'finance', scope: 'both' })), []);
  assert.deepEqual(ids(await search({ query: 'finance', scope: 'both', filters: { 'metadata.custom.team': ['finance'] } })), []);
  // Pagination totals count only confined versions.
  const page = await search({ include_deleted: true, limit: 1 });
  assert.equal(page.json.meta.total, 2);
  assert.equal(page.json.results.length, 1);

  // Facets count only the confined versions, whatever the caller asks them over; a sort orders only those.
  const facetValues = (answer: { json: { meta?: { facets?: Record<string, { values: { value: unknown; count: number }[] }> }; facets?: Record<string, { values: { value: unknown; count: number }[] }> } }) =>
    (answer.json.meta?.facets ?? answer.json.facets)!['metadata.custom.team'].values;
  assert.deepEqual(facetValues(await search({ include_deleted: true, facets: ['metadata.custom.team'] })), [{ value: 'legal', count: 2 }]);
  assert.deepEqual(facetValues(await api(second.url, '/search', { key: KEYS.alpha, body: { query: 'quarterly', limit: 20, include_deleted: true, facets: ['metadata.custom.team'] } })).map((entry) => entry.value).sort(), ['finance', 'legal']);
  assert.deepEqual(facetValues(await api(second.url, '/documents?include_deleted=true&facets=metadata.custom.team', { key })), [{ value: 'legal', count: 2 }]);
  assert.deepEqual(ids(await search({ include_deleted: true, sort: [{ field: 'created_at', order: 'desc' }] })).sort(), ['legal-1', 'legal-2']);

  // GET /documents: totals, include_deleted, the caller's own metadata_filter.
  const listed = await api(second.url, '/documents', { key });
  assert.deepEqual([ids(listed), listed.json.total, listed.json.has_more], [['legal-1'], 1, false]);
  const withDeleted = await api(second.url, '/documents?include_deleted=true&limit=1', { key });
  assert.deepEqual([withDeleted.json.total, withDeleted.json.has_more, withDeleted.json.documents.length], [2, true, 1]);
  const filteredOut = await api(second.url, `/documents?include_deleted=true&metadata_filter=${encodeURIComponent('{"metadata.custom.team":"finance"}')}`, { key });
  assert.deepEqual([filteredOut.json.total, filteredOut.json.documents], [0, []]);
  assert.equal((await api(second.url, `/documents?include_deleted=true&metadata_filter=${encodeURIComponent('{"metadata.custom.team":"finance"}')}`, { key: KEYS.alpha })).json.total, 2);

  // Text of other documents, deleted or not: the same 404 as none.
  assert.equal((await api(second.url, '/document/legal-1/text', { key })).status, 200);
  assert.equal((await api(second.url, '/document/fin-1/text', { key })).status, 404);
  assert.equal((await api(second.url, '/document/fin-2/text?include_deleted=true', { key })).status, 404);
  assert.equal((await api(second.url, '/document/legal-2/text', { key })).status, 404);
  assert.equal((await api(second.url, '/document/legal-2/text?include_deleted=true', { key })).status, 200);
  assert.equal((await api(second.url, '/document/fin-1/text', { key: KEYS.alpha })).status, 200);

  // Job ids of other versions: not found, as another Client's are.
  assert.equal((await api(second.url, `/status/${jobs['legal-1']}`, { key })).status, 200);
  for (const id of ['fin-1', 'fin-2']) {
    const status = await api(second.url, `/status/${jobs[id]}`, { key });
    assert.equal(status.status, 404, id);
    assert.equal(status.json.error_code, 'not_found');
  }

  // Web search is not a read of the Client's documents: unaffected.
  assert.equal((await api(second.url, '/web-search/capabilities', { key })).status, 200);
  // And the key cannot write.
  assert.equal((await uploadText(second.url, key, { document_id: 'legal-3', text: 'quarterly' })).status, 403);
});
