// Issue 48 item 3: a backup of a running deployment, taken while uploads and searches go on, restored into an
// empty place and served, answers as the original did at the backup's instant. On SQLite through
// `hds admin backup` and `hds admin restore`; on PostgreSQL (TEST_STORE=postgres) through pg_dump and
// pg_restore as docs/operations.md says (the uploaded files are rows of the database there).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { api, baseEnv, KEYS, removeDir, spawnServer, tempDataDir, uploadFile, uploadText, waitForJob } from '../helpers/server.ts';
import type { ChildServer } from '../helpers/server.ts';
import { childEnv } from '../helpers/child-env.ts';
import { storeEnv, TEST_STORE } from '../helpers/test-store.ts';
import { serverBinDir } from '../helpers/postgres-cluster.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CORPUS = join(ROOT, '../shared/corpus');
const JOB_TIMEOUT_MS = 180_000;
const QUERIES = ['closing balance savings account', 'invoice total amount due', 'zakat kutipan', 'fixed deposit renewal', 'amazon web services invoice'];

/** Runs `hds` as a person would, to its exit. */
function hds(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['src/cli.ts', ...args], { cwd: ROOT, env: childEnv(env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** An answer without what differs between two identical requests (their timing). */
function stable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stable);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => key !== 'query_time_ms').map(([key, inner]) => [key, stable(inner)]));
}

/** What the original answers for Client alpha: searches (both scopes), the list with deleted rows, every text. */
async function alphaAnswers(url: string, documentIds: string[]): Promise<Record<string, unknown>> {
  const answers: Record<string, unknown> = {};
  for (const query of QUERIES) {
    for (const scope of ['content', 'both']) {
      const search = await api(url, '/search', { key: KEYS.alpha, body: { query, scope, limit: 20, highlight: true, include_deleted: true } });
      assert.equal(search.status, 200, search.text);
      answers[`search ${scope} ${query}`] = stable(search.json);
    }
  }
  const list = await api(url, '/documents?limit=100&include_deleted=true', { key: KEYS.alpha });
  assert.equal(list.status, 200, list.text);
  answers.list = list.json;
  for (const id of documentIds) {
    const text = await api(url, `/document/${encodeURIComponent(id)}/text?include_deleted=true`, { key: KEYS.alpha });
    answers[`text ${id}`] = { status: text.status, body: text.json };
  }
  return answers;
}

async function seedAlpha(url: string): Promise<string[]> {
  const jobs: string[] = [];
  const texts: Record<string, string> = {
    'stmt-march': 'Savings account statement for March. Closing balance RM 12,450.00 at the Kuala Lumpur branch.',
    'fd-renewal': 'Fixed deposit certificate renewed for twelve months at 3.1 per cent.',
    'letter-old': 'A letter about a closing balance dispute, since withdrawn.',
  };
  for (const [id, text] of Object.entries(texts)) {
    const accepted = await uploadText(url, KEYS.alpha, { document_id: id, version_id: 'v1', text, metadata: { branch: 'KL' } });
    assert.equal(accepted.status, 202, accepted.text);
    jobs.push(accepted.json.job_id);
  }
  for (const [id, file] of [['aws', 'pdf/inv_AmazonWebServices.pdf'], ['zakat', 'pdf/msd_malay_Isu_isu_pelaksanaan_kutipan_zakat.pdf']]) {
    const accepted = await uploadFile(url, KEYS.alpha, { document_id: id, metadata: JSON.stringify({ source: 'corpus' }) }, { name: file.split('/')[1], bytes: readFileSync(join(CORPUS, file)) });
    assert.equal(accepted.status, 202, JSON.stringify(accepted.json));
    jobs.push(accepted.json.job_id);
  }
  for (const job of jobs) assert.equal((await waitForJob(url, KEYS.alpha, job, { timeoutMs: JOB_TIMEOUT_MS })).status, 'completed');
  // A soft-deleted version: its deletion markers are part of what a backup keeps.
  assert.equal((await api(url, '/document/letter-old', { method: 'DELETE', key: KEYS.alpha })).status, 200);
  return [...Object.keys(texts), 'aws', 'zakat'];
}

/** Uploads to Client beta and searches Client alpha until stopped; beta's jobs that completed are listed in order. */
function startLoad(url: string) {
  const accepted: string[] = [];
  const completed: string[] = [];
  let stopped = false;
  let searches = 0;
  const uploads = (async () => {
    for (let n = 0; !stopped; n++) {
      const answer = await uploadText(url, KEYS.beta, { document_id: `load-${n}`, text: `Remittance advice ${n}: transfer of RM ${n * 100 + 7} to supplier ${n % 5} for invoice INV-${4000 + n}.` });
      if (answer.status !== 202) continue; // a wait past the busy timeout during the fence is a retryable 503
      accepted.push(answer.json.job_id);
      const job = await waitForJob(url, KEYS.beta, answer.json.job_id, { timeoutMs: JOB_TIMEOUT_MS });
      if (job.status === 'completed') completed.push(`load-${n}`);
    }
  })();
  const reads = (async () => {
    while (!stopped) {
      await api(url, '/search', { key: KEYS.alpha, body: { query: QUERIES[searches % QUERIES.length] } });
      searches++;
    }
  })();
  return {
    accepted,
    completed,
    searches: () => searches,
    async stop() {
      stopped = true;
      await Promise.all([uploads, reads]);
    },
  };
}

/** Beta's texts for `ids` as the service at `url` answers them. */
async function betaTexts(url: string, ids: readonly string[]): Promise<Map<string, unknown>> {
  const texts = new Map<string, unknown>();
  for (const id of ids) texts.set(id, (await api(url, `/document/${id}/text`, { key: KEYS.beta })).json);
  return texts;
}

async function stopServer(server: ChildServer): Promise<void> {
  assert.equal(await server.stop(), 0);
}

/** Takes the backup of the deployment at `dataDir` and lays it where a service started on `restoredDir` finds it. */
async function backupAndRestore(dataDir: string, restoredDir: string, archiveDir: string): Promise<void> {
  if (TEST_STORE === 'sqlite') {
    const archive = join(archiveDir, 'deployment.tar');
    const backup = await hds(['admin', 'backup', '--data-dir', dataDir, '--out', archive, '--json']);
    assert.equal(backup.code, 0, backup.stderr);
    const summary = JSON.parse(backup.stdout);
    assert.equal(summary.clients, 2, backup.stdout);
    // Never over an archive already there, never into a DATA_DIR that holds anything: both refused as usage.
    assert.equal((await hds(['admin', 'backup', '--data-dir', dataDir, '--out', archive])).code, 2);
    const occupied = join(archiveDir, 'occupied');
    mkdirSync(occupied);
    writeFileSync(join(occupied, 'notes.txt'), 'not a deployment');
    const refused = await hds(['admin', 'restore', archive, '--data-dir', occupied]);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /not empty/);
    assert.deepEqual(readFileSync(join(occupied, 'notes.txt'), 'utf8'), 'not a deployment');
    const restore = await hds(['admin', 'restore', archive, '--data-dir', restoredDir, '--json']);
    assert.equal(restore.code, 0, restore.stderr);
    assert.ok(existsSync(join(restoredDir, 'control.db')));
    return;
  }
  // PostgreSQL: pg_dump reads one snapshot of the whole database (every Client, the jobs, the uploaded files);
  // pg_restore lays it into a new, empty database. As the superuser: the application role's reads are
  // confined by row-level security to one Client at a time.
  const source = storeEnv(dataDir).DATABASE_URL.replace('://app@', '://postgres@');
  const target = storeEnv(restoredDir).DATABASE_URL;
  const dump = join(archiveDir, 'deployment.dump');
  const bin = serverBinDir();
  await run(join(bin, 'pg_dump'), ['--format=custom', '--file', dump, source]);
  await run(join(bin, 'pg_restore'), ['--exit-on-error', '--single-transaction', '--dbname', target.replace('://app@', '://postgres@'), dump]);
}

function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${command} exited ${code}: ${stderr}`))));
  });
}

test('a backup taken while uploads and searches go on restores to a deployment that answers as the original did', { timeout: 600_000 }, async () => {
  const dataDir = tempDataDir();
  const restoredDir = tempDataDir();
  const archiveDir = tempDataDir();
  removeDir(restoredDir); // restored into a directory that does not exist yet
  let original: ChildServer | undefined;
  let restored: ChildServer | undefined;
  try {
    original = await spawnServer(baseEnv(dataDir));
    const alphaIds = await seedAlpha(original.url);
    const before = await alphaAnswers(original.url, alphaIds);

    const load = startLoad(original.url);
    // The backup starts once the load is under way: some of beta's jobs completed, others in flight.
    while (load.completed.length < 3) await new Promise((resolve) => setTimeout(resolve, 20));
    const completedBefore = [...load.completed];
    await backupAndRestore(dataDir, restoredDir, archiveDir);
    // The load went on through the backup and after it.
    const searchesAtBackup = load.searches();
    while (load.completed.length < completedBefore.length + 2 || load.searches() < searchesAtBackup + 2) await new Promise((resolve) => setTimeout(resolve, 20));
    await load.stop();
    const accepted = [...load.accepted];
    const originalBeta = await betaTexts(original.url, load.completed);
    await stopServer(original);
    original = undefined;

    restored = await spawnServer(baseEnv(restoredDir));
    assert.deepEqual(await alphaAnswers(restored.url, alphaIds), before, 'Client alpha answers as before the backup');

    // Beta: every job the backup holds ends as the original's did, with the same text; one it does not hold
    // was accepted after the backup's instant. None is torn: each completed job's version reads whole.
    let held = 0;
    for (const [n, jobId] of accepted.entries()) {
      const status = await api(restored.url, `/status/${jobId}`, { key: KEYS.beta });
      if (status.status === 404) continue;
      assert.equal(status.status, 200, status.text);
      held++;
      const job = await waitForJob(restored.url, KEYS.beta, jobId, { timeoutMs: JOB_TIMEOUT_MS });
      assert.equal(job.status, 'completed', JSON.stringify(job));
      const id = `load-${n}`;
      const text = await api(restored.url, `/document/${id}/text`, { key: KEYS.beta });
      assert.equal(text.status, 200, text.text);
      if (originalBeta.has(id)) assert.deepEqual(text.json.chunks.map((chunk: { text: string }) => chunk.text), (originalBeta.get(id) as { chunks: { text: string }[] }).chunks.map((chunk) => chunk.text));
    }
    assert.ok(held >= completedBefore.length, `the backup holds every job completed before it started (${held} of ${completedBefore.length})`);
    const restoredBeta = await betaTexts(restored.url, completedBefore);
    for (const id of completedBefore) assert.deepEqual(restoredBeta.get(id), originalBeta.get(id), `${id} reads as it did`);
  } finally {
    if (original) await original.stop();
    if (restored) await restored.stop();
    removeDir(dataDir);
    removeDir(restoredDir);
    removeDir(archiveDir);
  }
});
