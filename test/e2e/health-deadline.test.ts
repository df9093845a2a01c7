// SPEC.md "Health probe deadline": each readiness or diagnostic read has 2 seconds. A Client database held
// under an exclusive lock by another process makes the state-store probe really block (SQLite waits out its
// 5-second busy timeout); /health answers with that component failed and the others read, and requests that
// need no store are not held meanwhile (test/health/health-probes.test.ts shows the deadline is what fired). Nothing of this Client is read by the api process
// itself, so only the probe meets the lock.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { removeDir, startTestServer, tempDataDir } from '../helpers/server.ts';
import { seedVersions } from '../helpers/seed.ts';
import { fresh, until } from '../helpers/processes.ts';
import { clientDbFile } from '../helpers/client-db.ts';
import { SQLITE_FILES } from '../helpers/test-store.ts';

test('a state-store probe that blocks fails its component at the deadline; /health still answers and nothing else waits', SQLITE_FILES, async () => {
  const dataDir = tempDataDir();
  // Alpha first: the lane schemas /health reports are read from the first Client's store, so only the state-store
  // probe opens beta's.
  await seedVersions(dataDir, 'client-alpha', 'memo', [{ versionId: 'v1', text: 'Memo on branch opening hours.' }]);
  await seedVersions(dataDir, 'client-beta', 'ledger', [{ versionId: 'v1', text: 'Quarterly ledger for the Ipoh office.' }]);
  const server = await startTestServer({ API_PROCESSES: '1' }, dataDir);
  const holder = new DatabaseSync(clientDbFile(dataDir, 'client-beta'));
  try {
    assert.equal((await fresh(server.url, '/health')).json.components.state_store, 'ok');
    holder.exec('PRAGMA busy_timeout = 5000; PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; DELETE FROM publication_log WHERE 0');
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
    try {
      holder.exec('ROLLBACK');
    } catch {
      // never began
    }
    holder.close();
  }
  try {
    await until('the state store to read again', async () => (await fresh(server.url, '/health')).json?.components?.state_store === 'ok');
  } finally {
    await server.close();
    removeDir(dataDir);
  }
});
