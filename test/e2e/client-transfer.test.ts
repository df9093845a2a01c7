// Issue 48 item 4: a Client exported from a SQLite deployment (hds admin export, GET /admin/clients/{id}/export)
// and imported into a PostgreSQL one that already serves another Client (hds admin import), then back into a
// new SQLite deployment, answers the same searches, lists and texts as the original (the default embedder is
// deterministic: the same chunks embed to the same vectors). The uploaded files are not needed; a second
// import queues nothing; a bad line is a 422 naming it, and nothing is queued.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { api, baseEnv, KEYS, removeDir, sendRaw, spawnServer, tempDataDir, uploadFile, uploadText, waitForJob } from '../helpers/server.ts';
import type { ChildServer } from '../helpers/server.ts';
import { childEnv } from '../helpers/child-env.ts';
import { storeEnv, TEST_STORE } from '../helpers/test-store.ts';
import { startPostgresCluster } from '../helpers/postgres-cluster.ts';
import { EXPORT_PAGE_VERSIONS } from '../../src/ingest/client-transfer.ts';
import type { PostgresCluster } from '../helpers/postgres-cluster.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CORPUS = join(ROOT, '../shared/corpus');
const JOB_TIMEOUT_MS = 180_000;
const QUERIES = ['closing balance savings account', 'invoice total amount due', 'zakat kutipan', 'letter of credit', 'sheet total'];

function hds(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['src/cli.ts', ...args], { cwd: ROOT, env: childEnv() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * An answer without what names the deployment rather than the data: request timing, chunk ids (they carry the
 * generation number, which each store counts for itself) and when the chunks were embedded.
 */
function portable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(portable);
  if (value === null || typeof value !== 'object') return value;
  const dropped = new Set(['query_time_ms', 'chunk_id', 'id', 'embedded_at']);
  return Object.fromEntries(Object.entries(value).filter(([key]) => !dropped.has(key)).map(([key, inner]) => [key, portable(inner)]));
}

async function answers(url: string, key: string, documentIds: readonly string[]): Promise<Record<string, unknown>> {
  const seen: Record<string, unknown> = {};
  for (const query of QUERIES) {
    for (const scope of ['content', 'metadata', 'both']) {
      const search = await api(url, '/search', { key, body: { query, scope, limit: 20, highlight: true, include_deleted: true } });
      assert.equal(search.status, 200, search.text);
      seen[`search ${scope} ${query}`] = portable(search.json);
    }
  }
  const filtered = await api(url, '/search', { key, body: { query: 'statement', filters: { 'metadata.custom.branch': 'KL' } } });
  seen['search filtered'] = portable(filtered.json);
  seen.list = (await api(url, '/documents?limit=100&include_deleted=true', { key })).json;
  for (const id of documentIds) seen[`text ${id}`] = portable((await api(url, `/document/${encodeURIComponent(id)}/text?include_deleted=true`, { key })).json);
  return seen;
}

async function seed(url: string): Promise<string[]> {
  const jobs: string[] = [];
  const texts: [string, string | null, string, Record<string, unknown>][] = [
    ['stmt-march', 'v1', 'Savings account statement for March. Closing balance RM 12,450.00 at the Kuala Lumpur branch.', { branch: 'KL', amount: 12450 }],
    ['stmt-march', 'v2', 'Savings account statement for March, corrected. Closing balance RM 12,540.00.', { branch: 'KL', corrected: true }],
    ['credit-letter', null, 'Letter of credit issued for the Penang branch, valid until the end of the quarter.', { branch: 'PG' }],
    ['withdrawn', 'v1', 'A letter about a closing balance dispute, since withdrawn.', {}],
  ];
  for (const [id, version, text, metadata] of texts) {
    const accepted = await uploadText(url, KEYS.alpha, { document_id: id, ...(version !== null && { version_id: version }), text, metadata });
    assert.equal(accepted.status, 202, accepted.text);
    jobs.push(accepted.json.job_id);
  }
  for (const [id, file] of [['aws', 'pdf/inv_AmazonWebServices.pdf'], ['sheets', 'xlsx/poi_55906-MultiSheetRefs.xlsx'], ['zakat', 'pdf/msd_malay_Isu_isu_pelaksanaan_kutipan_zakat.pdf']]) {
    const accepted = await uploadFile(url, KEYS.alpha, { document_id: id, metadata: JSON.stringify({ source: 'corpus' }) }, { name: file.split('/')[1], bytes: readFileSync(join(CORPUS, file)) });
    assert.equal(accepted.status, 202, JSON.stringify(accepted.json));
    jobs.push(accepted.json.job_id);
  }
  for (const job of jobs) assert.equal((await waitForJob(url, KEYS.alpha, job, { timeoutMs: JOB_TIMEOUT_MS })).status, 'completed');
  assert.equal((await api(url, '/document/withdrawn', { method: 'DELETE', key: KEYS.alpha })).status, 200);
  return ['stmt-march', 'credit-letter', 'withdrawn', 'aws', 'sheets', 'zakat'];
}

/** Embed jobs the deployment records, in every state (its /metrics job gauges): what an import could add to. */
async function embedJobsRecorded(url: string): Promise<number> {
  const metrics = await api(url, '/metrics', { key: KEYS.operator });
  assert.equal(metrics.status, 200);
  return [...metrics.text.matchAll(/^jobs\{operation="embed",state="[a-z_]+"\} (\d+)$/gm)].reduce((sum, match) => sum + Number(match[1]), 0);
}

async function exportVia(url: string, out: string): Promise<void> {
  const exported = await hds(['--url', url, '--key', KEYS.operator, 'admin', 'export', 'client-alpha', '--out', out]);
  assert.equal(exported.code, 0, exported.stderr);
}

async function importVia(url: string, file: string): Promise<{ client_id: string; jobs: { job_id: string }[]; skipped: number }> {
  const imported = await hds(['--url', url, '--key', KEYS.operator, 'admin', 'import', 'client-alpha', file, '--json']);
  assert.equal(imported.code, 0, imported.stderr);
  return JSON.parse(imported.stdout);
}

async function finish(url: string, accepted: { jobs: { job_id: string }[] }): Promise<void> {
  for (const { job_id: jobId } of accepted.jobs) assert.equal((await waitForJob(url, KEYS.alpha, jobId, { timeoutMs: JOB_TIMEOUT_MS })).status, 'completed');
}

test('a Client exported from SQLite, imported into PostgreSQL beside another Client and back, answers as the original', { timeout: 900_000, skip: TEST_STORE === 'postgres' ? 'it runs on both stores whichever the pass: the SQLite pass runs it, on a cluster of its own' : false }, async () => {
  const dirs = [tempDataDir(), tempDataDir(), tempDataDir(), tempDataDir()];
  const [sqliteDir, postgresDir, backDir, filesDir] = dirs;
  let cluster: PostgresCluster | undefined;
  const servers: ChildServer[] = [];
  try {
    const original = await spawnServer(baseEnv(sqliteDir, { STORE: 'sqlite' }));
    servers.push(original);
    const ids = await seed(original.url);
    const expected = await answers(original.url, KEYS.alpha, ids);

    const postgresStore = TEST_STORE === 'postgres' ? storeEnv(postgresDir) : { STORE: 'postgres', DATABASE_URL: await (cluster = await startPostgresCluster()).createDatabase() };
    const target = await spawnServer(baseEnv(postgresDir, postgresStore));
    servers.push(target);
    // The target already serves another Client, which the import leaves as it was.
    const beta = await uploadText(target.url, KEYS.beta, { document_id: 'beta-memo', text: 'Closing balance memo of the beta team: letter of credit pending.' });
    await waitForJob(target.url, KEYS.beta, beta.json.job_id, { timeoutMs: JOB_TIMEOUT_MS });
    const betaBefore = await answers(target.url, KEYS.beta, ['beta-memo']);

    const exportFile = join(filesDir, 'alpha.ndjson');
    await exportVia(original.url, exportFile);
    const lines = readFileSync(exportFile, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line));
    assert.deepEqual(Object.keys(lines[0]).sort(), ['client_id', 'exported_at', 'format']);
    assert.equal(lines[0].format, 'hds-export/1');
    assert.equal(lines.length, 1 + 7, 'the header and one line per version (two of stmt-march)');
    const withdrawn = lines.find((line) => line.document_id === 'withdrawn');
    assert.equal(withdrawn.deleted, true);
    assert.ok(withdrawn.deleted_at);

    const imported = await importVia(target.url, exportFile);
    assert.equal(imported.jobs.length, 7);
    assert.equal(imported.skipped, 0);
    await finish(target.url, imported);
    assert.deepEqual(await answers(target.url, KEYS.alpha, ids), expected, 'PostgreSQL answers as the SQLite original');
    assert.deepEqual(await answers(target.url, KEYS.beta, ['beta-memo']), betaBefore, 'the other Client is untouched');

    // A second import queues nothing: every version is held.
    const again = await importVia(target.url, exportFile);
    assert.deepEqual(again.jobs, []);
    assert.equal(again.skipped, 7);

    // A bad line anywhere: 422 naming it, and not even the good lines before it are queued.
    const recorded = await embedJobsRecorded(target.url);
    assert.ok(recorded >= 8, `the jobs of beta and of the import are counted (${recorded})`);
    const broken = [JSON.stringify(lines[0]), JSON.stringify({ ...lines[1], document_id: 'fresh-one' }), JSON.stringify({ ...lines[2], document_id: 'fresh-two', chunks: [{ index: 0, page: 0, text: '' }] })].join('\n');
    const refused = await sendRaw(target.url, '/admin/clients/client-beta/import', { method: 'POST', headers: { 'X-API-Key': KEYS.operator, 'Content-Type': 'application/x-ndjson' }, body: broken });
    assert.equal(refused.status, 422, refused.text);
    assert.ok(refused.json.details.length >= 2);
    for (const detail of refused.json.details) assert.match(detail.msg, /^line 3: /);
    assert.deepEqual(refused.json.details.map((detail: { loc: unknown[] }) => detail.loc.slice(0, 2)), refused.json.details.map(() => ['body', 'line 3']));
    const notJson = await sendRaw(target.url, '/admin/clients/client-beta/import', { method: 'POST', headers: { 'X-API-Key': KEYS.operator, 'Content-Type': 'application/x-ndjson' }, body: `${JSON.stringify(lines[0])}\n{"document_id": \n` });
    assert.equal(notJson.status, 422);
    assert.match(notJson.json.details[0].msg, /^line 2: /);
    const wrongType = await sendRaw(target.url, '/admin/clients/client-beta/import', { method: 'POST', headers: { 'X-API-Key': KEYS.operator, 'Content-Type': 'application/json' }, body: JSON.stringify(lines[0]) });
    assert.equal(wrongType.status, 415);
    assert.equal((await api(target.url, '/admin/clients/nobody/export', { key: KEYS.operator })).status, 404);
    assert.equal(await embedJobsRecorded(target.url), recorded, 'no refused import queued a job');
    assert.deepEqual(await answers(target.url, KEYS.beta, ['beta-memo']), betaBefore, 'the other Client is still as it was');
    assert.equal((await api(target.url, '/admin/clients/client-alpha/export', { key: KEYS.alpha })).status, 401, 'a Client key never reaches the operator routes');

    // And back, from PostgreSQL into a new SQLite deployment.
    const backFile = join(filesDir, 'alpha-back.ndjson');
    await exportVia(target.url, backFile);
    const back = await spawnServer(baseEnv(backDir, { STORE: 'sqlite' }));
    servers.push(back);
    const returned = await importVia(back.url, backFile);
    assert.equal(returned.jobs.length, 7);
    await finish(back.url, returned);
    assert.deepEqual(await answers(back.url, KEYS.alpha, ids), expected, 'SQLite again answers as the original');
  } finally {
    for (const server of servers) await server.stop();
    cluster?.stop();
    for (const dir of dirs) removeDir(dir);
  }
});

test('an export of more versions than one page of the store holds each version once, in order', { timeout: 600_000 }, async () => {
  const dataDir = tempDataDir();
  const server = await spawnServer(baseEnv(dataDir));
  try {
    const count = EXPORT_PAGE_VERSIONS + 3;
    const jobs: string[] = [];
    for (let n = 0; n < count; n++) {
      const accepted = await uploadText(server.url, KEYS.beta, { document_id: `memo-${String(n).padStart(3, '0')}`, text: `Branch memo number ${n} about the quarterly close.` });
      assert.equal(accepted.status, 202, accepted.text);
      jobs.push(accepted.json.job_id);
    }
    for (const job of jobs) assert.equal((await waitForJob(server.url, KEYS.beta, job, { timeoutMs: JOB_TIMEOUT_MS })).status, 'completed');
    const exported = await api(server.url, '/admin/clients/client-beta/export', { key: KEYS.operator });
    assert.equal(exported.status, 200);
    assert.match(exported.headers.get('content-type') ?? '', /^application\/x-ndjson/);
    const ids = exported.text.trimEnd().split('\n').slice(1).map((line) => JSON.parse(line).document_id);
    assert.deepEqual(ids, Array.from({ length: count }, (_, n) => `memo-${String(n).padStart(3, '0')}`));
  } finally {
    await server.stop();
    removeDir(dataDir);
  }
});
