// Answers are serialized through their routes' schemas (src/http/serialization.ts), which drop what a schema does
// not declare and coerce what it types. This test catches each answer twice, as the route built it (a
// preSerialization hook on an app composed over a real api process's services) and as it went out, and fails when
// the two differ: a field missing from a schema, a value typed wrongly, a member the serializer would lose. It
// covers the happy path of every route and the refusals and job states that carry their own fields.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config.ts';
import { startApi } from '../../src/api.ts';
import type { RunningApi } from '../../src/api.ts';
import { startWorker } from '../../src/worker.ts';
import type { RunningWorker } from '../../src/worker.ts';
import { buildApp } from '../../src/http/app.ts';

const KEY = 'serialization-key';
const OPERATOR = 'serialization-operator';
const TERMINAL = new Set(['completed', 'failed', 'partial_failed', 'superseded']);
const DOCX = new URL('../../../shared/corpus/docx/mammoth_tables.docx', import.meta.url);

let dataDir: string;
let api: RunningApi;
let worker: RunningWorker;
let app: FastifyInstance;
/** Each answer's payload as its route built it, in order. */
const built: unknown[] = [];

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'hds-serialization-'));
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    API_KEY_CLIENTS: JSON.stringify({ [KEY]: 'serialization-client' }),
    OPERATOR_API_KEYS: JSON.stringify([OPERATOR]),
    RATE_LIMIT_PER_MINUTE: '100000',
    SEARCH_RATE_LIMIT_PER_MINUTE: '100000',
    WORKER_POLL_MS: '20',
    CLIENT_MAX_DOCUMENTS: '6',
  });
  api = await startApi(config);
  await api.recovered;
  worker = await startWorker(config);
  app = await buildApp(api.services);
  app.addHook('preSerialization', async (_request, _reply, payload) => {
    built.push(structuredClone(payload));
    return payload;
  });
  await app.ready();
});

after(async () => {
  await app?.close();
  await api?.close();
  await worker?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const mismatches: string[] = [];

/** Sends a request through the app and compares what went out with what the route built. */
async function send(method: string, url: string, options: { body?: unknown; key?: string | null; form?: { fields: Record<string, string>; file: { name: string; bytes: Uint8Array } } } = {}): Promise<{ status: number; json: any }> {
  const headers: Record<string, string> = {};
  if (options.key !== null) headers['x-api-key'] = options.key ?? KEY;
  let payload: string | Buffer | undefined;
  if (options.form) {
    const boundary = 'serialization-boundary';
    const parts: Buffer[] = [];
    for (const [name, value] of Object.entries(options.form.fields)) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${options.form.file.name}"\r\nContent-Type: application/octet-stream\r\n\r\n`), Buffer.from(options.form.file.bytes), Buffer.from(`\r\n--${boundary}--\r\n`));
    payload = Buffer.concat(parts);
    headers['content-type'] = `multipart/form-data; boundary=${boundary}`;
  } else if (options.body !== undefined) {
    payload = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  const before = built.length;
  const response = await app.inject({ method: method as 'GET', url, headers, payload });
  const json = response.headers['content-type']?.toString().startsWith('application/json') ? response.json() : null;
  if (json !== null) {
    assert.equal(built.length, before + 1, `${method} ${url}: one payload built`);
    const expected = JSON.parse(JSON.stringify(built[before]));
    try {
      assert.deepStrictEqual(json, expected);
    } catch {
      mismatches.push(`${method} ${url} ${response.statusCode}:\n  built ${JSON.stringify(expected).slice(0, 600)}\n  sent  ${JSON.stringify(json).slice(0, 600)}`);
    }
  }
  return { status: response.statusCode, json };
}

/** How long a job of this test may take to settle: far past any, so only a job that never settles meets it. */
const SETTLE_TIMEOUT_MS = 120_000;
/** The pause between two polls of a job's status (each poll is itself an answer this test checks). */
const SETTLE_POLL_MS = 20;

async function settle(jobId: string): Promise<any> {
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  for (;;) {
    const { json } = await send('GET', `/status/${jobId}`);
    if (TERMINAL.has(json.status) && (json.status !== 'completed' || json.operation !== 'embed' || json.search_ready)) return json;
    if (Date.now() > deadline) throw new Error(`job ${jobId} did not settle in ${SETTLE_TIMEOUT_MS} ms: ${JSON.stringify(json)}`);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
  }
}

test('every answer goes out as its route built it', async () => {
  // Uploads: text and file, a hostile file that fails, one superseded by a newer upload of its version.
  const text = await send('POST', '/embed', { body: { document_id: 'memo', text: 'Treasury memo on the Kuching branch audit of petty cash, RM 1,250.00 on 3 March 2024.', metadata: { branch: 'Kuching', tags: ['a', 'b'], nested: { level: 2 } } } });
  assert.equal(text.status, 202);
  const file = await send('POST', '/embed', { form: { fields: { document_id: 'tables', version_id: 'v1', metadata: '{"branch":"Miri"}' }, file: { name: 'tables.docx', bytes: readFileSync(DOCX) } } });
  const broken = await send('POST', '/embed', { form: { fields: { document_id: 'broken' }, file: { name: 'broken.xlsx', bytes: new Uint8Array(22) } } });
  const older = await send('POST', '/embed', { body: { document_id: 'twice', text: 'First draft of the letter.' } });
  const newer = await send('POST', '/embed', { body: { document_id: 'twice', text: 'Second draft of the letter.' } });
  for (const accepted of [text, file, broken, older, newer]) await settle(accepted.json.job_id);

  // Searches of every scope, with highlights, filters, rerank and a page past the first.
  for (const scope of ['content', 'metadata', 'both']) await send('POST', '/search', { body: { query: 'Kuching petty cash audit', scope, highlight: true } });
  await send('POST', '/search', { body: { query: 'letter draft', filters: { 'metadata.custom.branch': 'Kuching' }, rerank: true, limit: 1, offset: 1 } });
  await send('POST', '/search', { body: { query: 'memo', alpha: 0, highlight: true, include_deleted: true } });

  // Reads.
  await send('GET', '/documents?include_deleted=true');
  await send('GET', '/documents?limit=1&offset=1');
  await send('GET', '/document/memo/text?include_vector=true');
  await send('GET', '/document/tables/text?chunk_limit=1');
  await send('GET', '/discovery/readiness');
  await send('GET', '/web-search/capabilities');
  await send('POST', '/web-search', { body: { query: 'overnight policy rate' } });

  // Updates: one that completes, one that the contract refuses, one of an unknown document.
  for (const body of [{ document_id: 'memo', metadata: { branch: 'Sibu', nested: null }, filename: 'memo-final.txt' }, { document_id: 'memo', metadata: { ['x'.repeat(300)]: 1 } }, { document_id: 'nobody', metadata: { a: 1 } }]) {
    const accepted = await send('PATCH', '/update', { body });
    if (accepted.status === 202) await settle(accepted.json.job_id);
  }

  // Lifecycle: soft delete, the list with deleted rows, restore, hard delete.
  await send('DELETE', '/document/tables?version_id=v1');
  await send('GET', '/documents?include_deleted=true');
  await send('GET', '/document/tables/text?include_deleted=true');
  await send('POST', '/document/tables/restore');
  await send('DELETE', '/document/twice?mode=hard');

  // A backfill and its job; health; the operator's view.
  const backfill = await send('POST', '/admin/backfill', { key: OPERATOR, body: { client_id: 'serialization-client' } });
  await settle(backfill.json.job_id);
  await send('GET', '/health', { key: null });
  await send('GET', '/admin/authority', { key: OPERATOR });
  await send('POST', '/admin/authority/mode', { key: OPERATOR, body: { mode: 'READY' } });

  // Refusals: validation, bad filters, unknown ids, a wrong key, the quota, maintenance.
  await send('POST', '/search', { body: { query: '' } });
  await send('POST', '/search', { body: { query: 'x', filters: { nope: 1 } } });
  await send('GET', '/documents?metadata_filter=%7Bbad');
  await send('GET', '/status/unknown-job');
  await send('GET', '/document/unknown/text');
  await send('DELETE', '/document/unknown');
  await send('POST', '/search', { key: 'wrong-key', body: { query: 'x' } });
  for (let i = 0; i < 4; i++) await settle((await send('POST', '/embed', { body: { document_id: `filler-${i}`, text: `Filler document ${i}.` } })).json.job_id);
  const refused = await send('POST', '/embed', { body: { document_id: 'one-too-many', text: 'Over the quota.' } });
  assert.equal(refused.status, 403, 'the quota refusal was exercised');
  await send('POST', '/admin/authority/mode', { key: OPERATOR, body: { mode: 'MAINTENANCE' } });
  await send('POST', '/search', { body: { query: 'memo' } });
  await send('GET', '/health', { key: null });
  await send('POST', '/admin/authority/mode', { key: OPERATOR, body: { mode: 'READY' } });

  assert.deepEqual(mismatches, []);
  assert.ok(built.length >= 50, `answers were compared (${built.length})`);
});
