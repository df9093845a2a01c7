// Opens a SQLite database through node:sqlite in WAL mode and applies its numbered migrations once.
// It knows nothing about jobs or documents; callers own their schemas.

import { DatabaseSync } from 'node:sqlite';
import type { StatementSync } from 'node:sqlite';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

export type Database = DatabaseSync;

/** How long a writer waits for another connection's lock before SQLite reports busy. */
export const SQLITE_BUSY_TIMEOUT_MS = 5_000;

/**
 * `cacheKiB`: the connection's page cache (SQLite's default is 2,000 KiB). It is process memory, kept for
 * as long as the connection is open; pages beyond it are read from the operating system's file cache.
 */
export function openDatabase(path: string, migrations: readonly string[], options: { cacheKiB?: number } = {}): Database {
  mkdirSync(dirname(path), { recursive: true });
  const db = new DatabaseSync(path);
  try {
    // The busy timeout comes first: several processes open the same files, and switching to WAL takes a lock.
    db.exec(`PRAGMA busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
    whileBusy(() => db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;'));
    // A hard delete is irreversible (SPEC.md document visibility): what a statement deletes is overwritten with
    // zeros in its pages, overflow and free pages included, instead of lingering in free space until reused.
    db.exec('PRAGMA secure_delete = ON');
    if (options.cacheKiB !== undefined) db.exec(`PRAGMA cache_size = -${Math.max(1, Math.floor(options.cacheKiB))}`);
    whileBusy(() => migrate(db, migrations));
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/** SQLite's "database is locked" (SQLITE_BUSY and its extended codes). */
function isBusy(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'errcode' in error && typeof error.errcode === 'number' && (error.errcode & 0xff) === 5;
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Runs `fn` again while SQLite answers busy without waiting (up to SQLITE_BUSY_TIMEOUT_MS in all). Processes that
 * open a new database file at once (two api processes and a worker on a Client's first uploads) meet SQLITE_BUSY
 * without the busy handler while one of them switches the file to WAL (test/storage/sqlite-open-race.test.ts).
 * Opening is synchronous, so the pauses are too: a few milliseconds each, doubling from 1 to at most 50.
 */
function whileBusy<T>(fn: () => T): T {
  const deadline = performance.now() + SQLITE_BUSY_TIMEOUT_MS;
  for (let wait = 1; ; wait = Math.min(wait * 2, 50)) {
    try {
      return fn();
    } catch (error) {
      if (!isBusy(error) || performance.now() + wait > deadline) throw error;
      Atomics.wait(pause, 0, 0, wait);
    }
  }
}

/** Applies each missing migration in its own write transaction, re-reading the version under the lock, so
 * processes that open the same file at once apply every migration exactly once. */
function migrate(db: Database, migrations: readonly string[]): void {
  // A connection opened again (sqlite-storage.ts closes idle ones) finds every migration applied: no write lock.
  if ((db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version >= migrations.length) return;
  for (;;) {
    const applied = transaction(db, () => {
      const { user_version: version } = db.prepare('PRAGMA user_version').get() as { user_version: number };
      if (version >= migrations.length) return false;
      db.exec(migrations[version]);
      db.exec(`PRAGMA user_version = ${version + 1}`);
      return true;
    });
    if (!applied) return;
  }
}

const statementCaches = new WeakMap<Database, Map<string, StatementSync>>();

/**
 * The prepared statement of `sql` on this connection, prepared once: for the statements of every request
 * (authority, log head, rate windows, chunk texts), where preparing again would cost more than running.
 */
export function cachedStatement(db: Database, sql: string): StatementSync {
  let cache = statementCaches.get(db);
  if (!cache) {
    cache = new Map();
    statementCaches.set(db, cache);
  }
  let statement = cache.get(sql);
  if (!statement) {
    statement = db.prepare(sql);
    cache.set(sql, statement);
  }
  return statement;
}

/** A page cache that grows with its database file: `share` of the file, between `minKiB` and `maxKiB`. */
export interface PageCacheFit {
  share: number;
  minKiB: number;
  maxKiB: number;
}

/** The page cache, in KiB, that `fit` gives a database file of this many bytes. */
export function fittedCacheKiB(fileBytes: number, fit: PageCacheFit): number {
  return Math.min(fit.maxKiB, Math.max(fit.minKiB, Math.floor((fileBytes * fit.share) / 1024)));
}

/** Sizes the connection's page cache to its file as it is now (SQLite allocates the pages only as it reads them). */
export function fitPageCache(db: Database, fit: PageCacheFit): number {
  const { page_count: pages } = cachedStatement(db, 'PRAGMA page_count').get() as { page_count: number };
  const { page_size: pageSize } = cachedStatement(db, 'PRAGMA page_size').get() as { page_size: number };
  const kib = fittedCacheKiB(pages * pageSize, fit);
  db.exec(`PRAGMA cache_size = -${kib}`);
  return kib;
}

/**
 * Copies every page of the write-ahead log into the database file and truncates the log to zero bytes, so that
 * the log no longer holds the page images written before a purge (secure_delete zeroes the pages the purge
 * writes, not the older images of them). Waits, through the busy timeout, for readers of older snapshots; one
 * still reading past it leaves the log to the next checkpoint (or to the last connection's close).
 */
export function checkpointTruncate(db: Database): void {
  db.prepare('PRAGMA wal_checkpoint(TRUNCATE)').get();
}

/**
 * Runs fn inside a read transaction: every SELECT in it sees one committed state of the database. A read that
 * fails reports its own error: ending a transaction SQLite already ended (an I/O error, a file that is no
 * database) would fail too, and hide it.
 */
export function readTransaction<T>(db: Database, fn: () => T): T {
  db.exec('BEGIN');
  let result: T;
  try {
    result = fn();
  } catch (error) {
    endQuietly(db);
    throw error;
  }
  db.exec('COMMIT');
  return result;
}

/** Rolls back what is still open after a failure; the failure, not this, is what the caller must see. */
function endQuietly(db: Database): void {
  if (!db.isTransaction) return;
  try {
    db.exec('ROLLBACK');
  } catch {
    // A connection that cannot roll back reports it on its next statement.
  }
}

/** Opens the file read-only on a new connection and reads its schema from disk; throws when it cannot. */
export function probeDatabaseFile(path: string): void {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    db.exec(`PRAGMA busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
    db.prepare('SELECT COUNT(*) FROM sqlite_master').get();
  } finally {
    db.close();
  }
}

/**
 * Runs fn inside BEGIN IMMEDIATE ... COMMIT when the file's write lock is free now; `done: false` (nothing done)
 * when another connection holds it. It never waits for the lock: the busy timeout blocks the whole thread, so
 * a caller on a request path waits for the lock between tries instead (sqlite/publication-log.ts).
 */
export function transactionIfFree<T>(db: Database, fn: () => T): { done: true; value: T } | { done: false } {
  db.exec('PRAGMA busy_timeout = 0');
  try {
    db.exec('BEGIN IMMEDIATE');
  } catch (error) {
    if (isBusy(error)) return { done: false };
    throw error;
  } finally {
    db.exec(`PRAGMA busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  }
  try {
    const value = fn();
    db.exec('COMMIT');
    return { done: true, value };
  } catch (error) {
    endQuietly(db);
    throw error;
  }
}

/**
 * Runs fn inside BEGIN IMMEDIATE ... COMMIT, rolling back on any throw. Not re-entrant. The error thrown is
 * always the one that stopped the transaction: SQLite rolls a transaction back by itself on some failures
 * (SQLITE_FULL, I/O errors), and a ROLLBACK then fails with "cannot rollback", which would hide the full disk.
 */
export function transaction<T>(db: Database, fn: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = fn();
    db.exec('COMMIT');
    return result;
  } catch (error) {
    endQuietly(db);
    throw error;
  }
}
