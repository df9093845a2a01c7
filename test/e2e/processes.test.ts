// The process topology end to end (DESIGN.md "Processes and the durable authority"): the real supervisor
// with two api processes sharing the port and a worker process, over one store (SQLite files in a temp DATA_DIR,
// or PostgreSQL when the suites run on it).
// Every read goes over a fresh connection, so consecutive reads land on different api processes.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { api, baseEnv, KEYS, removeDir, spawnServer, startTestServer, tempDataDir, TERMINAL, uploadText, waitForJob } from '../helpers/server.ts';
import { seedVersions } from '../helpers/seed.ts';
import { childPids, fresh, searchIds, setMode, until } from '../helpers/processes.ts';
import { MAX_JOB_ATTEMPTS } from '../../src/spec-limits.ts';
import { controlSql, TEST_STORE } from '../helpers/test-store.ts';
import { FaultHolds, faultPauses } from '../helpers/faults.ts';

/**
 * Resolves once each job has gone back to waiting for publication `times` times. Each time a waiting job is
 * claimed and finds publication still paused, the worker hands it back (status retrying, no attempt spent) with
 * a new next_run_at; GET /status shows neither (next_retry_in_seconds is rounded up to whole seconds), so the
 * distinct next_run_at values of its retrying record are read from the control database.
 */
async function waitsAtLeast(dataDir: string, jobIds: string[], times: number): Promise<void> {
  const seen = new Map(jobIds.map((jobId) => [jobId, new Set<string>()]));
  const read = `SELECT job_id, status, next_run_at FROM jobs WHERE job_id IN (${jobIds.map(() => '?').join(', ')})`;
  await until(`each job to go back to waiting ${times} times`, async () => {
    for (const row of (await controlSql(dataDir, read, ...jobIds)) as { job_id: string; status: string; next_run_at: unknown }[]) {
      assert.ok(!TERMINAL.has(row.status), `${row.job_id} ended (${row.status}) while publication was paused`);
      if (row.status === 'retrying') seen.get(row.job_id)!.add(String(row.next_run_at instanceof Date ? row.next_run_at.getTime() : row.next_run_at));
    }
    return [...seen.values()].every((waits) => waits.size >= times);
  }, 120_000);
}

test('the supervisor runs API_PROCESSES api processes on one port and WORKER_PROCESSES workers', { skip: TEST_STORE === 'postgres' ? 'the processes, their flags and their environment do not depend on the store: the SQLite pass runs it' : false }, async () => {
  const dataDir = tempDataDir();
  // Without the suite's shared compile cache, so the supervisor chooses its own (in DATA_DIR). That one starts as a
  // copy of the suite's: where the cache is is the subject, not four processes compiling every module cold.
  if (process.env.NODE_COMPILE_CACHE) cpSync(process.env.NODE_COMPILE_CACHE, join(dataDir, 'compile-cache'), { recursive: true });
  const server = await spawnServer(baseEnv(dataDir, { API_PROCESSES: '2', WORKER_PROCESSES: '1', V8_MAX_SEMI_SPACE_MB: '12', MALLOC_MMAP_THRESHOLD_: '65536', API_MALLOC_MMAP_THRESHOLD: '12288' }), { sharedCompileCache: false });
  try {
    assert.equal(childPids(server, 'api').length, 2);
    assert.equal(childPids(server, 'worker').length, 1);
    for (const pid of [...childPids(server, 'api'), ...childPids(server, 'worker')]) {
      // Memory settings reach every child: V8's young generation by flag, glibc's threshold by environment.
      const flags = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      assert.ok(flags.includes('--max-semi-space-size=12'), `process ${pid} flags`);
      const role = childPids(server, 'api').includes(pid) ? 'api' : 'worker';
      assert.equal(flags.includes('--min-semi-space-size=12'), role === 'api', `${role} process ${pid}: an api process has its young generation whole from the start`);
      assert.equal(flags.includes('--no-allocation-site-pretenuring'), role === 'api', `${role} process ${pid}: an api process's per-search objects are never allocated old`);
      assert.equal(flags.includes('--heap-growing-percent=25'), role === 'api', `${role} process ${pid}: an api process's old generation grows at most 1.25 times between full collections`);
      const environment = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      assert.ok(environment.includes(`MALLOC_MMAP_THRESHOLD_=${role === 'api' ? 12288 : 65536}`), `${role} process ${pid} environment`);
      assert.ok(environment.includes(`NODE_COMPILE_CACHE=${join(dataDir, 'compile-cache')}`), `process ${pid} compile cache`);
    }
    const answering = new Set<number>();
    for (let i = 0; i < 20 && answering.size < 2; i++) answering.add((await fresh(server.url, '/health')).json.diagnostics.publication.recovery_evidence.process_id);
    assert.equal(answering.size, 2, 'both api processes answer on the shared port');
  } finally {
    assert.equal(await server.stop(), 0, 'SIGTERM drains every process and exits 0');
    removeDir(dataDir);
  }
});

test('RECOVERING is observable: an api process listens at once, answers /health and reads 503 until its snapshots are built', async () => {
  const dataDir = tempDataDir();
  await seedVersions(dataDir, 'client-alpha', 'kept', [{ versionId: 'v1', text: 'Safe deposit box rental agreement.' }]);
  // Both api processes are held before they build their snapshots until the test has seen RECOVERING on them.
  const holds = new FaultHolds(['recovery']);
  const server = await spawnServer(baseEnv(dataDir, { API_PROCESSES: '2', ...holds.env() }), { until: 'listening' });
  try {
    await holds.reached('recovery');
    await holds.reached('recovery');
    const health = await fresh(server.url, '/health');
    assert.equal(health.status, 503);
    assert.equal(health.json.publishing.authority_mode, 'RECOVERING');
    assert.equal(health.json.components.publication, 'error');
    const search = await fresh(server.url, '/search', { key: KEYS.alpha, body: { query: 'safe deposit box' } });
    assert.equal(search.status, 503);
    assert.equal(search.json.error_code, 'publication_unavailable');
    assert.equal(search.headers['retry-after'], '1');
    assert.equal((await fresh(server.url, '/documents', { key: KEYS.alpha })).status, 503);
    // SPEC.md PATCH /update: publication unavailable is a 503; nothing is queued.
    const patch = await fresh(server.url, '/update', { method: 'PATCH', key: KEYS.alpha, body: { document_id: 'kept', metadata: { reviewed: true } } });
    assert.equal(patch.status, 503, JSON.stringify(patch.json));
    assert.equal(patch.json.error_code, 'publication_unavailable');
    assert.equal(patch.headers['retry-after'], '1');
    holds.open('recovery');
    await server.ready;
    for (let i = 0; i < 6; i++) {
      assert.equal((await fresh(server.url, '/health')).status, 200);
      assert.deepEqual((await searchIds(server.url, 'safe deposit box')).ids, ['kept/v1']);
    }
    assert.deepEqual(await controlSql(dataDir, `SELECT job_id FROM jobs WHERE operation = 'metadata_update'`), [], 'the refused patch queued nothing');
  } finally {
    holds.remove();
    await server.stop();
    removeDir(dataDir);
  }
});

test('read-your-writes across api processes: upload, soft delete, restore and update are seen by every next read', async () => {
  const server = await startTestServer({ API_PROCESSES: '2', FOLLOWER_POLL_MS: '60000' });
  try {
    const READS = 30;
    const text = 'Quarterly remittance advice for the Penang branch, reference RMT-5521.';
    const accepted = await uploadText(server.url, KEYS.alpha, { document_id: 'ryw', text, metadata: { stage: 'draft' } });
    assert.equal((await waitForJob(server.url, KEYS.alpha, accepted.json.job_id)).status, 'completed');
    // The background follower is slowed to a minute: only the read guard can make these reads current.
    for (let i = 0; i < READS; i++) {
      const found = await searchIds(server.url, 'remittance advice Penang');
      assert.deepEqual(found.ids, ['ryw/ryw'], `read ${i} after the upload`);
      const status = await fresh(server.url, `/status/${accepted.json.job_id}`, { key: KEYS.alpha });
      assert.equal(status.json.search_ready, true, `status read ${i} after the upload`);
    }
    assert.equal((await fresh(server.url, '/document/ryw', { method: 'DELETE', key: KEYS.alpha })).status, 200);
    for (let i = 0; i < READS; i++) {
      assert.deepEqual((await searchIds(server.url, 'remittance advice Penang')).ids, [], `read ${i} after the soft delete`);
      assert.equal((await fresh(server.url, '/document/ryw/text', { key: KEYS.alpha })).status, 404);
    }
    assert.equal((await fresh(server.url, '/document/ryw/restore', { method: 'POST', key: KEYS.alpha })).status, 200);
    for (let i = 0; i < READS; i++) {
      assert.deepEqual((await searchIds(server.url, 'remittance advice Penang')).ids, ['ryw/ryw'], `read ${i} after the restore`);
      assert.equal((await fresh(server.url, '/documents', { key: KEYS.alpha })).json.total, 1);
    }
    const update = await fresh(server.url, '/update', { method: 'PATCH', key: KEYS.alpha, body: { document_id: 'ryw', metadata: { stage: 'final' } } });
    assert.equal((await waitForJob(server.url, KEYS.alpha, update.json.job_id)).status, 'completed');
    for (let i = 0; i < READS; i++) {
      const document = await fresh(server.url, '/document/ryw/text', { key: KEYS.alpha });
      assert.equal(document.json.metadata.custom.stage, 'final', `read ${i} after the update`);
    }
  } finally {
    await server.close();
    removeDir(server.dataDir);
  }
});

test('two keys of one Client share one rate-limit budget whichever api process answers', async () => {
  const server = await startTestServer({ API_PROCESSES: '2', RATE_LIMIT_PER_MINUTE: '10' });
  try {
    const statuses: number[] = [];
    for (let i = 0; i < 14; i++) statuses.push((await fresh(server.url, '/documents', { key: i % 2 === 0 ? KEYS.alpha : KEYS.alpha2 })).status);
    assert.deepEqual(statuses, [...Array(10).fill(200), ...Array(4).fill(429)]);
    assert.equal((await fresh(server.url, '/documents', { key: KEYS.beta })).status, 200, 'another Client has its own budget');
  } finally {
    await server.close();
    removeDir(server.dataDir);
  }
});

test('FENCING pins reads to the last READY publication: an upload made meanwhile appears only after READY', async () => {
  // The background follower is slowed to a minute: what an api process serves comes from its read guard.
  const server = await startTestServer({ API_PROCESSES: '2', FOLLOWER_POLL_MS: '60000' });
  try {
    const before = await uploadText(server.url, KEYS.alpha, { document_id: 'before', text: 'Overdraft facility letter for the Ipoh office.' });
    await waitForJob(server.url, KEYS.alpha, before.json.job_id);
    await setMode(server.url, 'FENCING');
    // Every api process serves what was published before the fence, whether or not it had applied it yet.
    for (let i = 0; i < 6; i++) assert.deepEqual((await searchIds(server.url, 'overdraft facility Ipoh')).ids, ['before/before'], `pinned read ${i}`);
    const during = await uploadText(server.url, KEYS.alpha, { document_id: 'during', text: 'Overdraft facility renewal notice for the Ipoh office.' });
    assert.equal(during.status, 202);
    // The writer stages and waits; reads stay pinned to what was READY.
    await until('the fenced job to wait', async () => (await api(server.url, `/status/${during.json.job_id}`, { key: KEYS.alpha })).json.status === 'retrying');
    for (let i = 0; i < 10; i++) {
      const found = await searchIds(server.url, 'overdraft facility Ipoh');
      assert.equal(found.status, 200);
      assert.equal(found.view, 'pinned_ready');
      assert.deepEqual(found.ids, ['before/before']);
    }
    await setMode(server.url, 'READY');
    assert.equal((await waitForJob(server.url, KEYS.alpha, during.json.job_id)).status, 'completed');
    for (let i = 0; i < 10; i++) {
      const found = await searchIds(server.url, 'overdraft facility Ipoh');
      assert.equal(found.view, 'ready');
      assert.deepEqual(found.ids.sort(), ['before/before', 'during/during']);
    }
  } finally {
    await server.close();
    removeDir(server.dataDir);
  }
});

test('MAINTENANCE held while each waiting job finds it more times than a job has attempts: uploads and updates accepted meanwhile complete after READY, parsed once', async () => {
  // LOG_LEVEL info (requests at debug, unwritten): the worker logs one "ingest" line per parse, which the test counts.
  const server = await startTestServer({ API_PROCESSES: '2', LOG_LEVEL: 'info', REQUEST_LOG_LEVEL: 'debug' });
  try {
    const seed = await uploadText(server.url, KEYS.alpha, { document_id: 'kept', text: 'Standing instruction for the payroll account.' });
    await waitForJob(server.url, KEYS.alpha, seed.json.job_id);
    await setMode(server.url, 'MAINTENANCE');
    const search = await fresh(server.url, '/search', { key: KEYS.alpha, body: { query: 'payroll' } });
    assert.equal(search.status, 503);
    assert.equal(search.headers['retry-after'], '1');
    const uploads: string[] = [];
    for (const id of ['m1', 'm2', 'm3']) uploads.push((await uploadText(server.url, KEYS.alpha, { document_id: id, text: `Maintenance window upload ${id}: salary transfer batch.` })).json.job_id);
    const update = await fresh(server.url, '/update', { method: 'PATCH', key: KEYS.alpha, body: { document_id: 'kept', metadata: { reviewed: true } } });
    assert.equal(update.status, 202);
    const waiting = await until('an upload to wait for publication', async () => {
      const status = (await api(server.url, `/status/${uploads[0]}`, { key: KEYS.alpha })).json;
      return status.status === 'retrying' ? status : null;
    });
    assert.equal(typeof waiting.next_retry_in_seconds, 'number');
    assert.match(waiting.error, /MAINTENANCE/);
    // Were a wait to spend an attempt, every job would have failed by now.
    await waitsAtLeast(server.dataDir, [...uploads, update.json.job_id], MAX_JOB_ATTEMPTS + 1);
    for (const jobId of [...uploads, update.json.job_id]) {
      const status = (await api(server.url, `/status/${jobId}`, { key: KEYS.alpha })).json;
      assert.ok(['retrying', 'processing', 'started', 'pending'].includes(status.status), `${jobId} still waits (${status.status})`);
      if (status.status === 'retrying') assert.equal(status.retry_count, 0, `${jobId} spent no attempt waiting`);
    }
    await setMode(server.url, 'READY');
    for (const jobId of uploads) assert.equal((await waitForJob(server.url, KEYS.alpha, jobId)).status, 'completed');
    assert.equal((await waitForJob(server.url, KEYS.alpha, update.json.job_id)).status, 'completed');
    assert.deepEqual((await searchIds(server.url, 'salary transfer batch')).ids.sort(), ['m1/m1', 'm2/m2', 'm3/m3']);
    assert.equal((await fresh(server.url, '/document/kept/text', { key: KEYS.alpha })).json.metadata.custom.reviewed, true);
    const ingests = server.server.stdout().split('\n').filter((line) => line.includes('"event":"ingest"'));
    for (const jobId of uploads) assert.equal(ingests.filter((line) => line.includes(jobId)).length, 1, `${jobId} was parsed exactly once`);
  } finally {
    await server.close();
    removeDir(server.dataDir);
  }
});

test('SIGKILL of a worker mid-job and of an api process under search load: nothing accepted is lost, both restart', async () => {
  const dataDir = tempDataDir();
  // The seed goes through unheld; the victim's job is held at its first stage until its worker is killed there.
  const holds = new FaultHolds(['job-stage']);
  holds.open('job-stage');
  const server = await spawnServer(baseEnv(dataDir, { API_PROCESSES: '2', ...holds.env(), JOB_LEASE_SECONDS: '2' }));
  try {
    const seed = await uploadText(server.url, KEYS.alpha, { document_id: 'load', text: 'Fixed deposit placement confirmation.' });
    await waitForJob(server.url, KEYS.alpha, seed.json.job_id, { timeoutMs: 30_000 });
    holds.close('job-stage');
    const accepted = await uploadText(server.url, KEYS.alpha, { document_id: 'victim', text: 'Letter of credit amendment for the Kuching shipment.' });
    await holds.reached('job-stage');
    const [worker] = childPids(server, 'worker');
    process.kill(worker, 'SIGKILL');
    holds.open('job-stage');

    // Search load across both api processes while one of them is killed.
    let stop = false;
    const outcomes: number[] = [];
    const load = (async () => {
      while (!stop) outcomes.push((await fresh(server.url, '/search', { key: KEYS.alpha, body: { query: 'fixed deposit' } }).catch(() => ({ status: 0 }))).status);
    })();
    const served = () => outcomes.filter((status) => status === 200).length;
    await until('searches to be served before the kill', () => served() >= 5);
    const [apiVictim] = childPids(server, 'api');
    process.kill(apiVictim, 'SIGKILL');
    await until('both kinds of process to be replaced', () => {
      const workers = childPids(server, 'worker');
      const apis = childPids(server, 'api');
      return workers.length === 1 && !workers.includes(worker) && apis.length === 2 && !apis.includes(apiVictim);
    });
    const job = await waitForJob(server.url, KEYS.alpha, accepted.json.job_id, { timeoutMs: 30_000 });
    assert.equal(job.status, 'completed', JSON.stringify(job));
    const servedBeforeRestart = served();
    await until('searches to be served after both processes were replaced', () => served() >= servedBeforeRestart + 5);
    stop = true;
    await load;
    // A connection cut by the kill may fail; no answer is ever a 5xx other than a retryable 503.
    assert.deepEqual(outcomes.filter((status) => status >= 500 && status !== 503), []);
    assert.deepEqual((await searchIds(server.url, 'letter of credit Kuching')).ids, ['victim/victim']);
  } finally {
    holds.remove();
    await server.stop();
    removeDir(dataDir);
  }
});

test('a job longer than its lease keeps it through heartbeats and is processed once', async () => {
  // Four ingestion stages of 800 ms each: about three times the one-second lease.
  // LOG_LEVEL info (requests at debug, unwritten): the worker logs one "ingest" line per parse.
  const server = await startTestServer({ JOB_LEASE_SECONDS: '1', ...faultPauses({ 'job-stage': 800 }), LOG_LEVEL: 'info', REQUEST_LOG_LEVEL: 'debug' });
  try {
    const accepted = await uploadText(server.url, KEYS.alpha, { document_id: 'long', text: 'Standing instruction renewal for the Kota Bharu branch.' });
    const job = await waitForJob(server.url, KEYS.alpha, accepted.json.job_id, { timeoutMs: 30_000 });
    assert.equal(job.status, 'completed');
    const ingests = server.server.stdout().split('\n').filter((line) => line.includes('"event":"ingest"') && line.includes(accepted.json.job_id));
    assert.equal(ingests.length, 1, 'no other claim took the job over while it ran');
  } finally {
    await server.close();
    removeDir(server.dataDir);
  }
});

// When a lease is claimed again (at its expiry, not before) is job-store.test.ts's to show on an injected clock;
// here the default lease (10 s) runs out for real, so the wait for the job allows ten times that.
test('a crashed worker\'s job is taken over with the default lease and completed by the next claim', async () => {
  // LOG_LEVEL info (requests at debug, unwritten): the worker logs one "ingest" line per parse, with its attempt.
  // The first attempt is held at its first ingestion stage (it has logged its parse) until its worker is killed.
  const holds = new FaultHolds(['job-stage']);
  const server = await startTestServer({ ...holds.env(), LOG_LEVEL: 'info', REQUEST_LOG_LEVEL: 'debug' });
  try {
    const accepted = await uploadText(server.url, KEYS.alpha, { document_id: 'orphan', text: 'Bank guarantee for the Kuantan port tender.' });
    const attempts = () => server.server.stdout().split('\n').filter((line) => line.includes('"event":"ingest"') && line.includes(accepted.json.job_id)).map((line) => JSON.parse(line).attempt);
    await holds.reached('job-stage');
    await until('the first attempt to log its parse', () => attempts().length === 1);
    const [worker] = childPids(server.server, 'worker');
    process.kill(worker, 'SIGKILL');
    holds.open('job-stage');
    const job = await waitForJob(server.url, KEYS.alpha, accepted.json.job_id, { timeoutMs: 120_000 });
    assert.equal(job.status, 'completed');
    assert.deepEqual(attempts(), [1, 2], 'parsed by the crashed worker, then once more by the one that took the job over');
  } finally {
    holds.remove();
    await server.close();
    removeDir(server.dataDir);
  }
});
