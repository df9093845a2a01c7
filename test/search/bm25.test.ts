import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BM25_B, BM25_K1, BM25_TITLE_B, BM25_TITLE_WEIGHT, bm25Idf, buildBm25Segment, computeBm25Stats, mergeBm25Segments,
  prepareBm25Liveness, searchBm25, searchBm25Exhaustively, searchBm25Pruned,
} from '../../src/search/bm25.ts';
import type { Bm25Segment, FieldAnalyzer, SparseDoc } from '../../src/search/bm25.ts';
import { MAX_BYTE_TERM_FREQUENCY } from '../../src/codec/bm25-segment.ts';
import { COMPACT_MIN } from '../../src/search/best-of.ts';

/** Whitespace "analyzer" so every term and length in these tests can be checked by hand. */
const words: FieldAnalyzer = (text, title) => ({ text: text.split(' ').filter(Boolean), title: title.split(' ').filter(Boolean) });

const CORPUS: SparseDoc[] = [
  { id: 10, text: 'apple banana apple', title: 'fruit' },
  { id: 11, text: 'banana cherry', title: 'apple' },
  { id: 12, text: 'cherry cherry cherry durian' },
];
const PARAMS = { k1: 1.2, b: 0.75, titleWeight: 2, titleB: 0.5 };

function close(actual: number, expected: number): void {
  assert.ok(Math.abs(actual - expected) <= 1e-5 * Math.max(1, Math.abs(expected)), `${actual} != ${expected}`);
}

test('tuned defaults are exported constants', () => {
  assert.deepEqual([BM25_K1, BM25_B, BM25_TITLE_WEIGHT, BM25_TITLE_B], [1.5, 0.75, 3, 0.5]);
});

test('scores match BM25F computed by hand', () => {
  const segment = buildBm25Segment(CORPUS, words);
  const { hits, matched } = searchBm25([segment], ['apple'], { limit: 10, ...PARAMS });
  // N = 3, df(apple) = 2, avg text length = 9 / 3 = 3, avg title length = 2 / 3.
  const idf = Math.log(1 + (3 - 2 + 0.5) / (2 + 0.5));
  const tf0 = 2 / (1 - 0.75 + 0.75 * (3 / 3));
  const tf1 = (2 * 1) / (1 - 0.5 + 0.5 * (1 / (2 / 3)));
  const expected0 = (idf * tf0 * 2.2) / (tf0 + 1.2);
  const expected1 = (idf * tf1 * 2.2) / (tf1 + 1.2);
  assert.equal(matched, 2);
  assert.deepEqual(hits.map((h) => h.id), expected0 > expected1 ? [10, 11] : [11, 10]);
  close(hits.find((h) => h.id === 10)!.score, expected0);
  close(hits.find((h) => h.id === 11)!.score, expected1);
  close(bm25Idf(3, 2), idf);
});

test('scores add over query terms; a repeated query term counts twice', () => {
  const segment = buildBm25Segment(CORPUS, words);
  const one = searchBm25([segment], ['cherry'], { limit: 10, ...PARAMS }).hits;
  const two = searchBm25([segment], ['cherry', 'cherry'], { limit: 10, ...PARAMS }).hits;
  for (const hit of one) close(two.find((h) => h.id === hit.id)!.score, 2 * hit.score);
  const both = searchBm25([segment], ['cherry', 'durian'], { limit: 10, ...PARAMS }).hits;
  const durian = searchBm25([segment], ['durian'], { limit: 10, ...PARAMS }).hits;
  close(both.find((h) => h.id === 12)!.score, one.find((h) => h.id === 12)!.score + durian[0].score);
});

test('title weight: a title match counts, and weight 0 removes title-only matches', () => {
  const segment = buildBm25Segment(CORPUS, words);
  assert.deepEqual(searchBm25([segment], ['fruit'], { limit: 10, ...PARAMS }).hits.map((h) => h.id), [10]);
  const noTitle = searchBm25([segment], ['apple'], { limit: 10, ...PARAMS, titleWeight: 0 });
  assert.deepEqual(noTitle.hits.map((h) => h.id), [10]);
  assert.equal(noTitle.matched, 1);
  const heavy = searchBm25([segment], ['apple'], { limit: 10, ...PARAMS, titleWeight: 50 });
  assert.deepEqual(heavy.hits.map((h) => h.id), [11, 10]);
});

test('limit bounds hits but not matched; ties break by ascending id; unknown terms match nothing', () => {
  const twins = buildBm25Segment([{ id: 7, text: 'same words' }, { id: 3, text: 'same words' }, { id: 5, text: 'other' }], words);
  assert.deepEqual(searchBm25([twins], ['same'], { limit: 10 }).hits.map((h) => h.id), [3, 7]);
  const limited = searchBm25([twins], ['same'], { limit: 1 });
  assert.deepEqual(limited.hits.map((h) => h.id), [3]);
  assert.equal(limited.matched, 2);
  assert.deepEqual(searchBm25([twins], ['same'], { limit: 0 }), { hits: [], matched: 2 });
  assert.deepEqual(searchBm25([twins], ['absent'], { limit: 10 }), { hits: [], matched: 0 });
  assert.throws(() => searchBm25([twins], ['same'], { limit: -1 }), RangeError);
  assert.throws(() => searchBm25([twins], ['same'], { limit: 1.5 }), RangeError);
});

test('the best `limit` of many matches are exactly the head of every match ranked, ties at the cut-off included', () => {
  // Three segments of docs drawn from few words, so many scores are equal and some straddle every cut-off.
  // More matches than COMPACT_MIN, so the candidates are pruned while they are gathered (best-of.ts).
  let state = 11;
  const next = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const vocabulary = ['ledger', 'invoice', 'akaun', 'baki', 'cukai', 'resit'];
  const docs = Array.from({ length: 20_000 }, (_, id) => ({ id, text: Array.from({ length: 1 + Math.floor(next() * 12) }, () => vocabulary[Math.floor(next() * vocabulary.length)]).join(' ') }));
  const segments = [docs.slice(0, 6000), docs.slice(6000, 14_000), docs.slice(14_000)].map((part) => buildBm25Segment(part, words));
  const liveById = Uint8Array.from(docs, (_, id) => (id % 7 === 3 ? 0 : 1));
  for (const query of [['ledger'], ['akaun', 'baki'], ['ledger', 'invoice', 'cukai', 'resit']]) {
    const all = searchBm25(segments, query, { limit: docs.length, liveById });
    const expected = [...all.hits].sort((a, b) => b.score - a.score || a.id - b.id);
    assert.deepEqual(all.hits, expected, 'every match comes back ranked');
    assert.ok(all.matched > COMPACT_MIN, `${query.join(' ')}: ${all.matched} matches, enough to be pruned`);
    for (const limit of [1, 10, 99, 1000, all.matched - 1, all.matched]) {
      const limited = searchBm25(segments, query, { limit, liveById });
      assert.equal(limited.matched, all.matched);
      assert.deepEqual(limited.hits, expected.slice(0, limit), `${query.join(' ')}, limit ${limit}`);
    }
  }
});

test('countUpTo: matches are counted exactly up to it, and past it only as more than it, with the same hits', () => {
  // The first docs score high and the others low, so once the candidates are pruned (after COMPACT_MIN of
  // them) every later doc is below the best: those are the ones counted only while the count is at most countUpTo.
  const docs = Array.from({ length: 12_000 }, (_, id) => ({ id, text: id < 5000 ? 'akaun akaun' : 'akaun baki baki baki baki baki' }));
  const segment = buildBm25Segment(docs, words);
  const liveById = Uint8Array.from(docs, (_, id) => (id % 5 === 1 ? 0 : 1));
  const exact = searchBm25([segment], ['akaun'], { limit: 10, liveById });
  assert.equal(exact.matched, 9600);
  for (const countUpTo of [0, 100, 6000, exact.matched - 1]) {
    const counted = searchBm25([segment], ['akaun'], { limit: 10, liveById, countUpTo });
    assert.deepEqual(counted.hits, exact.hits, `countUpTo ${countUpTo}`);
    assert.ok(counted.matched > countUpTo && counted.matched <= exact.matched, `countUpTo ${countUpTo}: ${counted.matched} of ${exact.matched}`);
  }
  assert.ok(searchBm25([segment], ['akaun'], { limit: 10, liveById, countUpTo: 6000 }).matched < exact.matched, 'docs past the count are not all read');
  for (const countUpTo of [exact.matched, exact.matched + 1]) {
    assert.deepEqual(searchBm25([segment], ['akaun'], { limit: 10, liveById, countUpTo }), exact, `countUpTo ${countUpTo}`);
  }
});

test('countUpTo: a doc scoring at the candidates\' floor after the count is still kept (ties go to the lowest ids)', () => {
  // Every doc scores the same, and ids fall as the docs go on: the best 1,000 are the last docs of the segment,
  // read long after the count is passed and the candidates were pruned to the one bin every score is in.
  const docs = Array.from({ length: 12_000 }, (_, d) => ({ id: 12_000 - 1 - d, text: 'akaun baki' }));
  const segment = buildBm25Segment(docs, words);
  const exact = searchBm25([segment], ['akaun'], { limit: 1000 });
  assert.deepEqual(exact.hits.map((hit) => hit.id).sort((a, b) => a - b), Array.from({ length: 1000 }, (_, id) => id));
  const counted = searchBm25([segment], ['akaun'], { limit: 1000, countUpTo: 1000 });
  assert.deepEqual(counted.hits, exact.hits);
});

test('isLive hides docs from hits and matched without changing any score', () => {
  const segment = buildBm25Segment(CORPUS, words);
  const all = searchBm25([segment], ['apple', 'cherry'], { limit: 10, ...PARAMS });
  const some = searchBm25([segment], ['apple', 'cherry'], { limit: 10, ...PARAMS, isLive: (id) => id !== 10 });
  assert.equal(some.matched, all.matched - 1);
  assert.deepEqual(some.hits, all.hits.filter((h) => h.id !== 10));
  const mask = new Uint8Array(12);
  mask[11] = 1;
  const masked = searchBm25([segment], ['apple', 'cherry'], { limit: 10, ...PARAMS, liveById: mask });
  assert.deepEqual(masked.hits, all.hits.filter((h) => h.id === 11));
  assert.equal(masked.matched, 1);
});

test('global statistics are summed over segments: split segments score exactly like one', () => {
  const whole = buildBm25Segment(CORPUS, words);
  const parts = [buildBm25Segment(CORPUS.slice(0, 2), words), buildBm25Segment(CORPUS.slice(2), words)];
  assert.deepEqual(computeBm25Stats(parts), computeBm25Stats([whole]));
  for (const query of [['apple'], ['cherry', 'banana'], ['durian', 'fruit', 'apple']]) {
    assert.deepEqual(searchBm25(parts, query, { limit: 10 }), searchBm25([whole], query, { limit: 10 }));
  }
});

test('merging keeps live docs in order and scores exactly like the unmerged segments with the same liveness', () => {
  const parts = [buildBm25Segment(CORPUS.slice(0, 2), words), buildBm25Segment(CORPUS.slice(2), words)];
  const isLive = (id: number) => id !== 11;
  const merged = mergeBm25Segments(parts, isLive);
  assert.deepEqual([...merged.docIds], [10, 12]);
  assert.deepEqual(withWideFrequencies(merged), buildBm25Segment([CORPUS[0], CORPUS[2]], words));
  const liveness = prepareBm25Liveness(parts, isLive);
  assert.deepEqual(liveness.stats, computeBm25Stats([merged]));
  for (const query of [['apple'], ['cherry', 'banana'], ['durian', 'fruit', 'apple']]) {
    assert.deepEqual(searchBm25(parts, query, { limit: 10, liveness }), searchBm25([merged], query, { limit: 10 }));
  }
  const allLive = mergeBm25Segments(parts, () => true);
  assert.deepEqual(searchBm25([allLive], ['cherry', 'apple'], { limit: 10 }), searchBm25(parts, ['cherry', 'apple'], { limit: 10 }));
});

/** The segment with its term frequencies as built (16-bit), for comparing a merge with a build. */
function withWideFrequencies(segment: Bm25Segment): Bm25Segment {
  return { ...segment, postingTextTf: Uint16Array.from(segment.postingTextTf), postingTitleTf: Uint16Array.from(segment.postingTitleTf) };
}

test('a merge holds term frequencies in a byte while they all fit, in 16 bits when one does not, and scores the same', () => {
  const many = (term: string, times: number) => Array(times).fill(term).join(' ');
  const small = [buildBm25Segment(CORPUS, words)];
  const merged = mergeBm25Segments(small, () => true);
  assert.ok(merged.postingTextTf instanceof Uint8Array && merged.postingTitleTf instanceof Uint8Array);
  for (const [text, title] of [[many('apple', MAX_BYTE_TERM_FREQUENCY + 1), ''], ['apple', many('apple', MAX_BYTE_TERM_FREQUENCY + 1)], [many('apple', MAX_BYTE_TERM_FREQUENCY), 'apple']]) {
    const parts = [buildBm25Segment(CORPUS, words), buildBm25Segment([{ id: 20, text, title }], words)];
    const wide = mergeBm25Segments(parts, () => true);
    const fits = !text.includes(many('apple', MAX_BYTE_TERM_FREQUENCY + 1)) && !title.includes(many('apple', MAX_BYTE_TERM_FREQUENCY + 1));
    assert.equal(wide.postingTextTf instanceof Uint8Array, fits);
    assert.equal(wide.postingTitleTf instanceof Uint8Array, fits);
    assert.deepEqual(withWideFrequencies(wide), buildBm25Segment([...CORPUS, { id: 20, text, title }], words));
    for (const query of [['apple'], ['cherry', 'apple']]) assert.deepEqual(searchBm25([wide], query, { limit: 10 }), searchBm25(parts, query, { limit: 10 }));
  }
});

test('liveness prepared for other segments is refused', () => {
  const a = buildBm25Segment(CORPUS, words);
  const b = buildBm25Segment(CORPUS, words);
  assert.throws(() => searchBm25([b], ['apple'], { limit: 1, liveness: prepareBm25Liveness([a], () => true) }));
});

test('segments are immutable and refuse duplicate or invalid ids', () => {
  const segment = buildBm25Segment(CORPUS, words);
  assert.ok(Object.isFrozen(segment));
  assert.throws(() => buildBm25Segment([{ id: 1, text: 'a' }, { id: 1, text: 'b' }]), RangeError);
  assert.throws(() => buildBm25Segment([{ id: -1, text: 'a' }]), RangeError);
  assert.throws(() => buildBm25Segment([{ id: 2 ** 31, text: 'a' }]), RangeError);
  const empty = buildBm25Segment([]);
  assert.deepEqual(searchBm25([empty], ['a'], { limit: 5 }), { hits: [], matched: 0 });
});

test('the default analyzer is shared with queries: stems, stopwords and identifiers meet', () => {
  const segment = buildBm25Segment([
    { id: 0, text: 'The monthly statements for account ACC-0012345.', title: 'Statement' },
    { id: 1, text: 'Penyata akaun simpanan dan bayaran pinjaman bulanan.' },
    { id: 2, text: 'Unrelated text about the weather.' },
  ]);
  assert.deepEqual(searchBm25([segment], ['statement'], { limit: 5 }).hits.map((h) => h.id), [0]);
  assert.deepEqual(searchBm25([segment], ['0012345'], { limit: 5 }).hits.map((h) => h.id), [0]);
  assert.deepEqual(searchBm25([segment], ['bayar'], { limit: 5 }).hits.map((h) => h.id), [1]);
});

test('bestAmongById: the best score among a wider set than liveById, from the same pass (fusion\'s normalizer)', () => {
  let state = 5;
  const next = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const vocabulary = ['ledger', 'invoice', 'akaun', 'baki'];
  const docs = Array.from({ length: 3000 }, (_, id) => ({ id, text: Array.from({ length: 1 + Math.floor(next() * 9) }, () => vocabulary[Math.floor(next() * vocabulary.length)]).join(' ') }));
  const segments = [docs.slice(0, 1000), docs.slice(1000)].map((part) => buildBm25Segment(part, words));
  for (const query of [['ledger'], ['akaun', 'baki', 'baki']]) {
    // The wider set hides the best matches of all (deleted versions' chunks, say) and every eleventh doc.
    const every = searchBm25(segments, query, { limit: docs.length }).hits;
    const overall = every[0];
    const hidden = new Set(every.filter((hit) => hit.score === overall.score).map((hit) => hit.id));
    const visible = Uint8Array.from(docs, (_, id) => (id % 11 === 4 || hidden.has(id) ? 0 : 1));
    const unfiltered = searchBm25(segments, query, { limit: docs.length, liveById: visible });
    const top = Math.max(...unfiltered.hits.map((hit) => hit.score));
    assert.ok(top < overall.score, 'the hidden doc scores best of all');
    // The filter hides the docs of the best visible score.
    const scoreOf = new Map(unfiltered.hits.map((hit) => [hit.id, hit.score]));
    const liveById = visible.map((live, id) => (live === 1 && (scoreOf.get(id) ?? 0) < top ? 1 : 0));
    const filtered = searchBm25(segments, query, { limit: 10, liveById, bestAmongById: visible, countUpTo: 10 });
    assert.equal(filtered.best, top, query.join(' '));
    assert.ok(filtered.hits.every((hit) => hit.score < top), 'the best docs are not among the hits');
    assert.deepEqual(filtered.hits.map((hit) => hit.id), searchBm25(segments, query, { limit: 10, liveById }).hits.map((hit) => hit.id), 'hits as without it');
    assert.equal(searchBm25(segments, query, { limit: 10, liveById }).best, undefined, 'reported only when asked');
  }
  const all = new Uint8Array(docs.length).fill(1);
  assert.equal(searchBm25(segments, ['absent'], { limit: 10, liveById: all, bestAmongById: all }).best, 0);
});

test('a term added for another (idfCaps) weighs no more than it: a rare synonym never outscores the word it stands for', () => {
  // "invoice" is in 3 of 6 docs, "bil" (its Malay synonym) in 1: alone, "bil" has the higher idf.
  const docs: SparseDoc[] = [
    { id: 1, text: 'invoice due', title: '' },
    { id: 2, text: 'bil due', title: '' },
    { id: 3, text: 'invoice paid', title: '' },
    { id: 4, text: 'invoice sent', title: '' },
    { id: 5, text: 'letter sent', title: '' },
    { id: 6, text: 'memo paid', title: '' },
  ];
  const segment = buildBm25Segment(docs, words);
  const scoreOf = (hits: { id: number; score: number }[], id: number) => hits.find((hit) => hit.id === id)!.score;
  const plain = searchBm25([segment], ['invoice', 'bil'], { limit: 10, ...PARAMS });
  assert.ok(scoreOf(plain.hits, 2) > scoreOf(plain.hits, 1), 'uncapped, the rarer synonym outscores the query word');
  const caps = new Map([['bil', ['invoice']]]);
  for (const search of [searchBm25Exhaustively, searchBm25Pruned]) {
    const capped = search([segment], ['invoice', 'bil'], { limit: 10, countUpTo: 10, ...PARAMS, idfCaps: caps });
    assert.equal(capped.matched, 4);
    close(scoreOf(capped.hits, 2), scoreOf(capped.hits, 1));
    close(scoreOf(capped.hits, 1), scoreOf(plain.hits, 1));
    close(scoreOf(capped.hits, 2), scoreOf(plain.hits, 1));
  }
  // A synonym more common than its word keeps its own, lower idf.
  const common = searchBm25Exhaustively([segment], ['bil', 'invoice'], { limit: 10, ...PARAMS, idfCaps: new Map([['invoice', ['bil']]]) });
  close(scoreOf(common.hits, 1), scoreOf(plain.hits, 1));
});
