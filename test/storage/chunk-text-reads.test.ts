// Chunk texts as a search reads them for the rows of its answer: in the order asked, across generations,
// several of one generation by one statement (in batches), null for a chunk that is not there.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Storage } from '../../src/storage/storage.ts';
import { CHUNK_TEXT_READ_BATCH } from '../../src/storage/client-store.ts';
import { Publisher } from '../../src/publication/publisher.ts';
import { createHashingEmbedder } from '../../src/models/hashing-embedder.ts';
import { emptyEntities } from '../../src/domain/entities.ts';
import { lanesAndManifest } from '../../src/serving/manifest.ts';
import { canonicalMetadataOf } from '../../src/ingest/pipeline.ts';
import { metadataLeaves } from '../../src/domain/metadata-leaves.ts';
import { versionKey } from '../../src/domain/identity.ts';
import { removeDir, tempDataDir } from '../helpers/server.ts';

async function publish(storage: Storage, documentId: string, texts: string[]): Promise<number> {
  const vectors = await createHashingEmbedder().embed(texts);
  const pages = [{ pageNumber: null, pageLabel: null, text: texts.join('\n') }];
  const parsed = { mimeType: 'text/plain', extension: 'txt', pages, pageCount: null, textExtraction: 'native' as const, ocrUsed: false, warnings: [], properties: { title: null, author: null, createdAt: null } };
  const canonicalMetadata = canonicalMetadataOf(parsed, `${documentId}.txt`, { status: 'disabled', categories: [] }, {});
  const leaves = metadataLeaves(canonicalMetadata);
  const chunks = texts.map((text, chunkIndex) => ({ chunkIndex, page: null, pageLabel: null, text, entities: emptyEntities(), vector: vectors[chunkIndex] }));
  const activation = await new Publisher(storage, { enabled: true }).stageAndActivate('c', {
    documentId,
    versionKey: versionKey(documentId),
    jobId: null,
    createdAt: new Date().toISOString(),
    canonicalMetadata,
    entities: emptyEntities(),
    embedding: {},
    deletion: { deleted: false, deletedAt: null, deletedBy: null },
    chunks,
    leaves,
    ...lanesAndManifest({ documentId, versionId: documentId, jobId: null }, chunks, leaves, null),
    leavesIndexed: true,
  });
  assert.ok(activation);
  return activation.generation;
}

test('chunk texts come back in the order asked, across generations and batches, null where absent', async () => {
  const dir = tempDataDir();
  const storage = new Storage(dir);
  try {
    const many = Array.from({ length: CHUNK_TEXT_READ_BATCH * 2 + 1 }, (_, i) => `Ledger line ${i}.`);
    const first = await publish(storage, 'ledger', many);
    const second = await publish(storage, 'memo', ['Memo one.', 'Memo two.']);
    const store = await storage.client('c');
    const keys = [
      { generation: second, chunkIndex: 1 },
      ...many.map((_, i) => ({ generation: first, chunkIndex: many.length - 1 - i })),
      { generation: second, chunkIndex: 0 },
      { generation: first, chunkIndex: 3 },
      { generation: first, chunkIndex: many.length },
      { generation: second + 100, chunkIndex: 0 },
    ];
    assert.deepEqual(await store.chunkTexts(keys), ['Memo two.', ...[...many].reverse(), 'Memo one.', 'Ledger line 3.', null, null]);
    assert.deepEqual(await store.chunkTexts([]), []);
  } finally {
    storage.close();
    removeDir(dir);
  }
});
