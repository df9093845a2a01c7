// Names the errors of the drivers and of the file system that mean the store itself failed (cannot be
// reached or read, or is full), as a StoreFailure; every other error stays what it is (a defect is a 500).
// Only the adapters know their drivers' codes: the HTTP layer and the rate limiter ask this through the port.

import { STORAGE_LABELS, StoreFailure } from '../../domain/store-failure.ts';
import type { StorageName } from '../../domain/store-failure.ts';

/** SQLite's primary result codes (the low byte of an extended code) that mean the file, not the statement, failed. */
const SQLITE_FULL = 13;
const SQLITE_UNREADABLE = new Map<number, string>([
  [10, 'disk I/O error'], // SQLITE_IOERR
  [11, 'database disk image is malformed'], // SQLITE_CORRUPT
  [14, 'unable to open database file'], // SQLITE_CANTOPEN
  [26, 'file is not a database'], // SQLITE_NOTADB
]);

/** File-system codes of a write that has no room, and of a file system that cannot be read or written. */
const NO_SPACE = new Set(['ENOSPC', 'EDQUOT']);
const FILES_UNREADABLE = new Set(['EIO', 'EROFS']);

/** PostgreSQL SQLSTATE classes and codes: connection exceptions, the server shutting down or starting, disk full. */
const PG_CONNECTION_CLASS = '08';
const PG_UNAVAILABLE = new Set(['57P01', '57P02', '57P03', '53300']); // admin/crash shutdown, cannot connect now, too many connections
const PG_DISK_FULL = '53100';
/** The socket errors of a server that is down or unreachable. */
const SOCKET_DOWN = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EPIPE', 'EAI_AGAIN']);
/** node-postgres reports a connection lost mid-query, or never made, in plain errors (no code) with these messages. */
const PG_CONNECTION_LOST = /^Connection terminated|^timeout exceeded when trying to connect|Client has encountered a connection error/;

function field(error: object, name: string): unknown {
  return name in error ? (error as Record<string, unknown>)[name] : undefined;
}

/** node:sqlite's errors carry the SQLite result code in `errcode`. */
function sqliteFailure(error: object): StoreFailure | null {
  const errcode = field(error, 'errcode');
  if (typeof errcode !== 'number') return null;
  const primary = errcode & 0xff;
  if (primary === SQLITE_FULL) return new StoreFailure('full', 'sqlite', `No space is left for ${STORAGE_LABELS.sqlite}`, { cause: error });
  const reason = SQLITE_UNREADABLE.get(primary);
  return reason ? new StoreFailure('unreachable', 'sqlite', `An embedded database cannot be read (${reason})`, { cause: error }) : null;
}

function postgresFailure(error: object): StoreFailure | null {
  const code = field(error, 'code');
  if (typeof code === 'string') {
    if (code === PG_DISK_FULL) return new StoreFailure('full', 'postgresql', 'The PostgreSQL database is out of disk space', { cause: error });
    if (code.startsWith(PG_CONNECTION_CLASS) && code.length === 5) return new StoreFailure('unreachable', 'postgresql', 'The connection to PostgreSQL failed', { cause: error });
    if (PG_UNAVAILABLE.has(code)) return new StoreFailure('unreachable', 'postgresql', 'PostgreSQL is not accepting connections', { cause: error });
    if (SOCKET_DOWN.has(code)) return new StoreFailure('unreachable', 'postgresql', 'PostgreSQL cannot be reached', { cause: error });
  }
  const message = field(error, 'message');
  if (typeof message === 'string' && PG_CONNECTION_LOST.test(message)) return new StoreFailure('unreachable', 'postgresql', 'The connection to PostgreSQL was lost', { cause: error });
  return null;
}

/** A file-system error of the upload files (or of DATA_DIR itself) as the storage it names. */
export function fileFailure(error: unknown, storage: StorageName): StoreFailure | null {
  if (typeof error !== 'object' || error === null) return null;
  const code = field(error, 'code');
  if (typeof code !== 'string') return null;
  if (NO_SPACE.has(code)) return new StoreFailure('full', storage, `No space is left for ${STORAGE_LABELS[storage]}`, { cause: error });
  if (FILES_UNREADABLE.has(code)) return new StoreFailure('unreachable', storage, `${STORAGE_LABELS[storage]} cannot be read or written (${code})`, { cause: error });
  return null;
}

/**
 * The store failure an error means, or null when it is not one. `store` says which driver the process
 * speaks to: a socket error means PostgreSQL is down only when there is a PostgreSQL to speak to.
 */
export function storeFailureOf(error: unknown, store: 'sqlite' | 'postgres'): StoreFailure | null {
  if (error instanceof StoreFailure) return error;
  if (typeof error !== 'object' || error === null) return null;
  const found = sqliteFailure(error) ?? (store === 'postgres' ? postgresFailure(error) : fileFailure(error, 'sqlite'));
  if (found) return found;
  // A failure wrapped on its way up (a transaction's rollback, a thread's reply) keeps its cause.
  const cause = field(error, 'cause');
  return cause !== undefined && cause !== error ? storeFailureOf(cause, store) : null;
}
