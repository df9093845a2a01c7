// Per-Client usage counted from the Client's store (docs/configuration.md "Limits"): documents, chunks and UTF-8 bytes of chunk
// text over active generations, with or without the version an upload would replace, and the quota rules on top.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Storage } from '../../src/storage/sqlite/sqlite-storage.ts';
import { ClientStore } from '../../src/storage/sqlite/client-store.ts';
import { openDatabase } from '../../src/storage/sqlite/database.ts';
import { CLIENT_MIGRATIONS } from '../../src/storage/sqlite/client-migrations.ts';
import { Publisher } from '../../src/publication/publisher.ts';
import { projectedBreach, quotaMessage, uploadRefusal } from '../../src/domain/limits.ts';
import type { GenerationInput } from '../../src/domain/generation.ts';
import { loadedGeneration } from '../helpers/generations.ts';

/** A version no upload replaces: the Client's whole usage. */
const NONE = { documentId: '', versionKey: '' };

function input(documentId: string, texts: string[], versionKey = documentId): GenerationInput {
  const { generation: _g, state: _s, stagedAt: _st, activatedAt: _a, chunkCount: _c, lanes: _l, ...rest } = loadedGeneration(documentId, texts, { versionKey });
  return rest;
}

test('usage counts documents, chunks and UTF-8 bytes of active generations; staged and retired ones do not count', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hds-usage-'));
  const storage = new Storage(dir);
  try {
    const publisher = new Publisher(storage, { enabled: false });
    const store = storage.client('c1');
    assert.deepEqual(await store.generations.usage(NONE), { documents: 0, chunks: 0, textBytes: 0, documentPresent: false });
    await publisher.stageAndActivate('c1', input('a', ['abc', 'défi'])); // 3 + 5 bytes
    await publisher.stageAndActivate('c1', input('a', ['数据'], 'v2')); // a second version of a: 6 bytes
    await publisher.stageAndActivate('c1', input('b', ['hello world'])); // 11 bytes
    await publisher.stage('c1', input('c', ['staged only'])); // invisible, never counted
    assert.deepEqual(await store.generations.usage(NONE), { documents: 2, chunks: 4, textBytes: 25, documentPresent: false });
    // Without the version an upload would replace; the document is still present through its other version.
    assert.deepEqual(await store.generations.usage({ documentId: 'a', versionKey: 'a' }), { documents: 2, chunks: 2, textBytes: 17, documentPresent: true });
    assert.deepEqual(await store.generations.usage({ documentId: 'b', versionKey: 'b' }), { documents: 1, chunks: 3, textBytes: 14, documentPresent: false });
    assert.deepEqual(await store.generations.usage({ documentId: 'new', versionKey: 'new' }), { documents: 2, chunks: 4, textBytes: 25, documentPresent: false });
    // A replacement retires the old generation: only the new one counts.
    await publisher.stageAndActivate('c1', input('b', ['hi']));
    assert.deepEqual(await store.generations.usage(NONE), { documents: 2, chunks: 4, textBytes: 16, documentPresent: false });
  } finally {
    storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the text_bytes migration fills in the bytes of generations written before it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hds-usage-migration-'));
  const path = join(dir, 'client.db');
  try {
    const old = openDatabase(path, CLIENT_MIGRATIONS.slice(0, 2));
    const insert = old.prepare(
      `INSERT INTO generations (document_id, version_key, state, created_at, staged_at, canonical_metadata, entities, embedding, chunk_count, manifest)
       VALUES (?, ?, ?, '2024-01-01', '2024-01-01', '{}', '{}', '{}', ?, '{}') RETURNING generation`,
    );
    const active = (insert.get('a', 'a', 'active', 2) as { generation: number }).generation;
    const chunk = old.prepare(`INSERT INTO chunks (generation, chunk_index, text, entities, vector) VALUES (?, ?, ?, '{}', x'00')`);
    chunk.run(active, 0, 'Ringgit');
    chunk.run(active, 1, 'ñ');
    old.close();
    const store = new ClientStore('c', { open: () => openDatabase(path, CLIENT_MIGRATIONS) }, { logRetained: 100 });
    return store.generations.usage(NONE).then((usage) => {
      store.close();
      assert.deepEqual(usage, { documents: 1, chunks: 2, textBytes: 9, documentPresent: false });
    });
  } finally {
    setImmediate(() => rmSync(dir, { recursive: true, force: true }));
  }
});

const QUOTAS = { maxDocuments: 2, maxChunks: 10, maxTextBytes: 1000 };

test('an upload is refused only when the Client, without the version it replaces, is at or over a quota', () => {
  const usage = (documents: number, chunks: number, textBytes: number, documentPresent = false) => ({ documents, chunks, textBytes, documentPresent });
  assert.equal(uploadRefusal(usage(1, 9, 999), QUOTAS), null, 'room left on every quota');
  assert.deepEqual(uploadRefusal(usage(2, 3, 10), QUOTAS), { code: 'client_quota_exceeded', quota: 'documents', observed: 2, limit: 2, unit: 'documents' });
  assert.equal(uploadRefusal(usage(2, 3, 10, true), QUOTAS), null, 'a new version of a document already counted adds no document');
  assert.deepEqual(uploadRefusal(usage(1, 10, 10), QUOTAS), { code: 'client_quota_exceeded', quota: 'chunks', observed: 10, limit: 10, unit: 'chunks' });
  assert.deepEqual(uploadRefusal(usage(1, 3, 1000), QUOTAS), { code: 'client_quota_exceeded', quota: 'text_bytes', observed: 1000, limit: 1000, unit: 'utf8_bytes' });
  const message = quotaMessage(uploadRefusal(usage(1, 10, 10), QUOTAS)!, 'upload');
  assert.match(message, /^Client quota exceeded: the Client holds 10 indexed chunks, and its quota is 10\./);
});

test('a job fails when its document would take the Client over a quota', () => {
  const besides = { documents: 1, chunks: 6, textBytes: 600, documentPresent: false };
  assert.equal(projectedBreach(besides, { chunks: 4, textBytes: 400 }, QUOTAS), null, 'exactly at the quotas is allowed');
  assert.deepEqual(projectedBreach(besides, { chunks: 5, textBytes: 10 }, QUOTAS), { code: 'client_quota_exceeded', quota: 'chunks', observed: 11, limit: 10, unit: 'chunks' });
  assert.deepEqual(projectedBreach(besides, { chunks: 1, textBytes: 401 }, QUOTAS), { code: 'client_quota_exceeded', quota: 'text_bytes', observed: 1001, limit: 1000, unit: 'utf8_bytes' });
  assert.deepEqual(projectedBreach({ ...besides, documents: 2 }, { chunks: 1, textBytes: 1 }, QUOTAS)?.quota, 'documents');
  assert.equal(projectedBreach({ ...besides, documents: 2, documentPresent: true }, { chunks: 1, textBytes: 1 }, QUOTAS), null);
  assert.match(quotaMessage(projectedBreach(besides, { chunks: 5, textBytes: 10 }, QUOTAS)!, 'job'), /indexing this document would bring the Client to 11 indexed chunks, and its quota is 10/);
});
