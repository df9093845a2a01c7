// Reads fail closed on publication evidence (SPEC.md "What the service does", search rules 10 and 11, DELETE
// rule 5): real rows of a real store (either one) are corrupted while the service is down; on restart each generation's
// manifest is verified as it enters the serving snapshot, and lane data that is not what it recorded is never decoded.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { api, KEYS, removeDir, startTestServer, tempDataDir, uploadText, waitForJob } from '../helpers/server.ts';
import type { TestServer } from '../helpers/server.ts';
import { clientSql, editManifests } from '../helpers/test-store.ts';

const dataDir = tempDataDir();
let server: TestServer;
/** A real statement of several chunks (MT940 bank statement text from the shared corpus). */
const STATEMENT = readFileSync('../shared/corpus/txt/mt940_ASNB_0708271685_09022020_164516.940.txt', 'utf8');

before(async () => {
  const first = await startTestServer({}, dataDir);
  for (const [id, text, desk] of [
    ['good', 'Quarterly ledger for the Ipoh branch.'],
    ['tampered', 'Cheque clearing report for the Seremban branch.'],
    ['corrupt', 'Fixed deposit certificate for the Kuantan branch.'],
    ['statement', STATEMENT],
    ['truncated', 'Remittance advice for the Kuching branch.', 'Sarawak remittances desk'],
    ['garbage', 'Overdraft facility letter for the Miri branch.'],
  ]) {
    const accepted = await uploadText(first.url, KEYS.alpha, { document_id: id, text, ...(desk ? { metadata: { desk } } : {}) });
    assert.equal((await waitForJob(first.url, KEYS.alpha, accepted.json.job_id)).status, 'completed');
  }
  await first.close();
  // A manifest of another record: the generation is no longer authoritative.
  await editManifests(dataDir, 'client-alpha', `state = 'active' AND document_id = 'tampered'`, [], (manifest) => (manifest.record_id = 'ffffffffffffffffffffffffffffffff'));
  // The stored content no longer matches an authoritative manifest.
  await clientSql(dataDir, 'client-alpha', `UPDATE chunks SET text = 'Fixed deposit certificate for the Kuantan branch, altered.' WHERE generation = (SELECT generation FROM generations WHERE state = 'active' AND document_id = 'corrupt')`);
  // Lane data that cannot be decoded: cut in half, and garbage of the same length (a flipped byte still decodes).
  const lanesOf = (id: string) => `generation = (SELECT generation FROM generations WHERE state = 'active' AND document_id = '${id}')`;
  await clientSql(dataDir, 'client-alpha', `UPDATE generation_lanes SET lanes = substr(lanes, 1, length(lanes) / 2) WHERE ${lanesOf('truncated')}`);
  const [{ size }] = await clientSql(dataDir, 'client-alpha', `SELECT length(lanes) AS size FROM generation_lanes WHERE ${lanesOf('garbage')}`);
  await clientSql(dataDir, 'client-alpha', `UPDATE generation_lanes SET lanes = ? WHERE ${lanesOf('garbage')}`, Buffer.from(Array.from({ length: Number(size) }, (_, i) => (i * 97 + 5) & 0xff)));
  server = await startTestServer({}, dataDir);
});

after(async () => {
  await server.close();
  removeDir(dataDir);
});

const search = (query: string) => api(server.url, '/search', { key: KEYS.alpha, body: { query } });

test('a search whose candidates are all verified answers; one that needs a non-authoritative generation fails closed', async () => {
  const good = await search('quarterly ledger Ipoh');
  assert.equal(good.status, 200, good.text);
  assert.deepEqual(good.json.results.map((row: any) => row.document_version.document_id), ['good']);
  const tampered = await search('cheque clearing Seremban');
  assert.equal(tampered.status, 503);
  assert.equal(tampered.json.error_code, 'publication_authority_inconsistent');
  assert.equal(tampered.headers.get('retry-after'), '1');
  assert.equal('results' in tampered.json, false, 'never a partial page');
});

test('an authoritative generation with corrupt stored evidence fails 500 naming the lane and point', async () => {
  const corrupt = await search('fixed deposit Kuantan');
  assert.equal(corrupt.status, 500);
  assert.equal(corrupt.json.error_code, 'stored_evidence_inconsistent');
  assert.equal(corrupt.json.details.lane, 'content');
  assert.match(corrupt.json.details.point, /^generation \d+$/);
});

test('search rule 10: a generation whose lane data cannot be decoded never occupies a page slot, and the Client\'s other generations keep serving', async () => {
  for (const [id, query] of [['truncated', 'remittance advice Kuching'], ['garbage', 'overdraft facility Miri']]) {
    const answer = await search(query);
    assert.equal(answer.status, 200, answer.text);
    assert.ok(answer.json.results.every((row: any) => row.document_version.document_id !== id), `${id} holds no page slot`);
    // The text route has no 500 for it: it fails closed as for any unproven version.
    const text = await api(server.url, `/document/${id}/text`, { key: KEYS.alpha });
    assert.equal(text.status, 503);
    assert.equal(text.headers.get('retry-after'), '1');
  }
  const good = await search('quarterly ledger Ipoh');
  assert.equal(good.status, 200, good.text);
  assert.equal(good.json.results[0].document_version.document_id, 'good');
  assert.equal((await api(server.url, '/document/good/text', { key: KEYS.alpha })).status, 200);
});

test('search rule 11: a search that needs the authoritative generation whose lane data is damaged (its metadata matched) fails 500 naming the lane and point', async () => {
  const answer = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'Sarawak remittances desk', scope: 'metadata' } });
  assert.equal(answer.status, 500, answer.text);
  assert.equal(answer.json.error_code, 'stored_evidence_inconsistent');
  assert.equal(answer.json.details.lane, 'content');
  assert.match(answer.json.details.point, /^generation \d+$/);
});

test('list and text fail closed with 503 where they would need an unproven version', async () => {
  const list = await api(server.url, '/documents', { key: KEYS.alpha });
  assert.equal(list.status, 503);
  assert.equal(list.json.error_code, 'publication_authority_inconsistent');
  assert.equal((await api(server.url, '/documents?metadata_filter=' + encodeURIComponent(JSON.stringify({ document_id: 'good' })), { key: KEYS.alpha })).status, 200, 'a filtered list that needs only verified versions answers');
  assert.equal((await api(server.url, '/document/good/text', { key: KEYS.alpha })).status, 200);
  const text = await api(server.url, '/document/tampered/text', { key: KEYS.alpha });
  assert.equal(text.status, 503);
  assert.equal(text.headers.get('retry-after'), '1');
});

test('the text route serves only chunk text its generation published: text altered in the store fails closed with 503', async () => {
  const good = await api(server.url, '/document/good/text', { key: KEYS.alpha });
  assert.equal(good.status, 200, good.text);
  assert.deepEqual(good.json.chunks.map((chunk: any) => chunk.text), ['Quarterly ledger for the Ipoh branch.']);
  // Altered while the service was down: the generation's lane data still proves the published text.
  const altered = await api(server.url, '/document/corrupt/text', { key: KEYS.alpha });
  assert.equal(altered.status, 503, altered.text);
  assert.equal(altered.json.error_code, 'publication_authority_inconsistent');
  assert.equal(altered.headers.get('retry-after'), '1');
  assert.equal('chunks' in altered.json, false, 'never the altered text');
  assert.doesNotMatch(altered.text, /altered/);
  // Altered under a running service whose snapshot serves the version: the read checks what it reads, every time.
  await clientSql(server.dataDir, 'client-alpha', `UPDATE chunks SET text = 'Quarterly ledger for the Ipoh branch, rewritten.' WHERE generation = (SELECT generation FROM generations WHERE state = 'active' AND document_id = 'good')`);
  const rewritten = await api(server.url, '/document/good/text', { key: KEYS.alpha });
  assert.equal(rewritten.status, 503, rewritten.text);
  assert.equal(rewritten.json.error_code, 'publication_authority_inconsistent');
  assert.equal(rewritten.headers.get('retry-after'), '1');
  assert.doesNotMatch(rewritten.text, /rewritten/);
  await clientSql(server.dataDir, 'client-alpha', `UPDATE chunks SET text = 'Quarterly ledger for the Ipoh branch.' WHERE generation = (SELECT generation FROM generations WHERE state = 'active' AND document_id = 'good')`);
  assert.equal((await api(server.url, '/document/good/text', { key: KEYS.alpha })).status, 200, 'the published text restored serves again');
});

test('the text route serves only chunk entities their generation published, in a window or whole', async () => {
  const generation = `(SELECT generation FROM generations WHERE state = 'active' AND document_id = 'statement')`;
  const whole = await api(server.url, '/document/statement/text', { key: KEYS.alpha });
  assert.equal(whole.status, 200, whole.text);
  const count = whole.json.chunk_count;
  assert.ok(count >= 3, `the statement makes several chunks (${count})`);
  const window = await api(server.url, '/document/statement/text?chunk_offset=1&chunk_limit=1', { key: KEYS.alpha });
  assert.equal(window.status, 200, window.text);
  assert.deepEqual(window.json.chunks[0].entities, whole.json.chunks[1].entities);

  const stored = await clientSql(server.dataDir, 'client-alpha', `SELECT chunk_index, entities FROM chunks WHERE generation = ${generation} ORDER BY chunk_index`);
  const alter = async (chunkIndex: number) => {
    assert.match(String(stored[chunkIndex]!.entities), /"persons":\[\]/);
    await clientSql(server.dataDir, 'client-alpha', `UPDATE chunks SET entities = replace(entities, '"persons":[]', '"persons":["Mallory"]') WHERE generation = ${generation} AND chunk_index = ?`, chunkIndex);
  };
  const restore = (chunkIndex: number) =>
    clientSql(server.dataDir, 'client-alpha', `UPDATE chunks SET entities = ? WHERE generation = ${generation} AND chunk_index = ?`, String(stored[chunkIndex]!.entities), chunkIndex);
  const refused = async (path: string) => {
    const read = await api(server.url, path, { key: KEYS.alpha });
    assert.equal(read.status, 503, `${path}: ${read.text}`);
    assert.equal(read.json.error_code, 'publication_authority_inconsistent');
    assert.equal(read.headers.get('retry-after'), '1');
    assert.doesNotMatch(read.text, /Mallory/);
  };

  // Entities altered in the chunk a window returns: that window and the whole document fail closed.
  await alter(1);
  await refused('/document/statement/text?chunk_offset=1&chunk_limit=1');
  await refused('/document/statement/text');
  await restore(1);
  // Altered in a chunk outside the window: the evidence covers every chunk, so what the window returns cannot be proven either.
  await alter(count - 1);
  await refused('/document/statement/text?chunk_offset=1&chunk_limit=1');
  await restore(count - 1);

  const again = await api(server.url, '/document/statement/text?chunk_offset=1&chunk_limit=1', { key: KEYS.alpha });
  assert.equal(again.status, 200, 'the published entities restored serve again');
  assert.deepEqual(again.json.chunks, window.json.chunks);
});

test('DELETE rule 5: a version with incomplete publication evidence is not republished (503 publication_unavailable)', async () => {
  const refused = await api(server.url, '/document/tampered', { method: 'DELETE', key: KEYS.alpha });
  assert.equal(refused.status, 503);
  assert.equal(refused.json.error_code, 'publication_unavailable');
  assert.equal(refused.headers.get('retry-after'), '1');
  assert.deepEqual(refused.json.details.changed_versions, []);
  assert.equal((await api(server.url, '/document/tampered/text', { key: KEYS.alpha })).status, 503, 'nothing changed');
  assert.equal((await api(server.url, '/document/good', { method: 'DELETE', key: KEYS.alpha })).status, 200, 'verified versions are republished as usual');
  // A hard delete removes the unproven version all the same.
  assert.equal((await api(server.url, '/document/tampered?mode=hard', { method: 'DELETE', key: KEYS.alpha })).status, 200);
  assert.equal((await search('cheque clearing Seremban')).status, 200);
});
