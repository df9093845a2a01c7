// A durable store that cannot do what a request needs: it cannot be reached or read (PostgreSQL down, a
// control.db that is not a database any more), or it is full. Either way the request changed nothing it
// answers for, and retrying later can succeed, so it is a retryable refusal that names the storage, never a 500.

import { ServiceError } from './service-error.ts';

/** `unreachable`: the store cannot be reached or read; `full`: it refuses a write for want of space. */
export type StoreFailureKind = 'unreachable' | 'full';

/** Which storage refused: the embedded databases under DATA_DIR, the upload files beside them, or PostgreSQL. */
export type StorageName = 'sqlite' | 'uploads' | 'postgresql';

/**
 * Retry-After of a store that cannot be reached: a restarted database or a repaired file takes seconds, not the
 * one second of a publication refusal (SPEC.md's 1 is for publication codes; this is not one of them).
 */
export const STORE_UNAVAILABLE_RETRY_AFTER_SECONDS = 5;
/** Retry-After of a full store: space comes back when an operator frees it, so a caller waits longer. */
export const STORAGE_FULL_RETRY_AFTER_SECONDS = 30;

export class StoreFailure extends Error {
  readonly kind: StoreFailureKind;
  readonly storage: StorageName;

  constructor(kind: StoreFailureKind, storage: StorageName, message: string, options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'StoreFailure';
    this.kind = kind;
    this.storage = storage;
  }
}

/** What a caller is told about each storage (never a path: DATA_DIR is the operator's business). */
export const STORAGE_LABELS: Record<StorageName, string> = {
  sqlite: 'the embedded databases (DATA_DIR)',
  uploads: 'the upload files (DATA_DIR/uploads)',
  postgresql: 'the PostgreSQL database',
};

/** The caller's answer to a store failure: 503 store_unavailable or 507 storage_full, naming the storage. */
export function storeRefusal(failure: StoreFailure): ServiceError {
  const message = `${failure.message}: nothing of this request was kept; retry after the wait`;
  const details = (code: string) => ({ code, message, storage: failure.storage, storage_label: STORAGE_LABELS[failure.storage] });
  return failure.kind === 'full'
    ? new ServiceError('storage_full', message, { details: details('storage_full') })
    : new ServiceError('store_unavailable', message, { details: details('store_unavailable') });
}
