// GET /status rendering against a real store: a finished backfill job shows its Client's readiness as it is
// now, not as the job left it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Storage } from '../../src/storage/sqlite/sqlite-storage.ts';
import { renderJob } from '../../src/reads/job-view.ts';
import type { ClientSnapshot } from '../../src/serving/snapshot.ts';
import { removeDir, tempDataDir } from '../helpers/server.ts';

test("a backfill refused while another ran shows the Client's current readiness once that one converged", async () => {
  const dir = tempDataDir();
  const storage = new Storage(dir);
  try {
    const running = await storage.jobs.enqueue({ clientId: 'c1', operation: 'metadata_backfill', documentId: '', versionKey: null, request: {}, maxAttempts: 3 });
    const refused = await storage.jobs.enqueue({ clientId: 'c1', operation: 'metadata_backfill', documentId: '', versionKey: null, request: {}, maxAttempts: 3 });
    await storage.discovery.setReadiness('c1', 'backfilling', running.jobId);
    await storage.jobs.claim('w1', 30_000);
    await storage.jobs.claim('w2', 30_000);
    // The refusal records the readiness of the moment: the other run was backfilling.
    await storage.jobs.finish(refused.jobId, 'w2', {
      status: 'failed',
      error: 'A backfill is already running',
      errorDetails: { code: 'backfill_already_running', running_job_id: running.jobId },
      result: { readiness_state: 'backfilling', next_retry_in_seconds: 10 },
    });
    const deps = { storage, publicationEnabled: true, snapshot: {} as ClientSnapshot };
    const during = await renderJob((await storage.jobs.get('c1', refused.jobId))!, deps);
    assert.equal(during.readiness_state, 'backfilling');
    // The other run converges.
    await storage.discovery.setReadiness('c1', 'ready', running.jobId);
    await storage.jobs.finish(running.jobId, 'w1', { status: 'completed', result: { readiness_state: 'ready' } });
    const after = await renderJob((await storage.jobs.get('c1', refused.jobId))!, deps);
    assert.equal(after.status, 'failed');
    assert.equal(after.readiness_state, 'ready');
    assert.equal((after.error_details as { code: string }).code, 'backfill_already_running');
  } finally {
    storage.close();
    removeDir(dir);
  }
});
