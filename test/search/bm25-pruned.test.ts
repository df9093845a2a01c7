import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildBm25Segment, mergeBm25Segments, prepareBm25Liveness, searchBm25, searchBm25Exhaustively, searchBm25Pruned } from '../../src/search/bm25.ts';
import type { Bm25Result, Bm25SearchOptions, Bm25Segment, FieldAnalyzer, SparseDoc } from '../../src/search/bm25.ts';
import { PRUNING_WINDOW } from '../../src/search/bm25-pruned.ts';
import { IMPACT_BLOCK, impactsOf, termImpacts } from '../../src/codec/bm25-impacts.ts';
import { idOf } from '../../src/text/string-table.ts';
import { seededRandom as seeded } from '../helpers/seeded-random.ts';

/** Whitespace "analyzer": the generated words are the terms. */
const words: FieldAnalyzer = (text, title) => ({ text: text.split(' ').filter(Boolean), title: title.split(' ').filter(Boolean) });


interface Corpus {
  segments: Bm25Segment[];
  ids: number[];
  vocabulary: number;
}

/** A term drawn Zipf-like: a few common terms (low idf) and a long tail of rare ones. */
function drawTerm(random: () => number, vocabulary: number): string {
  return `t${Math.floor(vocabulary * random() ** 3)}`;
}

function randomDoc(random: () => number, id: number, vocabulary: number): SparseDoc {
  const length = random() < 0.05 ? 0 : 1 + Math.floor(random() * (random() < 0.2 ? 80 : 20));
  const text = Array.from({ length }, () => drawTerm(random, vocabulary)).join(' ');
  const titleLength = random() < 0.4 ? 0 : 1 + Math.floor(random() * 6);
  const title = Array.from({ length: titleLength }, () => drawTerm(random, vocabulary)).join(' ');
  return { id, text, title };
}

/**
 * Segments of random docs with shuffled global ids (so that ids do not follow doc order), repeated docs (exact ties)
 * and, sometimes, a segment merged from others (byte-wide term frequencies). Some corpora span several windows.
 */
function randomCorpus(random: () => number): Corpus {
  const vocabulary = 5 + Math.floor(random() * (random() < 0.5 ? 30 : 400));
  const large = random() < 0.15;
  const segmentCount = 1 + Math.floor(random() * 4);
  const sizes = Array.from({ length: segmentCount }, () => (large ? PRUNING_WINDOW + Math.floor(random() * 2 * PRUNING_WINDOW) : Math.floor(random() * 400)));
  const total = sizes.reduce((a, b) => a + b, 0);
  const ids = Array.from({ length: total }, (_, i) => i * 3 + Math.floor(random() * 3));
  for (let i = ids.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [ids[i], ids[j]] = [ids[j], ids[i]];
  }
  let next = 0;
  const segments: Bm25Segment[] = [];
  for (const size of sizes) {
    const docs: SparseDoc[] = [];
    for (let d = 0; d < size; d++) {
      const id = ids[next++];
      // A repeated doc scores exactly as its original: ties broken by id.
      if (docs.length > 0 && random() < 0.3) docs.push({ ...docs[Math.floor(random() * docs.length)], id });
      else docs.push(randomDoc(random, id, vocabulary));
    }
    segments.push(buildBm25Segment(docs, words));
  }
  if (segments.length > 1 && random() < 0.3) {
    // Merge the first two, dropping some docs (what a background merge does).
    const merged = mergeBm25Segments(segments.slice(0, 2), (id) => id % 7 !== 0);
    segments.splice(0, 2, merged);
    const kept = new Set(segments.flatMap((segment) => [...segment.docIds]));
    return { segments, ids: ids.filter((id) => kept.has(id)), vocabulary };
  }
  return { segments, ids, vocabulary };
}

function randomQuery(random: () => number, vocabulary: number): string[] {
  const shape = random();
  const length = shape < 0.2 ? 1 : shape < 0.85 ? 2 + Math.floor(random() * 8) : 15 + Math.floor(random() * 25);
  const terms: string[] = [];
  for (let i = 0; i < length; i++) {
    const roll = random();
    if (roll < 0.1) terms.push(`absent${Math.floor(random() * 3)}`);
    else if (roll < 0.25 && terms.length > 0) terms.push(terms[Math.floor(random() * terms.length)]); // repeated
    else terms.push(drawTerm(random, vocabulary));
  }
  return terms;
}

function randomMask(random: () => number, ids: readonly number[], share: number): Uint8Array {
  const mask = new Uint8Array(Math.max(0, ...ids) + 1);
  for (const id of ids) if (random() < share) mask[id] = 1;
  return mask;
}

function randomOptions(random: () => number, corpus: Corpus): Bm25SearchOptions & { countUpTo: number } {
  const limit = [1, 2, 3, 5, 10, 40, 200, 5000][Math.floor(random() * 8)];
  const countRoll = random();
  const countUpTo = countRoll < 0.4 ? limit : countRoll < 0.55 ? 0 : countRoll < 0.7 ? limit * 3 : Math.floor(random() * 50);
  const options: Bm25SearchOptions & { countUpTo: number } = { limit, countUpTo, ordered: random() < 0.5 };
  const liveRoll = random();
  if (liveRoll < 0.5) {
    const narrowed = randomMask(random, corpus.ids, liveRoll < 0.15 ? 0.05 : 0.8);
    options.liveById = narrowed;
    if (random() < 0.4) {
      // The docs before the filters: a wider set than liveById.
      const wider = randomMask(random, corpus.ids, 0.5);
      for (let id = 0; id < narrowed.length; id++) wider[id] |= narrowed[id];
      options.bestAmongById = wider;
    }
  }
  if (random() < 0.15) {
    const hidden = Math.floor(random() * 5) + 2;
    options.isLive = (id) => id % hidden !== 0;
  }
  if (random() < 0.15) options.liveness = prepareBm25Liveness(corpus.segments, (id) => id % 5 !== 1);
  if (random() < 0.3) {
    options.k1 = 0.3 + random() * 2;
    options.b = random() < 0.2 ? [0, 1][Math.floor(random() * 2)] : random();
    options.titleB = random();
    options.titleWeight = random() < 0.2 ? 0 : random() * 4;
  }
  return options;
}

function ranked(result: Bm25Result): Array<{ id: number; score: number }> {
  return [...result.hits].sort((a, b) => b.score - a.score || a.id - b.id);
}

/** The pruned lane's answer must be the exhaustive one: same top k (ids, order, scores), same counts and best. */
function assertSameAnswer(pruned: Bm25Result, exhaustive: Bm25Result, countUpTo: number, context: string): void {
  const got = ranked(pruned);
  const want = ranked(exhaustive);
  assert.deepEqual(got.map((hit) => hit.id), want.map((hit) => hit.id), `${context}: ids and order`);
  got.forEach((hit, i) => assert.ok(Math.abs(hit.score - want[i].score) <= 1e-6 * Math.max(1, want[i].score), `${context}: score of ${hit.id} ${hit.score} != ${want[i].score}`));
  if (exhaustive.matched <= countUpTo) assert.equal(pruned.matched, exhaustive.matched, `${context}: matched is exact up to countUpTo`);
  else assert.ok(pruned.matched > countUpTo, `${context}: matched ${pruned.matched} must pass countUpTo ${countUpTo} (exhaustive ${exhaustive.matched})`);
  assert.equal(pruned.best, exhaustive.best, `${context}: best among the docs before filters`);
}

test('the pruned keyword lane returns the exhaustive top k, scores, counts and best on random corpora and queries', () => {
  const CORPORA = 160;
  const QUERIES_PER_CORPUS = 12;
  let compared = 0;
  let cut = 0;
  for (let seed = 1; seed <= CORPORA; seed++) {
    const random = seeded(seed);
    const corpus = randomCorpus(random);
    for (let q = 0; q < QUERIES_PER_CORPUS; q++) {
      const terms = randomQuery(random, corpus.vocabulary);
      const options = randomOptions(random, corpus);
      const exhaustive = searchBm25Exhaustively(corpus.segments, terms, options);
      const pruned = searchBm25Pruned(corpus.segments, terms, options);
      assertSameAnswer(pruned, exhaustive, options.countUpTo, `seed ${seed} query ${q} [${terms.join(' ')}] limit ${options.limit} countUpTo ${options.countUpTo}`);
      // The lane's entry point gives the same answer whichever scorer it picks.
      assertSameAnswer(searchBm25(corpus.segments, terms, options), exhaustive, options.countUpTo, `seed ${seed} query ${q}, searchBm25`);
      compared++;
      if (exhaustive.matched > options.limit) cut++;
    }
  }
  // The comparisons must include many where the best k are a strict part of the matches (where pruning acts).
  assert.ok(cut > compared / 3, `${cut} of ${compared} queries matched more docs than their limit`);
});

test('ties at the k-th score go to the lowest ids, as exhaustively, however the tied docs are spread', () => {
  // Every doc the same: all scores tie, and the best k are the k lowest ids wherever they sit.
  const random = seeded(99);
  const ids = Array.from({ length: 3 * PRUNING_WINDOW }, (_, i) => i);
  for (let i = ids.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [ids[i], ids[j]] = [ids[j], ids[i]];
  }
  const segments = [ids.slice(0, PRUNING_WINDOW), ids.slice(PRUNING_WINDOW)].map((part) => buildBm25Segment(part.map((id) => ({ id, text: 'a b c', title: 'a' })), words));
  for (const limit of [1, 7, 100]) {
    const options = { limit, countUpTo: limit };
    const pruned = searchBm25Pruned(segments, ['a', 'c'], options);
    assertSameAnswer(pruned, searchBm25Exhaustively(segments, ['a', 'c'], options), limit, `limit ${limit}`);
    assert.deepEqual(ranked(pruned).map((hit) => hit.id), Array.from({ length: limit }, (_, i) => i));
  }
});

test('block bounds hold every posting of their block, and a term bound every block', () => {
  const random = seeded(5);
  const docs = Array.from({ length: 1500 }, (_, id) => randomDoc(random, id, 40));
  const segment = buildBm25Segment(docs, words);
  const settings = { b: 0.75, titleB: 0.5, titleWeight: 3 };
  const impacts = impactsOf(segment, settings);
  const averageText = segment.totalTextLength / segment.docCount;
  const averageTitle = segment.totalTitleLength / segment.docCount;
  const norm = (length: number, b: number, average: number) => (length === 0 ? 0 : 1 / (1 - b + (b * length) / average));
  for (const term of ['t0', 't3', 't20']) {
    const t = idOf(segment.terms, term);
    assert.ok(t >= 0);
    const termBound = termImpacts(impacts, segment, t);
    const from = segment.postingStarts[t];
    const end = segment.postingStarts[t + 1];
    let most = 0;
    for (let p = from; p < end; p++) {
      const d = segment.postingDocs[p];
      const tf = segment.postingTextTf[p] * norm(segment.textLengths[d], 0.75, averageText) + 3 * segment.postingTitleTf[p] * norm(segment.titleLengths[d], 0.5, averageTitle);
      const block = impacts.blockBounds[impacts.blockStarts[t] + Math.floor((p - from) / IMPACT_BLOCK)];
      assert.ok(tf <= block, `${term} posting ${p}: ${tf} > its block's bound ${block}`);
      most = Math.max(most, tf);
    }
    // Rounded up to 32 bits, but not loosely.
    assert.ok(termBound >= most && termBound <= most * (1 + 1e-6), `${term}: ${termBound} against ${most}`);
  }
});
