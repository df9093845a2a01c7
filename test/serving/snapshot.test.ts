import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyChange, emptySnapshot, chunkByOrdinal, MAX_SEGMENTS } from '../../src/serving/snapshot.ts';
import { loadedGeneration } from '../helpers/generations.ts';
import { versionIdentity } from '../../src/domain/identity.ts';
import { searchBm25 } from '../../src/search/bm25.ts';
import { analyzeTerms } from '../../src/text/analyzer.ts';

const DIMS = 4;
const generation = (documentId: string, texts: string[]) => loadedGeneration(documentId, texts, { dimensions: DIMS });

function sparseIds(snapshot: ReturnType<typeof emptySnapshot>, query: string): string[] {
  const { hits } = searchBm25(snapshot.segments.map((segment) => segment.bm25), analyzeTerms(query), {
    limit: 10_000,
    isLive: (ordinal) => snapshot.live[ordinal] === 1,
  });
  return hits.map((hit) => chunkByOrdinal(snapshot, hit.id)!.version.documentId).sort();
}

test('publishing never changes an older snapshot', () => {
  const s0 = emptySnapshot('c', DIMS);
  const s1 = applyChange(s0, { activated: [generation('a', ['quarterly ledger'])] });
  const s2 = applyChange(s1, { activated: [generation('a', ['annual budget'])] });
  assert.deepEqual(sparseIds(s1, 'ledger'), ['a']);
  assert.deepEqual(sparseIds(s1, 'budget'), []);
  assert.deepEqual(sparseIds(s2, 'ledger'), [], 'the retired generation is gone from the new snapshot');
  assert.deepEqual(sparseIds(s2, 'budget'), ['a']);
  assert.equal(s1.versions.get(versionIdentity({ documentId: 'a', versionId: 'a' }))!.chunks[0].text, 'quarterly ledger');
  assert.equal(s2.sequence, s1.sequence + 1);
  assert.equal(s2.liveChunkCount, 1);
});

test('a version never moves backwards to an older generation', () => {
  const newer = generation('a', ['newer text']);
  const older = { ...generation('a', ['older text']), generation: newer.generation - 100 };
  const snapshot = applyChange(applyChange(emptySnapshot('c', DIMS), { activated: [newer] }), { activated: [older] });
  assert.deepEqual(sparseIds(snapshot, 'newer'), ['a']);
  assert.deepEqual(sparseIds(snapshot, 'older'), []);
});

test('many small publications are merged into few segments with identical results', () => {
  let snapshot = emptySnapshot('c', DIMS);
  for (let i = 0; i < 300; i++) {
    snapshot = applyChange(snapshot, { activated: [generation(`doc-${i}`, [`common term unique${i}`, `second chunk ${i % 7}`])] });
  }
  // Replace a third of them, then remove some.
  for (let i = 0; i < 100; i++) snapshot = applyChange(snapshot, { activated: [generation(`doc-${i}`, [`replaced text ${i}`])] });
  snapshot = applyChange(snapshot, { activated: [], removed: [versionIdentity({ documentId: 'doc-250', versionId: 'doc-250' })] });
  assert.ok(snapshot.segments.length <= MAX_SEGMENTS, `${snapshot.segments.length} segments`);
  assert.equal(snapshot.versions.size, 299);
  assert.equal(sparseIds(snapshot, 'common').length, 199);
  assert.equal(sparseIds(snapshot, 'replaced').length, 100);
  assert.deepEqual(sparseIds(snapshot, 'unique250'), []);
  assert.deepEqual(sparseIds(snapshot, 'unique251'), ['doc-251']);
  assert.equal(snapshot.liveChunkCount, 100 + 199 * 2);
});
