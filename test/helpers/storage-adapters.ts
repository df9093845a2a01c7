// The storage adapters a contract test runs against, each opened fresh: SQLite in a temporary data directory,
// PostgreSQL in a new database of a throwaway cluster (postgres-cluster.ts, started once per test file on first
// use, stopped by stopPostgres). A missing PostgreSQL fails the PostgreSQL half, never skips it.

import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { StoragePort, StoredChunkText } from '../../src/storage/port.ts';
import { Storage } from '../../src/storage/sqlite/sqlite-storage.ts';
import { PostgresStorage } from '../../src/storage/postgres/postgres-storage.ts';
import type { GenerationInput } from '../../src/domain/generation.ts';
import type { JsonObject } from '../../src/domain/canonical-metadata.ts';
import { blankCanonicalMetadata } from '../../src/domain/canonical-metadata.ts';
import { emptyEntities } from '../../src/domain/entities.ts';
import { startPostgresCluster } from './postgres-cluster.ts';
import type { PostgresCluster } from './postgres-cluster.ts';
import { removeDir, tempDataDir } from './server.ts';
import { setTimeout as sleep } from 'node:timers/promises';

export interface OpenedStore {
  storage: StoragePort;
  /** Another adapter on the same store, as a second process (or host) would open it. */
  openAnother(): Promise<StoragePort>;
  /** Deletes the authority record behind the adapter's back, as a fault or an operator's mistake would. */
  removeAuthorityRecord(): Promise<void>;
  close(): Promise<void>;
}

export interface StoreAdapter {
  name: 'SQLite' | 'PostgreSQL';
  open(options?: { logRetained?: number }): Promise<OpenedStore>;
}

let cluster: Promise<PostgresCluster> | null = null;

/** The test file's PostgreSQL cluster, started on first use. */
export function postgresCluster(): Promise<PostgresCluster> {
  cluster ??= startPostgresCluster();
  return cluster;
}

/** Stops the cluster if this file started one (call it from after()). */
export async function stopPostgres(): Promise<void> {
  if (!cluster) return;
  const started = await cluster.catch(() => null);
  started?.stop();
  cluster = null;
}

export const sqliteAdapter: StoreAdapter = {
  name: 'SQLite',
  async open(options = {}) {
    const dir = tempDataDir();
    const opened: StoragePort[] = [new Storage(dir, options)];
    return {
      storage: opened[0],
      async openAnother() {
        const another = new Storage(dir, options);
        opened.push(another);
        return another;
      },
      async removeAuthorityRecord() {
        const db = new DatabaseSync(join(dir, 'control.db'));
        try {
          db.exec('PRAGMA busy_timeout = 5000; DELETE FROM authority');
        } finally {
          db.close();
        }
      },
      async close() {
        for (const storage of opened) await storage.end();
        removeDir(dir);
      },
    };
  },
};

export const postgresAdapter: StoreAdapter = {
  name: 'PostgreSQL',
  async open(options = {}) {
    const url = await (await postgresCluster()).createDatabase();
    const opened: StoragePort[] = [await PostgresStorage.open(url, options)];
    return {
      storage: opened[0],
      async openAnother() {
        const another = await PostgresStorage.open(url, options);
        opened.push(another);
        return another;
      },
      async removeAuthorityRecord() {
        await (opened[0] as PostgresStorage).pool.query('DELETE FROM authority');
      },
      async close() {
        for (const storage of opened) await storage.end();
      },
    };
  },
};

export const STORE_ADAPTERS: readonly StoreAdapter[] = [sqliteAdapter, postgresAdapter];

/** A unit-ish vector of `dimensions` whose first component is `first` (so vectors differ and round-trip checks mean something). */
export function vector(first: number, dimensions = 4): Float32Array {
  const values = new Float32Array(dimensions);
  values[0] = first;
  for (let i = 1; i < dimensions; i++) values[i] = 1 / (i + 1);
  return values;
}

/** A generation to stage: one chunk per text, one leaf per custom member, optional lane bytes. */
export function generationInput(
  documentId: string,
  texts: string[],
  options: { versionKey?: string; jobId?: string | null; custom?: JsonObject; lanes?: Uint8Array; leavesIndexed?: boolean; manifest?: JsonObject } = {},
): GenerationInput {
  const custom = options.custom ?? {};
  return {
    documentId,
    versionKey: options.versionKey ?? documentId,
    jobId: options.jobId ?? null,
    createdAt: '2024-05-01T10:00:00.000Z',
    canonicalMetadata: { ...blankCanonicalMetadata(), custom },
    entities: { ...emptyEntities(), persons: ['Aminah binti Ali'] },
    embedding: { dense_model: 'hashing' },
    deletion: { deleted: false, deletedAt: null, deletedBy: null },
    chunks: texts.map((text, chunkIndex) => ({
      chunkIndex,
      page: chunkIndex + 1,
      pageLabel: chunkIndex === 0 ? 'i' : null,
      text,
      entities: { ...emptyEntities(), dates: [`2024-0${(chunkIndex % 9) + 1}-01`] },
      vector: vector(chunkIndex + 0.5),
      language: chunkIndex === 0 ? ('en' as const) : ('ms' as const),
    })),
    leaves: Object.entries(custom).map(([key, value]) => ({ path: ['custom', key], value, valueType: typeof value })),
    manifest: options.manifest ?? { record_ids: texts.length, digest: `d-${documentId}` },
    ...(options.lanes ? { lanes: options.lanes } : {}),
    ...(options.leavesIndexed === false ? { leavesIndexed: false } : {}),
  };
}

/** The texts of chunkTexts' answer, null where a chunk is gone. */
export function textsOf(stored: readonly (StoredChunkText | null)[]): (string | null)[] {
  return stored.map((chunk) => chunk?.text ?? null);
}

/** The furthest moment untilPast waits for: every lease, delay and window these tests record ends sooner. */
const UNTIL_PAST_MAX_MS = 60_000;

/**
 * Resolves once the clock is past `instant` (ms since the epoch), a moment a store recorded: a lease's expiry, a
 * retry's run time, a rate window's end. Both adapters keep time by this machine's clock (SQLite's is the test
 * process's, the throwaway PostgreSQL cluster runs on this host), so once it has passed here, the store's next
 * statement sees it passed too. It waits for that moment, however long the machine takes to get there, and
 * refuses one further off than any test records.
 */
export async function untilPast(instant: number): Promise<void> {
  if (!Number.isFinite(instant) || instant - Date.now() > UNTIL_PAST_MAX_MS) throw new Error(`untilPast: ${instant} is not a moment within ${UNTIL_PAST_MAX_MS} ms`);
  while (Date.now() <= instant) await sleep(Math.min(instant - Date.now() + 1, 50));
}
