// The process topology end to end (DESIGN.md "Processes and the durable authority"): the real supervisor
// with two api processes sharing the port and a worker process, over one SQLite store in a temp DATA_DIR.
// Every read goes over a fresh connection, so consecutive reads land on different api processes.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import { api, baseEnv, KEYS, removeDir, spawnServer, startTestServer, tempDataDir, uploadText, waitForJob } from '../helpers/server.ts';
import type { ChildServer } from '../helpers/server.ts';
import { seedVersions } from '../helpers/seed.ts';

/** How long one request may go unanswered before the test treats it as a failed connection. */
const FRESH_TIMEOUT_MS = 10_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One HTTP request on its own connection (no keep-alive pool), so the kernel hands it to any api process. */
function fresh(url: string, path: string, options: { method?: string; key?: string; body?: unknown } = {}): Promise<{ status: number; json: any; headers: Record<string, unknown> }> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, {
      method: options.method ?? (body ? 'POST' : 'GET'),
      agent: false,
      headers: { ...(options.key ? { 'X-API-Key': options.key } : {}), ...(body ? { 'Content-Type': 'application/json' } : {}), Connection: 'close' },
    });
    req.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () => {
        let json: any = null;
        try {
          json = JSON.parse(text);
        } catch {
          json = null;
        }
        resolve({ status: response.statusCode ?? 0, json, headers: response.headers });
      });
    });
    req.on('error', reject);
    // A connection handed to an api process at the moment it is killed may never be answered.
    req.setTimeout(FRESH_TIMEOUT_MS, () => req.destroy(new Error(`no answer in ${FRESH_TIMEOUT_MS} ms`)));
    req.end(body);
  });
}

/** Children of a process, with their command lines (Linux /proc). */
function childrenOf(pid: number): { pid: number; args: string }[] {
  const children: { pid: number; args: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) children.push({ pid: Number(entry), args: readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ') });
    } catch {
      // gone meanwhile
    }
  }
  return children;
}

function childPids(server: ChildServer, role: 'api' | 'worker'): number[] {
  return childrenOf(server.child.pid!).filter((child) => child.args.includes(`src/${role}.ts`)).map((child) => child.pid);
}

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false> | T | null | undefined | false, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

async function searchIds(url: string, query: string, key: string = KEYS.alpha): Promise<{ status: number; view: string; ids: string[] }> {
  const response = await fresh(url, '/search', { key, body: { query, scope: 'content', limit: 20 } });
  return { status: response.status, view: response.json?.meta?.publication_view, ids: (response.json?.results ?? []).map((row: any) => `${row.document_version.document_id}/${row.document_version.version_id}`) };
}

async function setMode(url: string, mode: string): Promise<void> {
  const response = await fresh(url, '/admin/authority/mode', { key: KEYS.operator, body: { mode } });
  assert.equal(response.status, 200, JSON.stringify(response.json));
}

test('the supervisor runs API_PROCESSES api processes on one port and WORKER_PROCESSES workers', async () => {
  const server = await spawnServer(baseEnv(tempDataDir(), { API_PROCESSES: '2', WORKER_PROCESSES: '1' }));
  try {
    assert.equal(childPids(server, 'api').length, 2);
    assert.equal(childPids(server, 'worker').length, 1);
    const answering = new Set<number>();
    for (let i = 0; i < 20 && answering.size < 2; i++) answering.add((await fresh(server.url, '/health')).json.diagnostics.publication.recovery_evidence.process_id);
    assert.equal(answering.size, 2, 'both api processes answer on the shared port');
  } finally {
    assert.equal(await server.stop(), 0, 'SIGTERM drains every process and exits 0');
  }
});

test('RECOVERING is observable: an api process listens at once, answers /health and reads 503 until its snapshots are built', async () => {
  const dataDir = tempDataDir();
  await seedVersions(dataDir, 'client-alpha', 'kept', [{ versionId: 'v1', text: 'Safe deposit box rental agreement.' }]);
  const server = await spawnServer(baseEnv(dataDir, { API_PROCESSES: '2', RECOVERY_DELAY_MS: '3000' }), { until: 'listening' });
  try {
    const health = await fresh(server.url, '/health');
    assert.equal(health.status, 503);
    assert.equal(health.json.publishing.authority_mode, 'RECOVERING');
    assert.equal(health.json.components.publication, 'error');
    const search = await fresh(server.url, '/search', { key: KEYS.alpha, body: { query: 'safe deposit box' } });
    assert.equal(search.status, 503);
    assert.equal(search.json.error_code, 'publication_unavailable');
    assert.equal(search.headers['retry-after'], '1');
    assert.equal((await fresh(server.url, '/documents', { key: KEYS.alpha })).status, 503);
    await server.ready;
    for (let i = 0; i < 6; i++) {
      assert.equal((await fresh(server.url, '/health')).status, 200);
      assert.deepEqual((await searchIds(server.url, 'safe deposit box')).ids, ['kept/v1']);
    }
  } finally {
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
  const server = await startTestServer({ API_PROCESSES: '2' });
  try {
    const before = await uploadText(server.url, KEYS.alpha, { document_id: 'before', text: 'Overdraft facility letter for the Ipoh office.' });
    await waitForJob(server.url, KEYS.alpha, before.json.job_id);
    await setMode(server.url, 'FENCING');
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

test('MAINTENANCE held for 20 s: uploads and updates accepted meanwhile complete after READY, parsed once', async () => {
  // LOG_LEVEL warn: the worker logs one "ingest" line per parse, which the test counts.
  const server = await startTestServer({ API_PROCESSES: '2', LOG_LEVEL: 'warn' });
  try {
    const seed = await uploadText(server.url, KEYS.alpha, { document_id: 'kept', text: 'Standing instruction for the payroll account.' });
    await waitForJob(server.url, KEYS.alpha, seed.json.job_id);
    await setMode(server.url, 'MAINTENANCE');
    const maintenanceStarted = Date.now();
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
    await sleep(Math.max(0, 20_000 - (Date.now() - maintenanceStarted)));
    for (const jobId of [...uploads, update.json.job_id]) {
      const status = (await api(server.url, `/status/${jobId}`, { key: KEYS.alpha })).json.status;
      assert.ok(status === 'retrying' || status === 'processing' || status === 'started' || status === 'pending', `${jobId} still waits (${status})`);
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
  const server = await spawnServer(baseEnv(dataDir, { API_PROCESSES: '2', JOB_STAGE_DELAY_MS: '300', JOB_LEASE_SECONDS: '2' }));
  try {
    const seed = await uploadText(server.url, KEYS.alpha, { document_id: 'load', text: 'Fixed deposit placement confirmation.' });
    await waitForJob(server.url, KEYS.alpha, seed.json.job_id, { timeoutMs: 30_000 });
    const accepted = await uploadText(server.url, KEYS.alpha, { document_id: 'victim', text: 'Letter of credit amendment for the Kuching shipment.' });
    await waitForJob(server.url, KEYS.alpha, accepted.json.job_id, { until: (job) => job.status === 'processing' });
    const [worker] = childPids(server, 'worker');
    process.kill(worker, 'SIGKILL');

    // Search load across both api processes while one of them is killed.
    let stop = false;
    const outcomes: number[] = [];
    const load = (async () => {
      while (!stop) outcomes.push((await fresh(server.url, '/search', { key: KEYS.alpha, body: { query: 'fixed deposit' } }).catch(() => ({ status: 0 }))).status);
    })();
    await sleep(300);
    const [apiVictim] = childPids(server, 'api');
    process.kill(apiVictim, 'SIGKILL');
    await until('both kinds of process to be replaced', () => {
      const workers = childPids(server, 'worker');
      const apis = childPids(server, 'api');
      return workers.length === 1 && !workers.includes(worker) && apis.length === 2 && !apis.includes(apiVictim);
    });
    const job = await waitForJob(server.url, KEYS.alpha, accepted.json.job_id, { timeoutMs: 30_000 });
    assert.equal(job.status, 'completed', JSON.stringify(job));
    await sleep(500);
    stop = true;
    await load;
    assert.ok(outcomes.filter((status) => status === 200).length > 10, 'searches were served throughout');
    // A connection cut by the kill may fail; no answer is ever a 5xx other than a retryable 503.
    assert.deepEqual(outcomes.filter((status) => status >= 500 && status !== 503), []);
    assert.deepEqual((await searchIds(server.url, 'letter of credit Kuching')).ids, ['victim/victim']);
  } finally {
    await server.stop();
    removeDir(dataDir);
  }
});

test('a backfill and a soft delete of 2,000 versions run while searches stay fast and /health answers', async () => {
  const server = await startTestServer({ API_PROCESSES: '2' });
  try {
    const VERSIONS = 2000;
    await seedVersions(server.dataDir, 'client-alpha', 'bulk', Array.from({ length: VERSIONS }, (_, i) => ({ versionId: `v${i}`, text: `Bulk ledger entry ${i}: transfer to savings account ${1000 + i}.` })));
    const other = await uploadText(server.url, KEYS.alpha, { document_id: 'probe', text: 'Cheque clearing report for the Seremban branch.' });
    await waitForJob(server.url, KEYS.alpha, other.json.job_id);
    assert.equal((await fresh(server.url, '/documents?limit=1', { key: KEYS.alpha })).json.total, VERSIONS + 1);

    let stop = false;
    const searchLatencies: number[] = [];
    const healthLatencies: number[] = [];
    const searchers = Array.from({ length: 2 }, async () => {
      while (!stop) {
        const started = performance.now();
        const response = await fresh(server.url, '/search', { key: KEYS.alpha, body: { query: 'cheque clearing Seremban', limit: 10 } });
        searchLatencies.push(performance.now() - started);
        assert.equal(response.status, 200);
        await sleep(10);
      }
    });
    const health = (async () => {
      while (!stop) {
        const started = performance.now();
        const response = await fresh(server.url, '/health');
        healthLatencies.push(performance.now() - started);
        assert.equal(response.status, 200);
        await sleep(100);
      }
    })();
    const backfill = await fresh(server.url, '/admin/backfill', { key: KEYS.operator, body: { client_id: 'client-alpha' } });
    assert.equal(backfill.status, 202);
    const deleted = await fresh(server.url, '/document/bulk', { method: 'DELETE', key: KEYS.alpha });
    assert.equal(deleted.status, 200, JSON.stringify(deleted.json));
    assert.equal(deleted.json.deleted_chunks, VERSIONS);
    const backfillJob = await waitForJob(server.url, KEYS.alpha, backfill.json.job_id, { timeoutMs: 60_000 });
    assert.equal(backfillJob.status, 'completed', JSON.stringify(backfillJob));
    await sleep(300);
    stop = true;
    await Promise.all([...searchers, health]);
    assert.equal((await fresh(server.url, '/documents?limit=1', { key: KEYS.alpha })).json.total, 1);

    const sorted = [...searchLatencies].sort((a, b) => a - b);
    const p99 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))];
    assert.ok(sorted.length >= 50, `enough searches were measured (${sorted.length})`);
    process.stderr.write(server.server.stderr().split("\n").filter((l) => l.includes("DEBUG")).slice(-60).join("\n"));
    assert.ok(p99 < 100, `search p99 ${p99.toFixed(1)} ms stays under 100 ms (p50 ${sorted[Math.floor(sorted.length / 2)].toFixed(1)} ms, n=${sorted.length})`);
    assert.ok(Math.max(...healthLatencies) < 2000, `/health answered within 2 s (max ${Math.max(...healthLatencies).toFixed(0)} ms)`);
  } finally {
    await server.close();
    removeDir(server.dataDir);
  }
});
