// What the serving budget counts: a small vocabulary's bigram index, built on first lookup, is reserved for
// before it exists; the process budget leaves snapshots what start-up, the segment thread and V8's young
// generation do not take; a served Client counts its open database connection.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyChange, emptySnapshot } from '../../src/serving/snapshot.ts';
import { CLIENT_CONNECTION_BYTES, LAZY_BIGRAM_BYTES_PER_WORD, SEGMENT_THREAD_RESERVE_BYTES, segmentBytes, snapshotBudgetBytes, snapshotBytes } from '../../src/serving/memory-estimate.ts';
import { fuzzyCandidates } from '../../src/text/vocabulary.ts';
import { loadedGeneration } from '../helpers/generations.ts';

const MIB = 1024 * 1024;

test('a segment whose bigram index waits for its first lookup is estimated with room for it', async () => {
  const snapshot = await applyChange(emptySnapshot('c', 4), { activated: [loadedGeneration('d', ['Penyata akaun simpanan bulan Mac', 'Faedah dikreditkan ke akaun'], { dimensions: 4 })] });
  const [segment] = snapshot.segments;
  assert.equal(segment.vocabulary.bigrams, null);
  const before = segmentBytes(segment);
  assert.ok(before >= segment.vocabulary.words.size * LAZY_BIGRAM_BYTES_PER_WORD);
  assert.deepEqual(fuzzyCandidates(segment.vocabulary, 'akuan', { minSimilarity: 0.6 }).map((candidate) => candidate.word), ['akaun'], 'the first lookup builds it');
});

test('the process budget leaves served Clients what its start-up size, the segment thread and the young generation do not take', () => {
  assert.equal(snapshotBudgetBytes(1024 * MIB, 110 * MIB, 16 * MIB), 1024 * MIB - 110 * MIB - SEGMENT_THREAD_RESERVE_BYTES - 32 * MIB);
  assert.equal(snapshotBudgetBytes(200 * MIB, 110 * MIB, 16 * MIB), 0, 'a budget below the rest leaves none (only the Client being read is held)');
});

test('a served Client is counted with the database connection it keeps open', async () => {
  const snapshot = await applyChange(emptySnapshot('c', 4), { activated: [loadedGeneration('d', ['Penyata akaun simpanan bulan Mac'], { dimensions: 4 })] });
  const [segment] = snapshot.segments;
  assert.ok(snapshotBytes(snapshot) >= segmentBytes(segment) + CLIENT_CONNECTION_BYTES);
});
