// Per-Client quotas end to end (docs/configuration.md "Limits"): with small CLIENT_MAX_* settings, an upload from a Client at a
// quota is refused with 403 client_quota_exceeded and nothing is queued; a job whose document would take its Client
// over a quota fails legibly (error, error_details) and leaves nothing indexed; replacing a version or hard-deleting
// documents makes room again.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { api, removeDir, startTestServer, uploadFile, uploadText, waitForJob } from '../helpers/server.ts';
import type { TestServer } from '../helpers/server.ts';
import { before, after } from 'node:test';

const KEYS = { alpha: 'quota-alpha', beta: 'quota-beta', gamma: 'quota-gamma' } as const;
const CLIENTS = JSON.stringify({ [KEYS.alpha]: 'quota-alpha', [KEYS.beta]: 'quota-beta', [KEYS.gamma]: 'quota-gamma' });

let server: TestServer;
before(async () => {
  server = await startTestServer({
    API_KEY_CLIENTS: CLIENTS,
    CLIENT_MAX_DOCUMENTS: '2',
    CLIENT_MAX_CHUNKS: '8',
    CLIENT_MAX_TEXT_BYTES: '4000',
    // Paragraphs of 250 characters each become one chunk of their own.
    CHUNK_TARGET_CHARS: '300',
    CHUNK_OVERLAP_CHARS: '20',
  });
});
after(async () => {
  await server.close();
  removeDir(server.dataDir);
});

/** `n` paragraphs of about 250 ASCII characters: exactly `n` chunks. */
function paragraphs(n: number, word = 'statement'): string {
  return Array.from({ length: n }, (_, i) => `Paragraph ${i} ${`${word} balance `.repeat(40)}`.slice(0, 250)).join('\n\n');
}

async function indexed(key: string, documentId: string, text: string, versionId?: string) {
  const upload = await uploadText(server.url, key, { document_id: documentId, text, ...(versionId ? { version_id: versionId } : {}) });
  assert.equal(upload.status, 202, upload.text);
  const job = await waitForJob(server.url, key, upload.json.job_id);
  assert.equal(job.status, 'completed', JSON.stringify(job));
  return job;
}

function assertRefusal(response: { status: number; json: any }, quota: string, observed: number, limit: number, unit: string) {
  assert.equal(response.status, 403, JSON.stringify(response.json));
  assert.equal(response.json.error_code, 'client_quota_exceeded');
  assert.match(response.json.detail, /^Client quota exceeded: the Client holds \d+ /);
  assert.deepEqual(response.json.details, { code: 'client_quota_exceeded', quota, observed, limit, unit });
  assert.equal(typeof response.json.request_id, 'string');
  assert.equal(response.json.job_id, undefined, 'nothing was queued');
}

test('CLIENT_MAX_DOCUMENTS: a new document is refused at the quota; new versions and replacements of known documents are not', async () => {
  await indexed(KEYS.alpha, 'd1', 'Invoice for March, total RM 120.');
  await indexed(KEYS.alpha, 'd2', 'Letter about the branch move.');
  assertRefusal(await uploadText(server.url, KEYS.alpha, { document_id: 'd3', text: 'A third document.' }), 'documents', 2, 2, 'documents');
  const file = await uploadFile(server.url, KEYS.alpha, { document_id: 'd3' }, { name: 'd3.txt', bytes: Buffer.from('A third document as a file.') });
  assertRefusal({ status: file.status, json: file.json }, 'documents', 2, 2, 'documents');
  // Room for what does not add a document: a replacement of a version, and a new version of a known document.
  await indexed(KEYS.alpha, 'd1', 'Invoice for March, corrected total RM 125.');
  await indexed(KEYS.alpha, 'd1', 'Invoice for April, total RM 90.', 'april');
  const list = await api(server.url, '/documents', { key: KEYS.alpha });
  assert.deepEqual(list.json.documents.map((row: any) => `${row.document_id}/${row.version_id}`).sort(), ['d1/april', 'd1/d1', 'd2/d2']);
  // Another Client has its own quota.
  await indexed(KEYS.beta, 'elsewhere', 'Not counted against alpha.');
  // A hard delete makes room; the refused document can now be uploaded.
  assert.equal((await api(server.url, '/document/d2?mode=hard', { method: 'DELETE', key: KEYS.alpha })).status, 200);
  await indexed(KEYS.alpha, 'd3', 'A third document, accepted now.');
});

test('CLIENT_MAX_CHUNKS at upload: a Client holding its quota of chunks is refused until it frees some', async () => {
  const full = await indexed(KEYS.gamma, 'big', paragraphs(8));
  assert.equal(full.chunks_created, 8);
  assertRefusal(await uploadText(server.url, KEYS.gamma, { document_id: 'more', text: 'One more chunk.' }), 'chunks', 8, 8, 'chunks');
  // Replacing the version that holds the chunks is allowed (it is not counted against its own replacement).
  const smaller = await indexed(KEYS.gamma, 'big', paragraphs(2));
  assert.equal(smaller.chunks_created, 2);
  await indexed(KEYS.gamma, 'more', 'One more chunk.');
});

test('a job whose document would take its Client over CLIENT_MAX_CHUNKS fails legibly and indexes nothing', async () => {
  // beta holds one chunk ('elsewhere' from the first test, or none when run alone): 12 more cannot fit in 8.
  const before = (await api(server.url, '/documents', { key: KEYS.beta })).json.documents.reduce((sum: number, row: any) => sum + row.chunk_count, 0);
  const upload = await uploadText(server.url, KEYS.beta, { document_id: 'too-long', text: paragraphs(12, 'overdraft') });
  assert.equal(upload.status, 202, 'accepted: the Client had room before the document was measured');
  const job = await waitForJob(server.url, KEYS.beta, upload.json.job_id);
  assert.equal(job.status, 'failed');
  assert.match(job.error, new RegExp(`^Client quota exceeded: indexing this document would bring the Client to ${before + 12} indexed chunks, and its quota is 8\\.`));
  assert.deepEqual(job.error_details, { code: 'client_quota_exceeded', quota: 'chunks', observed: before + 12, limit: 8, unit: 'chunks' });
  assert.equal((await api(server.url, '/document/too-long/text', { key: KEYS.beta })).status, 404, 'nothing of it is indexed');
  const search = await api(server.url, '/search', { key: KEYS.beta, body: { query: 'overdraft balance', scope: 'content' } });
  assert.equal(search.status, 200);
  assert.ok(!search.json.results.some((row: any) => row.document_version.document_id === 'too-long'));
});

test('CLIENT_MAX_TEXT_BYTES counts UTF-8 bytes of chunk text: 5 chunks of 280 CJK characters (4200 bytes) fail, 4 fit', async () => {
  const cjk = (n: number, char: string) => Array.from({ length: n }, () => char.repeat(280)).join('\n\n');
  // beta holds at most the 26 bytes of 'elsewhere' (first test): 4200 more bytes go over 4000, chunks (6 of 8) do not.
  const upload = await uploadText(server.url, KEYS.beta, { document_id: 'wide', text: cjk(5, '数') });
  assert.equal(upload.status, 202);
  const job = await waitForJob(server.url, KEYS.beta, upload.json.job_id);
  assert.equal(job.status, 'failed', JSON.stringify(job));
  assert.equal(job.error_details.quota, 'text_bytes');
  assert.equal(job.error_details.unit, 'utf8_bytes');
  assert.equal(job.error_details.limit, 4000);
  assert.ok(job.error_details.observed >= 4200 && job.error_details.observed <= 4226, JSON.stringify(job.error_details));
  assert.match(job.error, /bytes of indexed text, and its quota is 4000/);
  const fits = await indexed(KEYS.beta, 'narrow', cjk(4, '据'));
  assert.equal(fits.chunks_created, 4);
});
