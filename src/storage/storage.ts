// The embedded storage adapter: a control database for jobs and readiness, one database file per Client,
// and durable upload files. It hands out per-Client stores; it never interprets documents.

import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, existsSync, openSync, writeSync, fsyncSync, closeSync, renameSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from './sqlite.ts';
import type { Database } from './sqlite.ts';
import { CONTROL_MIGRATIONS } from './control-migrations.ts';
import { CLIENT_MIGRATIONS } from './client-migrations.ts';
import { JobStore } from './job-store.ts';
import { ClientStore } from './client-store.ts';

const CLIENT_FILE_SUFFIX = '.db';

/** A file name that is unique per client id, readable, and safe on any file system. */
function clientFileName(clientId: string): string {
  const readable = clientId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 40);
  const digest = createHash('sha256').update(clientId).digest('hex').slice(0, 16);
  return `${readable}-${digest}${CLIENT_FILE_SUFFIX}`;
}

export class Storage {
  readonly jobs: JobStore;
  readonly dataDir: string;
  private readonly control: Database;
  private readonly clients = new Map<string, ClientStore>();
  private readonly clientsDir: string;
  private readonly uploadsDir: string;

  constructor(dataDir: string) {
    this.dataDir = dataDir;
    this.clientsDir = join(dataDir, 'clients');
    this.uploadsDir = join(dataDir, 'uploads');
    mkdirSync(this.clientsDir, { recursive: true });
    mkdirSync(this.uploadsDir, { recursive: true });
    this.control = openDatabase(join(dataDir, 'control.db'), CONTROL_MIGRATIONS);
    this.control.exec(`CREATE TABLE IF NOT EXISTS client_files (client_id TEXT PRIMARY KEY, file TEXT NOT NULL)`);
    this.jobs = new JobStore(this.control);
  }

  /** The Client's store, created on first use. */
  client(clientId: string): ClientStore {
    let store = this.clients.get(clientId);
    if (!store) {
      const file = clientFileName(clientId);
      this.control.prepare('INSERT OR IGNORE INTO client_files (client_id, file) VALUES (?, ?)').run(clientId, file);
      store = new ClientStore(clientId, openDatabase(join(this.clientsDir, file), CLIENT_MIGRATIONS));
      this.clients.set(clientId, store);
    }
    return store;
  }

  /** Clients that have a database on disk (used to rebuild serving snapshots at start-up). */
  knownClientIds(): string[] {
    const rows = this.control.prepare('SELECT client_id, file FROM client_files').all() as { client_id: string; file: string }[];
    const files = new Set(readdirSync(this.clientsDir));
    return rows.filter((row) => files.has(row.file)).map((row) => row.client_id);
  }

  /** Writes upload bytes durably (fsync, then atomic rename) before the job that needs them is recorded. */
  saveUpload(name: string, bytes: Uint8Array): void {
    const path = join(this.uploadsDir, name);
    const temp = `${path}.partial`;
    const fd = openSync(temp, 'w');
    try {
      writeSync(fd, bytes);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  }

  readUpload(name: string): Buffer | null {
    const path = join(this.uploadsDir, name);
    return existsSync(path) ? readFileSync(path) : null;
  }

  deleteUpload(name: string): void {
    rmSync(join(this.uploadsDir, name), { force: true });
  }

  /** Removes upload files no live job refers to (left by a crash between write and enqueue). */
  sweepUploads(liveNames: Set<string>): number {
    let removed = 0;
    for (const file of readdirSync(this.uploadsDir)) {
      if (!liveNames.has(file)) {
        rmSync(join(this.uploadsDir, file), { force: true });
        removed++;
      }
    }
    return removed;
  }

  /** A cheap liveness probe of the durable store for /health. */
  probe(): boolean {
    try {
      this.control.prepare('SELECT 1').get();
      return true;
    } catch {
      return false;
    }
  }

  close(): void {
    for (const store of this.clients.values()) store.close();
    this.clients.clear();
    this.control.close();
  }
}
