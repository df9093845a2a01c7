import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyChange, emptySnapshot } from '../../src/serving/snapshot.ts';
import type { ClientSnapshot } from '../../src/serving/snapshot.ts';
import { searchContent } from '../../src/search/content-lane.ts';
import { ServiceError } from '../../src/domain/service-error.ts';
import { createHashingEmbedder } from '../../src/models/hashing-embedder.ts';
import { loadedGeneration } from '../helpers/generations.ts';

const embedder = createHashingEmbedder();

async function generation(documentId: string, text: string) {
  const [vector] = await embedder.embed([text]);
  return loadedGeneration(documentId, [text], { dimensions: embedder.dimensions, vectors: [vector] });
}

test('a lane point without stored evidence fails the search with 500 naming the lane and point', async () => {
  const snapshot = await applyChange(emptySnapshot('c', embedder.dimensions), { activated: [await generation('d', 'escrow account statement')] });
  const healthy = await searchContent(snapshot, 'escrow', 0, snapshot.live, embedder);
  assert.equal(healthy.versions.length, 1);
  // Corrupt the segment: its postings still name ordinal 0, its ordinal range no longer does.
  const [segment] = snapshot.segments;
  const corrupt: ClientSnapshot = { ...snapshot, segments: [{ ...segment, minOrdinal: 1, maxOrdinal: 0 }] };
  await assert.rejects(searchContent(corrupt, 'escrow', 0, corrupt.live, embedder), (error: unknown) => {
    assert.ok(error instanceof ServiceError);
    assert.equal(error.code, 'stored_evidence_inconsistent');
    assert.deepEqual({ ...(error.details as object), snapshot_sequence: 0 }, { code: 'stored_evidence_inconsistent', lane: 'content.sparse', point: 0, snapshot_sequence: 0 });
    return true;
  });
});
