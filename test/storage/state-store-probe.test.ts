// The state-store probe behind /health reads the control database and at most PROBED_CLIENT_FILES_PER_CALL
// Client database files per call, the next ones in turn: its cost does not grow with the number of Clients,
// every file is read within a few calls, and a damaged one is reported by every call until it reads again.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, openSync, readdirSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { PROBED_CLIENT_FILES_PER_CALL, Storage } from '../../src/storage/sqlite/sqlite-storage.ts';
import { removeDir, tempDataDir } from '../helpers/server.ts';

const CLIENTS = PROBED_CLIENT_FILES_PER_CALL * 2 + 8;

test('a damaged Client file is found within the calls that cover every file, then reported until repaired', async () => {
  const dir = tempDataDir();
  const storage = new Storage(dir);
  try {
    const ids = Array.from({ length: CLIENTS }, (_, i) => `tenant-${String(i).padStart(2, '0')}`);
    for (const id of ids) await storage.client(id).publicationLog.head();
    storage.close();
    // The third window's Client: its header overwritten after a checkpoint (its pages live in the file).
    const damaged = join(dir, 'clients', readdirSync(join(dir, 'clients')).find((name) => name.startsWith(`${ids[PROBED_CLIENT_FILES_PER_CALL * 2 + 2]}-`) && name.endsWith('.db'))!);
    const checkpoint = new DatabaseSync(damaged);
    checkpoint.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    checkpoint.close();
    const header = Buffer.alloc(100);
    const fd = openSync(damaged, 'r+');
    readSync(fd, header, 0, 100, 0);
    writeSync(fd, Buffer.alloc(100, 0x5a), 0, 100, 0);
    closeSync(fd);

    const prober = new Storage(dir);
    try {
      const outcomes: string[] = [];
      const call = async () => outcomes.push(await prober.probe().then(() => 'ok', () => 'failed'));
      await call();
      await call();
      assert.deepEqual(outcomes, ['ok', 'ok'], 'the first two windows hold only good files');
      await call();
      await call();
      assert.deepEqual(outcomes.slice(2), ['failed', 'failed'], 'found by the window that reads it, then reported by every call');
      // Repaired: reported until a window reads it again, which the calls that cover every file do.
      const repair = openSync(damaged, 'r+');
      writeSync(repair, header, 0, 100, 0);
      closeSync(repair);
      const rounds = Math.ceil(CLIENTS / PROBED_CLIENT_FILES_PER_CALL);
      for (let i = 0; i < rounds; i++) await call();
      assert.equal(outcomes.at(-1), 'ok');
    } finally {
      prober.close();
    }
  } finally {
    removeDir(dir);
  }
});
