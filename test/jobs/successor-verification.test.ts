// SPEC.md GET /status: a completed upload whose generation was retired verifies through its version's active
// successor, making at most three attempts and retrying only when a strictly newer generation appeared since
// the last read; otherwise 503 with Retry-After 1. The store is real; the successors a concurrent writer
// would publish between two reads are played by wrapping its activeManifest, so the reads can be counted.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Storage } from '../../src/storage/sqlite/sqlite-storage.ts';
import type { ClientRepositories, ManifestRecord, StoragePort } from '../../src/storage/port.ts';
import { renderJob } from '../../src/reads/job-view.ts';
import { SUCCESSOR_VERIFICATION_ATTEMPTS } from '../../src/spec-limits.ts';
import { manifestDigest } from '../../src/codec/manifest.ts';
import { emptySnapshot } from '../../src/serving/snapshot.ts';
import { versionKey } from '../../src/domain/identity.ts';
import type { JobRecord } from '../../src/domain/jobs.ts';
import { ServiceError } from '../../src/domain/service-error.ts';
import { emptyEntities } from '../../src/domain/entities.ts';
import { removeDir, tempDataDir } from '../helpers/server.ts';
import { seedVersions } from '../helpers/seed.ts';

const CLIENT = 'c';

/** A storage whose Client store answers activeManifest from `successors` (one per read), counting the reads. */
function withSuccessors(storage: Storage, successors: (real: ManifestRecord) => ManifestRecord[]): { port: StoragePort; reads: () => number } {
  let reads = 0;
  const client = (clientId: string): ClientRepositories => {
    const real = storage.client(clientId);
    const generations = new Proxy(real.generations, {
      get(target, name) {
        if (name !== 'activeManifest') {
          const value = Reflect.get(target, name, target);
          return typeof value === 'function' ? value.bind(target) : value;
        }
        return async (documentId: string, key: string) => {
          const current = (await target.activeManifest(documentId, key))!;
          const sequence = successors(current);
          return sequence[Math.min(reads++, sequence.length - 1)];
        };
      },
    });
    return { clientId, generations, publicationLog: real.publicationLog, purges: real.purges, laneSchemas: () => real.laneSchemas(), probe: () => real.probe() };
  };
  const port = new Proxy(storage, { get: (target, name) => (name === 'client' ? client : Reflect.get(target, name, target)) }) as unknown as StoragePort;
  return { port, reads: () => reads };
}

/** A completed upload job whose generation (the first of two) has been retired by the second. */
async function retiredUpload(dir: string): Promise<{ storage: Storage; job: JobRecord }> {
  await seedVersions(dir, CLIENT, 'doc', [{ versionId: 'v1', text: 'Remittance advice, first issue.' }]);
  const storage = new Storage(dir);
  const first = (await storage.client(CLIENT).generations.activeManifest('doc', versionKey('v1')))!;
  await seedVersions(dir, CLIENT, 'doc', [{ versionId: 'v1', text: 'Remittance advice, second issue.' }]);
  const now = new Date().toISOString();
  const job: JobRecord = {
    seq: 1,
    jobId: 'job-1',
    clientId: CLIENT,
    operation: 'embed',
    documentId: 'doc',
    versionKey: versionKey('v1'),
    status: 'completed',
    request: { source: 'text', text: 'Remittance advice.', filename: null, metadata: {} },
    result: {
      generation: first.generation,
      manifest_digest: manifestDigest(first.manifest!),
      chunks_created: 1,
      failed_chunks: 0,
      categories: [],
      classification_status: 'disabled',
      entities_extracted: emptyEntities(),
      created_at: now,
    },
    error: null,
    errorDetails: null,
    attempts: 1,
    maxAttempts: 3,
    nextRunAt: 0,
    leaseOwner: null,
    leaseExpiresAt: null,
    publicationWaitSince: null,
    createdAt: now,
    updatedAt: now,
    completedAt: now,
  };
  return { storage, job };
}

/** A successor `ahead` generations newer than the real one, whose manifest names another record (never verifies). */
function unverifiable(real: ManifestRecord, ahead: number): ManifestRecord {
  return { ...real, generation: real.generation + ahead, manifest: { ...real.manifest!, record_id: 'f'.repeat(32) } };
}

/** Runs `check` on a fresh store holding a retired upload, then removes it. */
async function withRetiredUpload(check: (storage: Storage, job: JobRecord) => Promise<void>): Promise<void> {
  const dir = tempDataDir();
  const { storage, job } = await retiredUpload(dir);
  try {
    await check(storage, job);
  } finally {
    storage.close();
    removeDir(dir);
  }
}

async function statusOf(port: StoragePort, job: JobRecord) {
  try {
    return await renderJob(job, { storage: port, publicationEnabled: true, snapshot: emptySnapshot(CLIENT, 384) });
  } catch (error) {
    return error;
  }
}

test('a retired generation verifies through its active successor in one read', () =>
  withRetiredUpload(async (storage, job) => {
    const { port, reads } = withSuccessors(storage, (real) => [real]);
    const view = (await statusOf(port, job)) as { status: string };
    assert.equal(view.status, 'completed');
    assert.equal(reads(), 1);
  }));

test('successors that keep moving on are read at most three times, then 503 publication_unavailable', () =>
  withRetiredUpload(async (storage, job) => {
    // Each read finds a strictly newer generation that does not verify, more of them than the attempts.
    const { port, reads } = withSuccessors(storage, (real) => Array.from({ length: 10 }, (_, i) => unverifiable(real, i + 1)));
    const error = await statusOf(port, job);
    assert.ok(error instanceof ServiceError, String(error));
    assert.equal(error.code, 'publication_unavailable');
    assert.equal(reads(), SUCCESSOR_VERIFICATION_ATTEMPTS);
    assert.equal(SUCCESSOR_VERIFICATION_ATTEMPTS, 3);
  }));

test('a read that finds no strictly newer generation is not retried', () =>
  withRetiredUpload(async (storage, job) => {
    // The second read finds the same unverifiable successor again: nothing moved on, so no third read.
    const { port, reads } = withSuccessors(storage, (real) => [unverifiable(real, 1), unverifiable(real, 1), unverifiable(real, 2)]);
    const error = await statusOf(port, job);
    assert.ok(error instanceof ServiceError);
    assert.equal(error.code, 'publication_unavailable');
    assert.equal(reads(), 2);
  }));

test('a successor that verifies on a later attempt is accepted', () =>
  withRetiredUpload(async (storage, job) => {
    const { port, reads } = withSuccessors(storage, (real) => [unverifiable(real, 1), { ...real, generation: real.generation + 2 }]);
    const view = (await statusOf(port, job)) as { status: string };
    assert.equal(view.status, 'completed');
    assert.equal(reads(), 2);
  }));
