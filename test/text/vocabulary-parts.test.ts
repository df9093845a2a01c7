import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mergeVocabularies, partsFuzzyCandidates, fuzzyCandidates, vocabularyFromTexts, partsHaveWord, partsHaveMalayRoot } from '../../src/text/vocabulary.ts';
import { normalizeContentQuery } from '../../src/text/query-normalizer.ts';

const PARTS = [
  vocabularyFromTexts(['The remittance advice was late.', 'Statement of account for March.']),
  vocabularyFromTexts(['Remittance received in Singapore.', 'Pelajaran dan mengajar di sekolah.']),
  vocabularyFromTexts(['Quarterly statement and reconciliation.']),
];
const MERGED = mergeVocabularies(PARTS);

test('segmented vocabulary parts answer like one merged vocabulary', () => {
  for (const word of ['remitance', 'statment', 'reconcilation', 'singapur']) {
    const limits = { minSimilarity: 0.6, maxEdits: 4 };
    assert.deepEqual(partsFuzzyCandidates(PARTS, word, limits), fuzzyCandidates(MERGED, word, limits), word);
  }
  assert.equal(partsHaveWord(PARTS, 'singapore'), true);
  assert.equal(partsHaveWord(PARTS, 'penang'), false);
  assert.equal(partsHaveMalayRoot(PARTS, 'ajar'), true);
});

test('query normalization over parts equals normalization over the merged vocabulary', () => {
  for (const query of ['remitance stmt', 'ajar statment', 'reconcilation singapur', 'acc txn']) {
    assert.deepEqual(normalizeContentQuery(query, PARTS), normalizeContentQuery(query, MERGED), query);
  }
  assert.equal(normalizeContentQuery('remitance', PARTS).text, 'remittance');
});
