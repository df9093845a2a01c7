// GET /admin/authority shows an operator what the answering api process holds: its snapshots' estimate against
// the snapshot budget SERVING_MEMORY_BUDGET_MB leaves, its memory as Node sees it, and its segment thread's.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useTestServer, api, KEYS, uploadText, waitForJob } from '../helpers/server.ts';
import { SEGMENT_THREAD_RESERVE_BYTES } from '../../src/serving/memory-estimate.ts';

const BUDGET_MB = 1024;
// One api process, so the operator's read reaches the process that loaded the Client.
const server = useTestServer({ SERVING_MEMORY_BUDGET_MB: String(BUDGET_MB), API_PROCESSES: '1' });

test('the operator view counts the snapshots, the budget left for them, and the segment thread that built them', async () => {
  const accepted = await uploadText(server.url, KEYS.alpha, { document_id: 'statement-march', text: 'Penyata akaun simpanan bulan Mac. Closing balance RM 12,450.00.' });
  assert.equal(accepted.status, 202);
  assert.equal((await waitForJob(server.url, KEYS.alpha, accepted.json.job_id)).status, 'completed');
  const search = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'akaun simpanan', limit: 3 } });
  assert.equal(search.status, 200);
  assert.ok(search.json.results.length > 0);
  const admin = await api(server.url, '/admin/authority', { key: KEYS.operator });
  assert.equal(admin.status, 200);
  const { serving, memory } = admin.json;
  assert.ok(serving.clients >= 1 && serving.estimatedBytes > 0);
  // The budget bounds the whole process: the snapshots get it less the start-up size and the thread's reserve.
  assert.ok(serving.budgetBytes > 0 && serving.budgetBytes < BUDGET_MB * 1024 * 1024 - SEGMENT_THREAD_RESERVE_BYTES, `${serving.budgetBytes}`);
  assert.ok(memory.rss > memory.heapUsed && memory.heapUsed > 0);
  assert.ok(memory.segmentThread > 0 && memory.segmentThread < SEGMENT_THREAD_RESERVE_BYTES, `segment thread ${memory.segmentThread}`);
});
