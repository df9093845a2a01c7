// Opens a SQLite database through node:sqlite in WAL mode and applies its numbered migrations once.
// It knows nothing about jobs or documents; callers own their schemas.

import { DatabaseSync } from 'node:sqlite';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

export type Database = DatabaseSync;

/** How long a writer waits for another connection's lock before SQLite reports busy. */
export const SQLITE_BUSY_TIMEOUT_MS = 5_000;

export function openDatabase(path: string, migrations: readonly string[]): Database {
  mkdirSync(dirname(path), { recursive: true });
  const db = new DatabaseSync(path);
  db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS};`);
  migrate(db, migrations);
  return db;
}

function migrate(db: Database, migrations: readonly string[]): void {
  const row = db.prepare('PRAGMA user_version').get() as { user_version: number };
  for (let version = row.user_version; version < migrations.length; version++) {
    transaction(db, () => {
      db.exec(migrations[version]);
      db.exec(`PRAGMA user_version = ${version + 1}`);
    });
  }
}

/** Runs fn inside BEGIN IMMEDIATE ... COMMIT, rolling back on any throw. Not re-entrant. */
export function transaction<T>(db: Database, fn: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = fn();
    db.exec('COMMIT');
    return result;
  } catch (error) {
    db.exec('ROLLBACK');
    throw error;
  }
}
