// Reads keep answering while a large lifecycle write and a backfill run: every search and every /health answers
// 200 during the backfill and the soft delete of 2,000 versions, and the counts are right afterwards. How long
// they take meanwhile, next to the same load without writes, is bench/bulk-write-latency.ts's to measure.
// `npm test` runs it last and alone, as the serial tier (test/tiers.ts).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KEYS, removeDir, startTestServer, uploadText, waitForJob } from '../helpers/server.ts';
import { seedVersions } from '../helpers/seed.ts';
import { fresh, sleep, until } from '../helpers/processes.ts';

/**
 * How long one request may take here before it counts as unanswered: the test asks whether reads are answered at
 * all while the writes run (how fast is the benchmark's to say), and a write of 2,000 versions on a busy machine
 * takes seconds, so no answer the service gives arrives after it.
 */
const ANSWER_TIMEOUT_MS = 120_000;

test('a backfill and a soft delete of 2,000 versions run while searches and /health keep answering', async () => {
  const server = await startTestServer({ API_PROCESSES: '2' });
  // The load loops run until told to stop, in the finally block too: a failed assertion must not leave them running.
  let stop = false;
  try {
    const VERSIONS = 2000;
    await seedVersions(server.dataDir, 'client-alpha', 'bulk', Array.from({ length: VERSIONS }, (_, i) => ({ versionId: `v${i}`, text: `Bulk ledger entry ${i}: transfer to savings account ${1000 + i}.` })));
    const other = await uploadText(server.url, KEYS.alpha, { document_id: 'probe', text: 'Cheque clearing report for the Seremban branch.' });
    await waitForJob(server.url, KEYS.alpha, other.json.job_id);
    assert.equal((await fresh(server.url, '/documents?limit=1', { key: KEYS.alpha })).json.total, VERSIONS + 1);

    // Statuses of every answer, in order (0: the connection failed). The pauses only pace the load.
    const searches: number[] = [];
    const healths: number[] = [];
    const status = (request: Promise<{ status: number }>) => request.then((response) => response.status, () => 0);
    const searchers = Array.from({ length: 2 }, async () => {
      while (!stop) {
        searches.push(await status(fresh(server.url, '/search', { key: KEYS.alpha, body: { query: 'cheque clearing Seremban', limit: 10 }, timeoutMs: ANSWER_TIMEOUT_MS })));
        await sleep(10);
      }
    });
    const health = (async () => {
      while (!stop) {
        healths.push(await status(fresh(server.url, '/health', { timeoutMs: ANSWER_TIMEOUT_MS })));
        await sleep(100);
      }
    })();
    const backfill = await fresh(server.url, '/admin/backfill', { key: KEYS.operator, body: { client_id: 'client-alpha' }, timeoutMs: ANSWER_TIMEOUT_MS });
    assert.equal(backfill.status, 202);
    const searchesBeforeDelete = searches.length;
    const deleted = await fresh(server.url, '/document/bulk', { method: 'DELETE', key: KEYS.alpha, timeoutMs: ANSWER_TIMEOUT_MS });
    const searchesDuringDelete = searches.length - searchesBeforeDelete;
    assert.equal(deleted.status, 200, JSON.stringify(deleted.json));
    assert.equal(deleted.json.deleted_chunks, VERSIONS);
    const backfillJob = await waitForJob(server.url, KEYS.alpha, backfill.json.job_id, { timeoutMs: 120_000 });
    assert.equal(backfillJob.status, 'completed', JSON.stringify(backfillJob));
    // Both writes are done: reads go on answering after them too.
    const [searchesSoFar, healthsSoFar] = [searches.length, healths.length];
    await until('a search of each loader and a /health answered after the writes', () => searches.length >= searchesSoFar + 2 && healths.length > healthsSoFar);
    stop = true;
    await Promise.all([...searchers, health]);

    assert.ok(searchesDuringDelete > 0, 'searches were answered while the delete ran');
    assert.deepEqual(searches.filter((code) => code !== 200), [], `every search answered 200 (${searches.length} searches)`);
    assert.deepEqual(healths.filter((code) => code !== 200), [], `every /health answered 200 (${healths.length} probes)`);
    assert.equal((await fresh(server.url, '/documents?limit=1', { key: KEYS.alpha })).json.total, 1);
    const found = await fresh(server.url, '/search', { key: KEYS.alpha, body: { query: 'bulk ledger entry savings account', limit: 10 } });
    assert.equal(found.status, 200);
    assert.deepEqual(found.json.results.filter((row: any) => row.document_version.document_id === 'bulk'), [], 'no deleted version is served');
  } finally {
    stop = true;
    await server.close();
    removeDir(server.dataDir);
  }
});
