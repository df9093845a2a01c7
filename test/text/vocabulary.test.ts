import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tableStrings } from '../../src/text/string-table.ts';
import { readFileSync } from 'node:fs';
import {
  EAGER_BIGRAM_MIN_WORDS, EMPTY_VOCABULARY, buildVocabulary, derivedTermsOf, fuzzyCandidates, mergeVocabularies, vocabularyEntries, vocabularyFromTexts,
  vocabularyHasMalayRoot, vocabularyHasTermsOf, vocabularyHasWord, vocabularyWordsOf,
} from '../../src/text/vocabulary.ts';
import { characterSimilarity, codePoints, levenshteinDistance } from '../../src/text/similarity.ts';
import { analyzeQueryTerms } from '../../src/text/analyzer.ts';
import { malayRootCandidates, malayStem } from '../../src/text/malay-stemmer.ts';

const ESSAYS = new URL('../../../shared/datasets/malay-text/karangan-sekolah.txt', import.meta.url);

test('vocabulary words are normalized letter words; numbers, identifiers and stopwords are left out', () => {
  assert.deepEqual(vocabularyWordsOf('The Statement of ACC-0012345, RM15.30, statement again, Baki'), ['statement', 'baki']);
});

test('counts are per text, entries are sorted by word, merging sums counts', () => {
  const a = vocabularyFromTexts(['baki akaun baki', 'akaun simpanan']);
  const b = vocabularyFromTexts(['akaun tetap']);
  assert.deepEqual(vocabularyEntries(a), [['akaun', 2], ['baki', 1], ['simpanan', 1]]);
  assert.deepEqual(vocabularyEntries(mergeVocabularies([a, b])), [['akaun', 3], ['baki', 1], ['simpanan', 1], ['tetap', 1]]);
  assert.deepEqual(vocabularyEntries(buildVocabulary(vocabularyEntries(a))), vocabularyEntries(a));
  const merged = mergeVocabularies([a, b]);
  const rebuilt = buildVocabulary(vocabularyEntries(merged));
  assert.deepEqual(tableStrings(merged.terms).sort(), tableStrings(rebuilt.terms).sort());
  assert.deepEqual(tableStrings(merged.malayRoots).sort(), tableStrings(rebuilt.malayRoots).sort());
  assert.deepEqual(tableStrings(merged.words).sort(), tableStrings(rebuilt.words).sort(), 'ids follow first sight; the words are the same');
  assert.deepEqual(vocabularyEntries(EMPTY_VOCABULARY), []);
});

test('a built vocabulary is immutable', () => {
  const v = vocabularyFromTexts(['akaun']);
  assert.ok(Object.isFrozen(v) && Object.isFrozen(v.words));
  assert.throws(() => Object.assign(v.words, { size: 0 }));
});

test('membership by word, by index term, and by Malay root of affixed words', () => {
  const v = vocabularyFromTexts(['Pelajaran di sekolah', 'Guru mengajar murid', 'account statements']);
  assert.ok(vocabularyHasWord(v, 'pelajaran'));
  assert.ok(!vocabularyHasWord(v, 'ajar'));
  assert.ok(vocabularyHasMalayRoot(v, 'ajar'));
  assert.ok(vocabularyHasTermsOf(v, 'statement'));
  assert.ok(vocabularyHasTermsOf(v, 'accounts'));
  assert.ok(!vocabularyHasTermsOf(v, 'invoice'));
});

test('fuzzy candidates equal a brute-force scan of the whole vocabulary (bigram index loses nothing), built eagerly or on first lookup', () => {
  const small = vocabularyFromTexts(readFileSync(ESSAYS, 'utf8').split('\n'));
  assert.ok(small.words.size > 3000 && small.words.size < EAGER_BIGRAM_MIN_WORDS);
  assert.equal(small.bigrams, null, 'a small vocabulary is indexed on its first lookup');
  // The essays' words and made-up neighbours of them, past the size indexed where it is built.
  const entries = vocabularyEntries(small);
  for (let i = 0; entries.length < EAGER_BIGRAM_MIN_WORDS + 100; i++) entries.push([`${entries[i % small.words.size][0]}${'qzx'[i % 3]}${String.fromCharCode(97 + (i % 26))}`, 1]);
  const large = buildVocabulary(entries);
  assert.ok(large.bigrams !== null && large.words.size > EAGER_BIGRAM_MIN_WORDS);
  for (const v of [small, large]) checkAgainstBruteForce(v);
});

function checkAgainstBruteForce(v: ReturnType<typeof buildVocabulary>): void {
  const queries = ['pendidkan', 'keluarag', 'masyrakat', 'negaar', 'kerjaa', 'semangta', 'pelajr', 'ajar', 'xyzq', 'kebersihn'];
  for (const query of queries) {
    for (const min of [0.6, 0.75]) {
      const fast = fuzzyCandidates(v, query, { minSimilarity: min }).map((c) => c.word).sort();
      const slow = tableStrings(v.words).filter((w) => w !== query && characterSimilarity(query, w) >= min && sharesBigram(query, w)).sort();
      assert.deepEqual(fast, slow, `${query} @ ${min}`);
      const capped = fuzzyCandidates(v, query, { minSimilarity: min, maxEdits: 2 }).map((c) => c.word).sort();
      const cappedSlow = slow.filter((w) => levenshteinDistance(codePoints(query), codePoints(w)) <= 2);
      assert.deepEqual(capped, cappedSlow, `${query} @ ${min}, <= 2 edits`);
      const sameFirst = fuzzyCandidates(v, query, { minSimilarity: min, maxEdits: 2, sameFirstCharacter: true }).map((c) => c.word).sort();
      assert.deepEqual(sameFirst, cappedSlow.filter((w) => w[0] === query[0]), `${query} @ ${min}, <= 2 edits, same first character`);
    }
  }
}

function sharesBigram(a: string, b: string): boolean {
  const grams = (w: string) => { const c = ['^', ...w, '$']; return new Set(c.slice(1).map((ch, i) => c[i] + ch)); };
  const x = grams(a);
  for (const g of grams(b)) if (x.has(g)) return true;
  return false;
}

test('same-first-character candidates compare the whole first character, however many bytes it takes', () => {
  const v = buildVocabulary([['édition', 3], ['èdition', 2], ['edition', 4], ['𝑥edition', 1], ['𝑥editiom', 1], ['édiction', 1]]);
  const words = (query: string) => fuzzyCandidates(v, query, { minSimilarity: 0.6, maxEdits: 2, sameFirstCharacter: true }).map((c) => c.word);
  assert.deepEqual(words('éditon'), ['édition', 'édiction']);
  assert.deepEqual(words('editoin'), ['edition']);
  assert.deepEqual(words('𝑥editon'), ['𝑥edition', '𝑥editiom']);
  assert.deepEqual(fuzzyCandidates(v, 'éditon', { minSimilarity: 0.6, maxEdits: 2 }).map((c) => c.word).sort(), ['edition', 'édiction', 'édition', 'èdition'].sort());
});

test('fuzzy candidates are ordered by similarity, then count, then word', () => {
  const v = buildVocabulary([['bayaran', 1], ['bayarang', 5], ['bayar', 9], ['payaran', 2]]);
  const candidates = fuzzyCandidates(v, 'bayarn', { minSimilarity: 0.6 });
  assert.deepEqual(candidates.map((c) => c.word), ['bayaran', 'bayar', 'bayarang', 'payaran']);
  assert.equal(candidates[0].similarity, characterSimilarity('bayarn', 'bayaran'));
});

test('derived terms are the query terms and Malay roots of each word, once, whatever the word is made of', () => {
  // ASCII words (the fast path), affixed Malay, accented and other-script words, a ligature, a stopword and a repeat.
  const words = ['cells', 'cell', 'pengajaran', 'memperkenalkan', 'kecemerlangan', 'café', 'naïve', 'straße', 'ﬁnance', 'σίσυφος', 'the', 'dan', 'cells'];
  const expectedTerms = [...new Set(words.flatMap((word) => analyzeQueryTerms(word)))];
  const expectedRoots = [...new Set(words.flatMap((word) => (malayStem(word) !== word ? [malayStem(word), ...malayRootCandidates(word)] : malayRootCandidates(word))))];
  // Twice: the second answer comes from the words' cache entries.
  for (let round = 0; round < 2; round++) {
    const derived = derivedTermsOf(words);
    assert.deepEqual(derived.terms, expectedTerms);
    assert.deepEqual(derived.malayRoots, expectedRoots);
  }
  assert.ok(expectedTerms.includes('cell') && !expectedTerms.includes('the'));
  assert.ok(expectedRoots.includes('ajar') && expectedRoots.includes('cemerlang'), JSON.stringify(expectedRoots));
});
