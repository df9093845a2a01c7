// `hds admin backup` and `hds admin restore` of an embedded (SQLite) deployment: a consistent copy of every
// database in DATA_DIR (control.db and each Client's) and the uploaded files, taken beside the running service
// on the same machine, and laid back into an empty DATA_DIR. The copy works on the files directly (no operator
// route): the service need not be running, and gigabytes of databases never pass through an api process.
//
// Why a fence. A publication writes a Client's database (the activation and its publication-log entry, in one
// transaction) and then control.db (the job's outcome), in two transactions of two files. Files copied at
// different instants could hold a job completed in control.db whose activation the Client's copy, taken
// earlier, lacks: the job's status would name a generation the restored Client does not serve. So the backup
// takes the write lock of control.db and then of every Client database (BEGIN IMMEDIATE, as any writer of the
// service does), copies each file from a second connection while it holds them all, and releases them: the
// copies are of one instant, at which no transaction of any file is half written. A publication in flight when
// the fence comes either committed its activation before (the copy holds it, and its job, still running in the
// copied control.db, finds it active and completes on the restored service, embed-job.ts) or waits for the
// fence and commits after it (the copy holds neither). Each Client's publication log is copied with the
// generations it describes, in the same file, so a restored follower replays exactly what its store holds.
//
// What the fence costs: while it holds, every write of the service waits (uploads, job outcomes, the rate
// windows every request counts in); searches read on, but their rate-window write waits too. A wait longer than
// the service's busy timeout (5 s) fails that request as publication_busy, retryable. The fence lasts as long
// as copying the databases (VACUUM INTO, the speed of a file copy): well under a second for databases of tens
// of MiB. For databases of many GiB, take a file-system snapshot instead (docs/operations.md "Backups").
//
// Uploaded files are immutable once in place (written to a .partial name and renamed): while the fence holds
// they are hard-linked into the staging folder (copied where links are refused), so the archive holds every
// file a job of the copied control.db still needs, even if the job deletes it the moment the fence lifts.

import { createHash, randomBytes } from 'node:crypto';
import { closeSync, copyFileSync, existsSync, fsyncSync, linkSync, mkdirSync, openSync, readdirSync, readSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { SQLITE_BUSY_TIMEOUT_MS } from './database.ts';
import { ArchiveError, readTar, TarWriter } from './backup-archive.ts';

/** The archive's first entry: what it holds, file by file, with sizes and SHA-256 for the restore to check. */
export const BACKUP_MANIFEST_NAME = 'hds-backup.json';
export const BACKUP_FORMAT = 'hds-backup/1';
export const CONTROL_DB_NAME = 'control.db';
export const CLIENTS_DIR_NAME = 'clients';
export const UPLOADS_DIR_NAME = 'uploads';
/** An upload being written; never part of a backup (its job is recorded only after the rename). */
const PARTIAL_UPLOAD_SUFFIX = '.partial';
/** What a path inside a backup may be: nothing else is restored (a crafted archive writes nowhere else). */
const BACKUP_PATH = /^(control\.db|clients\/[A-Za-z0-9_-]+\.db|uploads\/[A-Za-z0-9_-][A-Za-z0-9._-]*)$/;
/** How long the fence waits for each file's write lock (a writer of the service holding it). */
export const BACKUP_FENCE_WAIT_MS = SQLITE_BUSY_TIMEOUT_MS;

export interface BackupFile {
  path: string;
  bytes: number;
  sha256: string;
}

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  store: 'sqlite';
  taken_at: string;
  clients: { client_id: string; file: string }[];
  files: BackupFile[];
}

export interface BackupSummary {
  out: string;
  takenAt: string;
  clients: number;
  databases: number;
  uploads: number;
  bytes: number;
  /** How long the fence held every database's write lock (the service's writes waited that long at most). */
  fenceMs: number;
}

/** A backup or restore that cannot be done as asked; the message says why. */
export class BackupError extends Error {
  /** `usage`: refused before anything was done (a wrong DATA_DIR, a non-empty target); else it failed part way. */
  readonly usage: boolean;
  constructor(message: string, usage = false) {
    super(message);
    this.name = 'BackupError';
    this.usage = usage;
  }
}

function isBusy(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'errcode' in error && typeof error.errcode === 'number' && (error.errcode & 0xff) === 5;
}

/** A connection holding the file's write lock; its transaction writes nothing and is rolled back. */
function lockForWrites(path: string): DatabaseSync {
  const db = new DatabaseSync(path);
  try {
    db.exec(`PRAGMA busy_timeout = ${BACKUP_FENCE_WAIT_MS}`);
    db.exec('BEGIN IMMEDIATE');
  } catch (error) {
    db.close();
    if (isBusy(error)) throw new BackupError(`${path}: a writer of the service held it for more than ${BACKUP_FENCE_WAIT_MS} ms; try the backup again`);
    throw error;
  }
  return db;
}

function release(db: DatabaseSync): void {
  try {
    if (db.isTransaction) db.exec('ROLLBACK');
  } finally {
    db.close();
  }
}

/** The committed state of the database at `path` as one compact file (one read transaction). */
function copyDatabase(path: string, target: string): void {
  const db = new DatabaseSync(path);
  try {
    db.exec(`PRAGMA busy_timeout = ${BACKUP_FENCE_WAIT_MS}`);
    db.prepare('VACUUM INTO ?').run(target);
  } finally {
    db.close();
  }
}

function linkOrCopy(source: string, target: string): boolean {
  try {
    linkSync(source, target);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return false; // deleted since it was listed: no job of the copy needs it
    if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'EMLINK') throw error;
  }
  try {
    copyFileSync(source, target);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

function sha256Of(path: string): string {
  const hash = createHash('sha256');
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(1024 * 1024);
    for (let position = 0, count; (count = readSync(fd, buffer, 0, buffer.byteLength, position)) > 0; position += count) hash.update(buffer.subarray(0, count));
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}

/**
 * Copies the deployment at `dataDir` into the archive `out` (written to a temporary name beside it and renamed
 * when whole, so a failed backup never leaves a file that looks like one).
 */
export function backupDataDir(dataDir: string, out: string): BackupSummary {
  const controlPath = join(dataDir, CONTROL_DB_NAME);
  if (!existsSync(controlPath)) throw new BackupError(`${dataDir} holds no deployment (no ${CONTROL_DB_NAME}): pass --data-dir, or set DATA_DIR`, true);
  if (existsSync(out)) throw new BackupError(`${out} exists: a backup never overwrites a file`, true);
  // Beside the uploads, so that they can be hard-linked (one file system); removed whatever happens.
  const staging = join(dataDir, `.backup-${randomBytes(6).toString('hex')}`);
  mkdirSync(join(staging, CLIENTS_DIR_NAME), { recursive: true });
  mkdirSync(join(staging, UPLOADS_DIR_NAME), { recursive: true });
  const partial = `${out}.partial-${process.pid}`;
  try {
    const fenced: DatabaseSync[] = [];
    let clients: { client_id: string; file: string }[];
    let takenAt: string;
    let uploads = 0;
    const fenceStart = performance.now();
    try {
      // control.db first: with its lock held no Client can be provisioned, so the list read here is complete.
      const control = lockForWrites(controlPath);
      fenced.push(control);
      const listed = control.prepare('SELECT client_id, file FROM client_files ORDER BY rowid').all() as { client_id: string; file: string }[];
      clients = listed.filter((row) => existsSync(join(dataDir, CLIENTS_DIR_NAME, row.file)));
      for (const { file } of clients) fenced.push(lockForWrites(join(dataDir, CLIENTS_DIR_NAME, file)));
      takenAt = new Date().toISOString();
      copyDatabase(controlPath, join(staging, CONTROL_DB_NAME));
      for (const { file } of clients) copyDatabase(join(dataDir, CLIENTS_DIR_NAME, file), join(staging, CLIENTS_DIR_NAME, file));
      const uploadsDir = join(dataDir, UPLOADS_DIR_NAME);
      for (const name of existsSync(uploadsDir) ? readdirSync(uploadsDir) : []) {
        if (name.endsWith(PARTIAL_UPLOAD_SUFFIX) || !BACKUP_PATH.test(`${UPLOADS_DIR_NAME}/${name}`)) continue;
        if (linkOrCopy(join(uploadsDir, name), join(staging, UPLOADS_DIR_NAME, name))) uploads++;
      }
    } finally {
      for (const db of fenced.reverse()) release(db);
    }
    const fenceMs = performance.now() - fenceStart;

    const paths = [CONTROL_DB_NAME, ...clients.map(({ file }) => `${CLIENTS_DIR_NAME}/${file}`), ...readdirSync(join(staging, UPLOADS_DIR_NAME)).sort().map((name) => `${UPLOADS_DIR_NAME}/${name}`)];
    const files: BackupFile[] = paths.map((path) => ({ path, bytes: statSync(join(staging, path)).size, sha256: sha256Of(join(staging, path)) }));
    const manifest: BackupManifest = { format: BACKUP_FORMAT, store: 'sqlite', taken_at: takenAt, clients, files };
    mkdirSync(dirname(out), { recursive: true });
    const fd = openSync(partial, 'wx');
    try {
      const tar = new TarWriter(fd);
      tar.addBytes(BACKUP_MANIFEST_NAME, Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`));
      for (const file of files) tar.addFile(file.path, join(staging, file.path));
      tar.finish();
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(partial, out);
    return { out, takenAt, clients: clients.length, databases: 1 + clients.length, uploads, bytes: statSync(out).size, fenceMs };
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

export interface RestoreSummary {
  dataDir: string;
  takenAt: string;
  clients: number;
  files: number;
}

function manifestOf(text: string, archive: string): BackupManifest {
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(text);
  } catch {
    throw new BackupError(`${archive}: its ${BACKUP_MANIFEST_NAME} is not JSON`);
  }
  if (manifest?.format !== BACKUP_FORMAT) throw new BackupError(`${archive} is not a backup this version restores (format ${JSON.stringify(manifest?.format)}, expected ${BACKUP_FORMAT})`);
  if (!Array.isArray(manifest.files) || !manifest.files.every((file) => typeof file?.path === 'string' && BACKUP_PATH.test(file.path) && Number.isSafeInteger(file.bytes) && typeof file.sha256 === 'string')) {
    throw new BackupError(`${archive}: its ${BACKUP_MANIFEST_NAME} lists a file a backup cannot hold`);
  }
  return manifest;
}

/**
 * Lays the archive into `dataDir`, which must be empty or absent (a restore never mixes two deployments). Every
 * file is checked against the manifest's size and SHA-256; on any failure what was written is removed again.
 */
export function restoreDataDir(archive: string, dataDir: string): RestoreSummary {
  if (!existsSync(archive)) throw new BackupError(`${archive}: no such file`, true);
  if (existsSync(dataDir) && readdirSync(dataDir).length > 0) throw new BackupError(`${dataDir} is not empty: a backup is restored into an empty DATA_DIR only`, true);
  mkdirSync(dataDir, { recursive: true });
  try {
    let manifest: BackupManifest | null = null;
    const restored = new Set<string>();
    for (const entry of readTar(archive)) {
      if (manifest === null) {
        if (entry.name !== BACKUP_MANIFEST_NAME) throw new BackupError(`${archive} is not a backup (its first entry is ${JSON.stringify(entry.name)}, not ${BACKUP_MANIFEST_NAME})`);
        manifest = manifestOf(Buffer.concat([...entry.chunks()]).toString('utf8'), archive);
        continue;
      }
      const listed = manifest.files.find((file) => file.path === entry.name);
      if (!listed || restored.has(entry.name)) throw new BackupError(`${archive}: ${JSON.stringify(entry.name)} is not listed in its manifest (or listed once and archived twice)`);
      const target = join(dataDir, ...entry.name.split('/'));
      mkdirSync(dirname(target), { recursive: true });
      const hash = createHash('sha256');
      const fd = openSync(target, 'wx');
      try {
        for (const chunk of entry.chunks()) {
          hash.update(chunk);
          let written = 0;
          while (written < chunk.byteLength) written += writeSync(fd, chunk, written, chunk.byteLength - written);
        }
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      if (entry.size !== listed.bytes || hash.digest('hex') !== listed.sha256) throw new BackupError(`${archive}: ${entry.name} is not the file backed up (its size or SHA-256 differs): the archive is damaged`);
      restored.add(entry.name);
    }
    if (manifest === null) throw new BackupError(`${archive} is empty`);
    const missing = manifest.files.filter((file) => !restored.has(file.path));
    if (missing.length > 0) throw new BackupError(`${archive} lacks ${missing.length} file(s) its manifest lists (${missing[0].path}, ...): it is cut short`);
    return { dataDir, takenAt: manifest.taken_at, clients: manifest.clients.length, files: restored.size };
  } catch (error) {
    for (const entry of readdirSync(dataDir)) rmSync(join(dataDir, entry), { recursive: true, force: true });
    if (error instanceof ArchiveError) throw new BackupError(error.message);
    throw error;
  }
}
