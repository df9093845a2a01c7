// Scale-out on PostgreSQL, with the processes as separate hosts would run them: two api processes on two ports
// and two worker processes, each with a DATA_DIR of its own, started with the commands of `npm run api` and
// `npm run worker` (no supervisor links them), all on one database. Uploads go through one api and reads through
// the other; a worker is killed with SIGKILL in the middle of a job. Nothing accepted is lost, and every read on
// either api sees every publication committed before it began. SQLite has no such deployment (its store is the
// files of one DATA_DIR), so the test runs with the suites on PostgreSQL only.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { api, baseEnv, KEYS, removeDir, tempDataDir, uploadText, waitForJob } from '../helpers/server.ts';
import { childEnv } from '../helpers/child-env.ts';
import { storeEnv, TEST_STORE } from '../helpers/test-store.ts';
import { until } from '../helpers/processes.ts';
import { FaultHolds, faultPreload } from '../helpers/faults.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const START_TIMEOUT_MS = 60_000;
/** Six documents, each with a word no other holds, so a search names exactly one. */
const DOCUMENTS = ['kestrel', 'marzipan', 'quokka', 'zeppelin', 'tamarind', 'gondola'].map((word, i) => ({ id: `scale-${i}`, word }));

/** The arguments `npm run <script>` gives node (package.json), so the test starts what the README tells operators to. */
function scriptArgs(script: 'api' | 'worker'): string[] {
  const command = (JSON.parse(readFileSync(new URL('package.json', `file://${ROOT}`), 'utf8')) as { scripts: Record<string, string> }).scripts[script];
  const [program, ...args] = command.split(/\s+/);
  assert.equal(program, 'node', `npm run ${script} starts node`);
  return args;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

interface Started {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

/** Starts one process and resolves once its output matches `ready`. */
function start(script: 'api' | 'worker', env: Record<string, string>, ready: RegExp): Promise<Started> {
  const child = spawn(process.execPath, [...faultPreload(env), ...scriptArgs(script)], { cwd: ROOT, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} did not start in ${START_TIMEOUT_MS} ms: ${output}`));
    }, START_TIMEOUT_MS);
    const read = (chunk: Buffer) => {
      output += chunk;
      if (ready.test(output)) {
        clearTimeout(timer);
        resolve({ child, output: () => output, exited });
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code} before it started: ${output}`));
    });
  });
}

test('two api and two worker processes on one PostgreSQL: a worker killed mid-job loses nothing, and either api reads every publication', { skip: TEST_STORE !== 'postgres' ? 'needs the suites on PostgreSQL (TEST_STORE=postgres): separate hosts share no SQLite files' : false }, async () => {
  const dirs = { apiA: tempDataDir(), apiB: tempDataDir(), worker1: tempDataDir(), worker2: tempDataDir() };
  // One database for all four, named after the first directory; each process keeps its own DATA_DIR.
  const shared = storeEnv(dirs.apiA);
  const processes: Started[] = [];
  const holds = new FaultHolds(['job-stage']);
  try {
    const [portA, portB] = [await freePort(), await freePort()];
    const apiA = await start('api', baseEnv(dirs.apiA, { ...shared, PORT: String(portA) }), /ready on http/);
    processes.push(apiA);
    const apiB = await start('api', baseEnv(dirs.apiB, { ...shared, PORT: String(portB) }), /ready on http/);
    processes.push(apiB);
    const [urlA, urlB] = [`http://127.0.0.1:${portA}`, `http://127.0.0.1:${portB}`];
    // Worker 1 is held at the first stage of each job it takes, so a job is still running when it is killed; a
    // lost lease is claimed again after JOB_LEASE_SECONDS. The workers log each job they start (LOG_LEVEL info).
    const workerEnv = (dir: string, faults: Record<string, string> = {}) => baseEnv(dir, { ...shared, LOG_LEVEL: 'info', ...faults, JOB_LEASE_SECONDS: '2' });
    const worker1 = await start('worker', workerEnv(dirs.worker1, holds.env()), /worker \d+ started/);
    processes.push(worker1);
    const worker2 = await start('worker', workerEnv(dirs.worker2), /worker \d+ started/);
    processes.push(worker2);

    const jobs = new Map<string, string>();
    for (const { id, word } of DOCUMENTS) {
      const accepted = await uploadText(urlA, KEYS.alpha, { document_id: id, text: `Branch memo ${id}: the ${word} shipment was received and filed.` });
      assert.equal(accepted.status, 202, JSON.stringify(accepted.json));
      jobs.set(id, accepted.json.job_id);
    }
    // Kill worker 1 while it holds a job: it has logged the start of one, held at its first stage.
    await holds.reached('job-stage');
    const held = await until('worker 1 to start a job', async () => {
      for (const match of worker1.output().matchAll(/"event":"ingest","job_id":"([^"]+)"/g)) {
        const status = await api(urlA, `/status/${match[1]}`, { key: KEYS.alpha });
        if (status.json?.status === 'processing') return match[1];
      }
      return null;
    });
    worker1.child.kill('SIGKILL');
    await worker1.exited;

    // Every job ends completed (the killed one once its lease expires and worker 2 claims it). As each is seen
    // completed through api A, a read that begins afterwards on api B (and on A) already sees it.
    for (const { id, word } of DOCUMENTS) {
      const job = await waitForJob(urlA, KEYS.alpha, jobs.get(id)!, { timeoutMs: 60_000 });
      assert.equal(job.status, 'completed', `${id}: ${JSON.stringify(job)}`);
      for (const url of [urlB, urlA]) {
        const search = await api(url, '/search', { key: KEYS.alpha, body: { query: word, scope: 'content' } });
        assert.equal(search.status, 200, JSON.stringify(search.json));
        assert.deepEqual(search.json.results.map((row: any) => row.document_version.document_id), [id], `${url} searched ${word}`);
        const text = await api(url, `/document/${id}/text`, { key: KEYS.alpha });
        assert.equal(text.status, 200, `${url} reads the text of ${id}: ${text.text}`);
        assert.match(JSON.stringify(text.json), new RegExp(word));
      }
    }
    const killed = await api(urlB, `/status/${held}`, { key: KEYS.alpha });
    assert.equal(killed.json.status, 'completed', 'the job of the killed worker completed on the other one');
    const listed = await api(urlB, '/documents?limit=100', { key: KEYS.alpha });
    assert.deepEqual(listed.json.documents.map((row: any) => row.document_id).sort(), DOCUMENTS.map((doc) => doc.id).sort());
  } finally {
    for (const started of processes) started.child.kill('SIGTERM');
    await Promise.all(processes.map((started) => started.exited));
    for (const dir of Object.values(dirs)) removeDir(dir);
    holds.remove();
  }
});
