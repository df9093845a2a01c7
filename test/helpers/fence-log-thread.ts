// A thread for the SQLite fence-position tests: a process of its own on one Client's file and the control
// database, each over its own connections, as another api process or worker would be.
// - role 'writer': a hard delete of two versions whose second append passed its READY check and then waits,
//   inside its write transaction, until `release[0]` is set: the writer that straddles a fence.
// - role 'reader': reads the head pinned by the fence `fencedAt` when asked, saying first that it is about to;
//   it answers a ping meanwhile when its event loop is free.

import { parentPort, workerData } from 'node:worker_threads';
import { ClientStore } from '../../src/storage/sqlite/client-store.ts';
import { CLIENT_MIGRATIONS } from '../../src/storage/sqlite/client-migrations.ts';
import { CONTROL_MIGRATIONS } from '../../src/storage/sqlite/control-migrations.ts';
import { SqliteAuthorityRepository } from '../../src/storage/sqlite/authority.ts';
import { openDatabase } from '../../src/storage/sqlite/database.ts';

const { role, clientPath, controlPath, release } = workerData as { role: 'writer' | 'reader'; clientPath: string; controlPath: string; release: Int32Array };
const authority = new SqliteAuthorityRepository(openDatabase(controlPath, CONTROL_MIGRATIONS));
let appends = 0;
const assertReady = () => {
  authority.assertReady();
  if (role === 'writer' && ++appends === 2) {
    parentPort!.postMessage({ type: 'checked' });
    Atomics.wait(release, 0, 0);
  }
};
const store = new ClientStore('c', { open: () => openDatabase(clientPath, CLIENT_MIGRATIONS) }, { logRetained: 100, assertReady });

if (role === 'writer') {
  await store.purges.begin('gone', ['v1', 'v2']);
  parentPort!.postMessage({ type: 'committed' });
} else {
  parentPort!.on('message', async (message: { type: 'read'; fencedAt: string } | { type: 'ping' }) => {
    if (message.type === 'ping') {
      parentPort!.postMessage({ type: 'pong' });
      return;
    }
    parentPort!.postMessage({ type: 'reading' });
    parentPort!.postMessage({ type: 'head', head: await store.publicationLog.head(message.fencedAt) });
  });
}
