// One Client's unreadable stored rows never take down a process or another Client (SPEC.md search rules 10
// and 11, the errors table). Rows of a real store are corrupted while the service is down, as a disk or an
// operator error would leave them; on restart the api processes start and stay up, the other Client serves,
// and reads of the damaged Client that need a damaged generation fail closed:
// - stored JSON that does not parse, or a manifest of the wrong shape: 500 internal_error, no Retry-After;
// - a missing manifest, or one of another record: 503 publication_authority_inconsistent, Retry-After 1.
// A damaged generation never occupies a page slot: reads that do not need it answer.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { api, KEYS, removeDir, startTestServer, tempDataDir, uploadText, waitForJob } from '../helpers/server.ts';
import type { TestServer } from '../helpers/server.ts';
import { clientSql, editManifests } from '../helpers/test-store.ts';

const dataDir = tempDataDir();
let server: TestServer;

const DOCUMENTS: Record<string, [string, string]> = {
  good: ['client-alpha', 'Quarterly ledger for the Ipoh office.'],
  'bad-metadata': ['client-alpha', 'Cheque clearing report from Seremban.'],
  'bad-entities': ['client-alpha', 'Payroll summary of Melaka staff.'],
  'bad-leaf': ['client-alpha', 'Insurance claim lodged in Kuching.'],
  'bad-manifest': ['client-alpha', 'Fixed deposit certificate, Kuantan.'],
  'shapeless-manifest': ['client-alpha', 'Tenancy agreement renewal at Miri.'],
  'no-manifest': ['client-alpha', 'Remittance advice sent to Klang.'],
  'beta-doc': ['client-beta', 'Quarterly ledger for the Penang office.'],
};

before(async () => {
  const first = await startTestServer({}, dataDir);
  for (const [documentId, [clientId, text]] of Object.entries(DOCUMENTS)) {
    const key = clientId === 'client-alpha' ? KEYS.alpha : KEYS.beta;
    const accepted = await uploadText(first.url, key, { document_id: documentId, text, metadata: { region: 'north' } });
    assert.equal((await waitForJob(first.url, key, accepted.json.job_id)).status, 'completed');
  }
  await first.close();
  const active = `WHERE state = 'active' AND document_id = ?`;
  const damage = (sql: string, documentId: string) => clientSql(dataDir, 'client-alpha', sql, documentId);
  await damage(`UPDATE generations SET canonical_metadata = '{"filename": "cut off' ${active}`, 'bad-metadata');
  await damage(`UPDATE generations SET entities = 'not json' ${active}`, 'bad-entities');
  await damage(`UPDATE metadata_leaves SET value = '"unterminated' WHERE generation = (SELECT generation FROM generations ${active})`, 'bad-leaf');
  await damage(`UPDATE generations SET manifest = '{not json' ${active}`, 'bad-manifest');
  await editManifests(dataDir, 'client-alpha', `state = 'active' AND document_id = ?`, ['shapeless-manifest'], (manifest) => delete manifest.content);
  await damage(`UPDATE generations SET manifest = '{}' ${active}`, 'no-manifest');
  server = await startTestServer({ API_PROCESSES: '2' }, dataDir);
});

after(async () => {
  await server.close();
  removeDir(dataDir);
});

const search = (key: string, query: string) => api(server.url, '/search', { key, body: { query, alpha: 0 } });

test('the api processes start and stay up, and the other Client serves', async () => {
  const beta = await search(KEYS.beta, 'quarterly ledger Penang');
  assert.equal(beta.status, 200, beta.text);
  assert.deepEqual(beta.json.results.map((row: any) => row.document_version.document_id), ['beta-doc']);
  const health = await api(server.url, '/health');
  assert.equal(health.status, 200, health.text);
});

test('a read of the damaged Client that needs no damaged generation answers', async () => {
  const good = await search(KEYS.alpha, 'quarterly ledger Ipoh');
  assert.equal(good.status, 200, good.text);
  assert.deepEqual(good.json.results.map((row: any) => row.document_version.document_id), ['good']);
  assert.equal((await api(server.url, '/document/good/text', { key: KEYS.alpha })).status, 200);
});

test('stored JSON that does not parse, or a manifest of the wrong shape, fails the search 500 internal_error', async () => {
  for (const query of ['cheque clearing Seremban', 'payroll Melaka staff', 'insurance claim Kuching', 'fixed deposit Kuantan', 'tenancy agreement Miri']) {
    const failed = await search(KEYS.alpha, query);
    assert.equal(failed.status, 500, `${query}: ${failed.text}`);
    assert.equal(failed.json.error_code, 'internal_error', query);
    assert.equal(failed.headers.get('retry-after'), null, query);
    assert.equal('results' in failed.json, false, 'never a partial page');
  }
});

test('a missing manifest fails the search 503 publication_authority_inconsistent with Retry-After 1', async () => {
  const missing = await search(KEYS.alpha, 'remittance advice Klang');
  assert.equal(missing.status, 503, missing.text);
  assert.equal(missing.json.error_code, 'publication_authority_inconsistent');
  assert.equal(missing.headers.get('retry-after'), '1');
});

test('list and text, whose contract has no 500, fail closed with 503 where they need a damaged generation', async () => {
  const list = await api(server.url, '/documents', { key: KEYS.alpha });
  assert.equal(list.status, 503, list.text);
  assert.equal(list.headers.get('retry-after'), '1');
  for (const documentId of ['bad-metadata', 'bad-manifest', 'no-manifest']) {
    const text = await api(server.url, `/document/${documentId}/text`, { key: KEYS.alpha });
    assert.equal(text.status, 503, `${documentId}: ${text.text}`);
  }
  assert.equal((await api(server.url, '/documents', { key: KEYS.beta })).status, 200);
});

test('a damaged version is not republished nor patched, and is repaired by a hard delete or a new upload', async () => {
  const soft = await api(server.url, '/document/bad-manifest', { method: 'DELETE', key: KEYS.alpha });
  assert.equal(soft.status, 503, soft.text);
  assert.equal(soft.json.error_code, 'publication_unavailable', 'DELETE rule 5: evidence that does not verify is not republished');

  const patch = await api(server.url, '/update', { method: 'PATCH', key: KEYS.alpha, body: { document_id: 'bad-metadata', metadata: { reviewed: true } } });
  assert.equal(patch.status, 202, patch.text);
  const patched = await waitForJob(server.url, KEYS.alpha, patch.json.job_id);
  assert.equal(patched.status, 'failed', 'no successor is built from metadata that cannot be read');

  const hard = await api(server.url, '/document/bad-metadata?mode=hard', { method: 'DELETE', key: KEYS.alpha });
  assert.equal(hard.status, 200, hard.text);
  const reupload = await uploadText(server.url, KEYS.alpha, { document_id: 'no-manifest', text: 'Remittance advice sent to Klang, reissued.' });
  assert.equal((await waitForJob(server.url, KEYS.alpha, reupload.json.job_id)).status, 'completed');
  for (const query of ['cheque clearing Seremban', 'remittance advice Klang']) {
    const repaired = await search(KEYS.alpha, query);
    assert.equal(repaired.status, 200, `${query}: ${repaired.text}`);
  }
  assert.deepEqual((await search(KEYS.alpha, 'remittance advice Klang')).json.results.map((row: any) => row.document_version.document_id), ['no-manifest']);
});
