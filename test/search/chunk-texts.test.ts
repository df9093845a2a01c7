// Texts for the rows of an answer come from the store and are checked against the hashes recorded with the
// generation: a chunk purged while a read runs fails it with a retryable 503, an altered one with 500
// naming the lane and point; the answer is never completed with what is left (SPEC.md search rule 10).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Storage } from '../../src/storage/sqlite/sqlite-storage.ts';
import { Publisher } from '../../src/publication/publisher.ts';
import { ServingIndex } from '../../src/serving/serving-index.ts';
import { inlineSegmentBuilder } from '../../src/serving/segment.ts';
import { chunksOf } from '../../src/serving/snapshot.ts';
import { readChunkTexts } from '../../src/search/chunk-texts.ts';
import type { ChunkTextReader } from '../../src/search/chunk-texts.ts';
import { ServiceError } from '../../src/domain/service-error.ts';
import { createHashingEmbedder } from '../../src/models/hashing-embedder.ts';
import { removeDir, tempDataDir } from '../helpers/server.ts';
import { seedVersions } from '../helpers/seed.ts';

test('chunk texts of an answer: verified when intact, 503 when purged meanwhile, 500 when altered', async () => {
  const dir = tempDataDir();
  await seedVersions(dir, 'c', 'doc', [{ versionId: 'v1', text: 'Remittance advice for March.' }, { versionId: 'v2', text: 'Remittance advice for April.' }]);
  const storage = new Storage(dir);
  try {
    const index = new ServingIndex(storage, createHashingEmbedder().dimensions, inlineSegmentBuilder);
    await index.catchUp('c');
    const snapshot = index.snapshot('c');
    const chunks = [...snapshot.versions.values()].flatMap((version) => chunksOf(snapshot, version));
    const reader: ChunkTextReader = (clientId, keys) => storage.client(clientId).generations.chunkTexts(keys);
    const texts = await readChunkTexts(reader, 'c', chunks);
    assert.deepEqual([...texts.values()].map((stored) => stored.text).sort(), ['Remittance advice for April.', 'Remittance advice for March.']);

    // The reader's view of the store changed after its snapshot was taken: v2 is purged by another process.
    await new Publisher(storage, { enabled: true }).beginRemoval('c', 'doc', ['v2']);
    await storage.client('c').purges.purgeVersion('doc', 'v2');
    await assert.rejects(readChunkTexts(reader, 'c', chunks), (error: unknown) => error instanceof ServiceError && error.code === 'publication_unavailable');

    const v1 = chunks.filter((chunk) => chunk.version.versionId === 'v1');
    const altered: ChunkTextReader = async (clientId, keys) => (await reader(clientId, keys)).map((stored) => stored && { ...stored, text: `${stored.text} (altered)` });
    await assert.rejects(readChunkTexts(altered, 'c', v1), (error: unknown) => {
      assert.ok(error instanceof ServiceError);
      assert.equal(error.code, 'stored_evidence_inconsistent');
      assert.deepEqual(error.details, { code: 'stored_evidence_inconsistent', lane: 'content', point: `generation ${v1[0].version.generation}` });
      return true;
    });
  } finally {
    storage.close();
    removeDir(dir);
  }
});
