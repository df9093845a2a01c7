import { test } from 'node:test';
import assert from 'node:assert/strict';
import { api, KEYS, removeDir, spawnServer, baseEnv, tempDataDir, uploadText, waitForJob } from '../helpers/server.ts';
import { FaultHolds } from '../helpers/faults.ts';

test('an accepted job completes after the process is killed mid-way and restarted', async () => {
  const dataDir = tempDataDir();
  // The first service's worker is held at the job's first ingestion stage, so the kill lands while it processes.
  const holds = new FaultHolds(['job-stage']);
  const env = baseEnv(dataDir, { JOB_LEASE_SECONDS: '1' });
  try {
    const first = await spawnServer({ ...env, ...holds.env() });
    const accepted = await uploadText(first.url, KEYS.alpha, { document_id: 'crash-doc', text: 'The wire transfer reference is TRX-99812 for the Melaka branch.' });
    assert.equal(accepted.status, 202);
    await holds.reached('job-stage');
    const processing = (await api(first.url, `/status/${accepted.json.job_id}`, { key: KEYS.alpha })).json;
    assert.equal(processing.status, 'processing');
    await first.crash();
    await first.exited;

    const second = await spawnServer(env);
    try {
      const job = await waitForJob(second.url, KEYS.alpha, accepted.json.job_id, { timeoutMs: 20_000 });
      assert.equal(job.status, 'completed', JSON.stringify(job));
      const search = await api(second.url, '/search', { key: KEYS.alpha, body: { query: 'wire transfer Melaka' } });
      assert.equal(search.json.results[0]?.document_version.document_id, 'crash-doc');
    } finally {
      second.child.kill('SIGTERM');
      assert.equal(await second.exited, 0, 'graceful shutdown exits 0');
    }
  } finally {
    holds.remove();
    removeDir(dataDir);
  }
});

test('published state survives a restart: snapshots are rebuilt from SQLite', async () => {
  const dataDir = tempDataDir();
  const env = baseEnv(dataDir);
  try {
    const first = await spawnServer(env);
    const accepted = await uploadText(first.url, KEYS.beta, { document_id: 'kept', version_id: 'v1', text: 'Fixed deposit certificate renewed for twelve months.' });
    await waitForJob(first.url, KEYS.beta, accepted.json.job_id);
    first.child.kill('SIGTERM');
    assert.equal(await first.exited, 0);
    const second = await spawnServer(env);
    try {
      const search = await api(second.url, '/search', { key: KEYS.beta, body: { query: 'fixed deposit certificate' } });
      assert.deepEqual(search.json.results[0].document_version, { document_id: 'kept', version_id: 'v1' });
      const job = await api(second.url, `/status/${accepted.json.job_id}`, { key: KEYS.beta });
      assert.equal(job.json.status, 'completed');
      assert.equal(job.json.search_ready, true);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  } finally {
    removeDir(dataDir);
  }
});
