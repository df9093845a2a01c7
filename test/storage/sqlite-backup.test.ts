// hds admin backup's fence and hds admin restore's checks, on real SQLite files (storage/sqlite/backup.ts): the
// backup holds control.db while it waits for a Client write in flight, and copies that write committed; a
// restore refuses an archive that is damaged, cut short or not a backup, and leaves the target empty.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DatabaseSync } from 'node:sqlite';
import { Storage } from '../../src/storage/sqlite/sqlite-storage.ts';
import { BackupError, backupDataDir, restoreDataDir } from '../../src/storage/sqlite/backup.ts';
import { TAR_BLOCK_BYTES, TarWriter } from '../../src/storage/sqlite/backup-archive.ts';
import { clientDbFile } from '../helpers/client-db.ts';
import { childEnv } from '../helpers/child-env.ts';
import { removeDir, tempDataDir } from '../helpers/server.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A deployment's files as the service leaves them: control.db, one Client's database, one upload. */
async function deployment(): Promise<string> {
  const dataDir = tempDataDir();
  const storage = new Storage(dataDir);
  try {
    storage.client('client-one');
    await storage.client('client-one').publicationLog.head();
    await storage.uploads.save('kept.upload', Buffer.from('the bytes of an upload'));
    await storage.jobs.enqueue({ clientId: 'client-one', operation: 'embed', documentId: 'doc', versionKey: '', request: { source: 'file', upload: 'kept.upload', filename: 'a.txt', metadata: {} }, maxAttempts: 3 });
  } finally {
    storage.close();
  }
  return dataDir;
}

/** Whether another connection holds the file's write lock now (a try without waiting). */
function writeLocked(path: string): boolean {
  const probe = new DatabaseSync(path);
  try {
    probe.exec('PRAGMA busy_timeout = 0');
    probe.exec('BEGIN IMMEDIATE');
    probe.exec('ROLLBACK');
    return false;
  } catch (error) {
    if ((error as { errcode?: number }).errcode !== undefined && ((error as { errcode: number }).errcode & 0xff) === 5) return true;
    throw error;
  } finally {
    probe.close();
  }
}

test('the backup holds control.db while a Client write is in flight and copies that write committed', async () => {
  const dataDir = await deployment();
  const restoredDir = tempDataDir();
  const work = tempDataDir();
  const out = join(work, 'fenced.tar');
  removeDir(restoredDir);
  const writer = new DatabaseSync(clientDbFile(dataDir, 'client-one'));
  try {
    // A publication in flight: its log entry is written in an open transaction of the Client's database.
    writer.exec('BEGIN IMMEDIATE');
    writer.prepare("INSERT INTO publication_log (kind, document_id, version_key, generation, at) VALUES ('activate', 'doc', '', 1, '2026-03-14T00:00:00.000Z')").run();
    const backup = spawn(process.execPath, ['src/cli.ts', 'admin', 'backup', '--data-dir', dataDir, '--out', out], { cwd: ROOT, env: childEnv(), stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    backup.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => backup.on('close', resolve));
    // The fence: control.db is held first, so no job outcome can be recorded while the backup waits for the Client.
    while (!writeLocked(join(dataDir, 'control.db'))) {
      assert.equal(backup.exitCode, null, `the backup ended before it fenced control.db: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    assert.equal(existsSync(out), false, 'nothing is copied while a write is in flight');
    writer.exec('COMMIT');
    assert.equal(await exited, 0, stderr);
    assert.equal(writeLocked(join(dataDir, 'control.db')), false, 'the fence is lifted');

    restoreDataDir(out, restoredDir);
    const restored = new DatabaseSync(clientDbFile(restoredDir, 'client-one'), { readOnly: true });
    try {
      assert.deepEqual(restored.prepare('SELECT kind, document_id, generation FROM publication_log').all().map((row) => ({ ...row })), [{ kind: 'activate', document_id: 'doc', generation: 1 }]);
    } finally {
      restored.close();
    }
    assert.equal(readFileSync(join(restoredDir, 'uploads', 'kept.upload'), 'utf8'), 'the bytes of an upload');
    const storage = new Storage(restoredDir);
    try {
      assert.deepEqual(await storage.knownClientIds(), ['client-one']);
      assert.deepEqual([...(await storage.jobs.liveUploadNames())], ['kept.upload']);
    } finally {
      storage.close();
    }
  } finally {
    if (writer.isTransaction) writer.exec('ROLLBACK');
    writer.close();
    removeDir(dataDir);
    removeDir(restoredDir);
    removeDir(work);
  }
});

test('a restore refuses a damaged, cut short or foreign archive and leaves its DATA_DIR empty', async () => {
  const dataDir = await deployment();
  const work = tempDataDir();
  try {
    const archive = join(work, 'good.tar');
    const summary = backupDataDir(dataDir, archive);
    assert.deepEqual([summary.clients, summary.databases, summary.uploads], [1, 2, 1]);
    assert.throws(() => backupDataDir(dataDir, archive), (error: unknown) => error instanceof BackupError && error.usage, 'an archive is never overwritten');
    assert.throws(() => backupDataDir(work, join(work, 'other.tar')), (error: unknown) => error instanceof BackupError && error.usage && /no control\.db/.test(error.message));
    assert.deepEqual(readdirSync(dataDir).filter((name) => name.startsWith('.backup-')), [], 'the staging folder is removed');
    const bytes = readFileSync(archive);

    const damaged = join(work, 'damaged.tar');
    writeFileSync(damaged, bytes);
    // A byte of the last file's content (the upload, archived last): its header and size still read.
    const fd = openSync(damaged, 'r+');
    const at = bytes.indexOf(Buffer.from('the bytes of an upload'));
    writeSync(fd, Buffer.from('T'), 0, 1, at);
    closeSync(fd);
    const cut = join(work, 'cut.tar');
    writeFileSync(cut, bytes);
    truncateSync(cut, statSync(cut).size - 4 * TAR_BLOCK_BYTES);
    const foreign = join(work, 'foreign.tar');
    const foreignFd = openSync(foreign, 'w');
    const tar = new TarWriter(foreignFd);
    tar.addBytes('notes.txt', Buffer.from('not a backup'));
    tar.finish();
    closeSync(foreignFd);

    for (const [file, reason] of [[damaged, /damaged/], [cut, /cut short/], [foreign, /not a backup/]] as const) {
      const target = join(work, `restore-${file.split('/').pop()}`);
      assert.throws(() => restoreDataDir(file, target), (error: unknown) => error instanceof BackupError && !error.usage && reason.test(error.message), file);
      assert.deepEqual(readdirSync(target), [], `${file}: nothing is left behind`);
    }
    assert.throws(() => restoreDataDir(archive, work), (error: unknown) => error instanceof BackupError && error.usage && /not empty/.test(error.message));
    const good = join(work, 'restore-good');
    restoreDataDir(archive, good);
    assert.deepEqual(readdirSync(good).sort(), ['clients', 'control.db', 'uploads']);
  } finally {
    removeDir(dataDir);
    removeDir(work);
  }
});
