// SPEC.md "Health probe deadline": each readiness or diagnostic read has 2 seconds. A publication log held
// under an exclusive lock by another process makes the state-store probe really block (SQLite waits out its
// 5-second busy timeout, PostgreSQL waits for the lock); /health answers with that component failed and the others read, and requests that
// need no store are not held meanwhile (test/health/health-probes.test.ts shows the deadline is what fired). On
// SQLite nothing of the locked Client is read by the api process itself, so only the probe meets the lock; on
// PostgreSQL the lock holds every Client's log, and what does not read it (the authority record) still answers.
// Another /health call made meanwhile has its probes queued behind the stuck one: the stuck probe's deadline fails
// only that call's state store, and the other call's probes are made again on the new probe thread.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { removeDir, startTestServer, tempDataDir } from '../helpers/server.ts';
import { seedVersions } from '../helpers/seed.ts';
import { fresh, until } from '../helpers/processes.ts';
import { holdPublicationLogLock } from '../helpers/test-store.ts';

test('a state-store probe that blocks fails its component at the deadline; /health still answers and nothing else waits', async () => {
  const dataDir = tempDataDir();
  // Alpha first: the lane schemas /health reports are read from the first Client's store, so only the state-store
  // probe opens beta's.
  await seedVersions(dataDir, 'client-alpha', 'memo', [{ versionId: 'v1', text: 'Memo on branch opening hours.' }]);
  await seedVersions(dataDir, 'client-beta', 'ledger', [{ versionId: 'v1', text: 'Quarterly ledger for the Ipoh office.' }]);
  const server = await startTestServer({ API_PROCESSES: '1' }, dataDir);
  let release: (() => Promise<void>) | null = null;
  try {
    try {
      assert.equal((await fresh(server.url, '/health')).json.components.state_store, 'ok');
      release = await holdPublicationLogLock(dataDir, 'client-beta');
      let healthAnswered = false;
      const health = fresh(server.url, '/health').then((answer) => {
        healthAnswered = true;
        return answer;
      });
      // While the probe is stuck the process keeps answering what needs no store (here: a request without a key).
      const unheld = await fresh(server.url, '/openapi.json');
      assert.equal(unheld.status, 401);
      assert.equal(healthAnswered, false, 'answered while /health still waited for its probe');
      const answer = await health;
      assert.equal(answer.status, 200, JSON.stringify(answer.json));
      assert.equal(answer.json.status, 'degraded');
      assert.equal(answer.json.components.state_store, 'error');
      assert.equal(answer.json.components.publication, 'ok', 'the authority record was read before the stuck probe');
    } finally {
      await release?.();
    }
    await until('the state store to read again', async () => (await fresh(server.url, '/health')).json?.components?.state_store === 'ok');
  } finally {
    // Also when an assertion failed above: a server left running would keep the test process alive.
    await server.close();
    removeDir(dataDir);
  }
});

test('two /health calls during a blocked state-store probe: each fails its own state store only, neither answers 503', async () => {
  const dataDir = tempDataDir();
  await seedVersions(dataDir, 'client-alpha', 'memo', [{ versionId: 'v1', text: 'Memo on branch opening hours.' }]);
  await seedVersions(dataDir, 'client-beta', 'ledger', [{ versionId: 'v1', text: 'Quarterly ledger for the Ipoh office.' }]);
  const server = await startTestServer({ API_PROCESSES: '1' }, dataDir);
  let release: (() => Promise<void>) | null = null;
  try {
    try {
      assert.equal((await fresh(server.url, '/health')).json.components.state_store, 'ok');
      release = await holdPublicationLogLock(dataDir, 'client-beta');
      // Both made at once, well within the 2 seconds the first call's blocked probe holds the thread: the second
      // call's probes wait behind it, and the first one's missed deadline gives that thread up under them.
      const answers = await Promise.all([fresh(server.url, '/health'), fresh(server.url, '/health')]);
      for (const [call, answer] of answers.entries()) {
        assert.equal(answer.status, 200, `call ${call + 1}: ${JSON.stringify(answer.json)}`);
        assert.equal(answer.json.status, 'degraded');
        assert.equal(answer.json.components.state_store, 'error');
        assert.equal(answer.json.components.publication, 'ok', `call ${call + 1}: its authority probe answered`);
        assert.equal(answer.json.publishing.status, 'ready');
        assert.equal(answer.json.components.vector_store, 'ok', `call ${call + 1}: its lane-schema reads answered`);
      }
    } finally {
      await release?.();
    }
    await until('the state store to read again', async () => (await fresh(server.url, '/health')).json?.components?.state_store === 'ok');
  } finally {
    // Also when an assertion failed above: a server left running would keep the test process alive.
    await server.close();
    removeDir(dataDir);
  }
});
