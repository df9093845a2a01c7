import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tableHas, tableStrings } from '../../src/text/string-table.ts';
import { applyChange, chunksOf, emptySnapshot, chunkByOrdinal, generationNumbering, liveRowsOf, replaceSegments, segmentIndexOf } from '../../src/serving/snapshot.ts';
import { compactFully, compactionPlan, settleMergePlan } from '../../src/serving/merging/merge-plans.ts';
import { MAX_SEGMENTS, SEGMENT_DEAD_MIN_ROWS, SEGMENT_MERGE_FACTOR } from '../../src/serving/merging/merge-policy.ts';
import { chunkTextHash } from '../../src/codec/generation-lanes.ts';
import { generationOfOrdinalIn, inlineSegmentBuilder, mergeSegments, rowOfOrdinal, versionAtRow } from '../../src/serving/segment.ts';
import type { Segment } from '../../src/serving/segment.ts';
import { loadedGeneration } from '../helpers/generations.ts';
import { versionIdentity } from '../../src/domain/identity.ts';
import { searchBm25 } from '../../src/search/bm25.ts';
import { analyzeTerms } from '../../src/text/analyzer.ts';
import { buildVocabulary, vocabularyEntries } from '../../src/text/vocabulary.ts';

const DIMS = 4;
const generation = (documentId: string, texts: string[]) => loadedGeneration(documentId, texts, { dimensions: DIMS });

function sparseIds(snapshot: ReturnType<typeof emptySnapshot>, query: string): string[] {
  const { hits } = searchBm25(snapshot.segments.map((segment) => segment.bm25), analyzeTerms(query), {
    limit: 10_000,
    isLive: (ordinal) => snapshot.live[ordinal] === 1,
  });
  return hits.map((hit) => chunkByOrdinal(snapshot, hit.id)!.version.documentId).sort();
}

test('publishing never changes an older snapshot', async () => {
  const s0 = emptySnapshot('c', DIMS);
  const s1 = await applyChange(s0, { activated: [generation('a', ['quarterly ledger'])] });
  const s2 = await applyChange(s1, { activated: [generation('a', ['annual budget'])] });
  assert.deepEqual(sparseIds(s1, 'ledger'), ['a']);
  assert.deepEqual(sparseIds(s1, 'budget'), []);
  assert.deepEqual(sparseIds(s2, 'ledger'), [], 'the retired generation is gone from the new snapshot');
  assert.deepEqual(sparseIds(s2, 'budget'), ['a']);
  const first = s1.versions.get(versionIdentity({ documentId: 'a', versionId: 'a' }))!;
  assert.equal(chunksOf(s1, first)[0].textHash, chunkTextHash(0, 'quarterly ledger'), 'the older snapshot still serves the older chunk');
  assert.equal(s2.sequence, s1.sequence + 1);
  assert.equal(s2.liveChunkCount, 1);
});

test('a version never moves backwards to an older generation', async () => {
  const newer = generation('a', ['newer text']);
  const older = { ...generation('a', ['older text']), generation: newer.generation - 100 };
  const snapshot = await applyChange((await applyChange(emptySnapshot('c', DIMS), { activated: [newer] })), { activated: [older] });
  assert.deepEqual(sparseIds(snapshot, 'newer'), ['a']);
  assert.deepEqual(sparseIds(snapshot, 'older'), []);
});

test('many small publications are merged into few segments with identical results', async () => {
  let snapshot = emptySnapshot('c', DIMS);
  for (let i = 0; i < 300; i++) {
    snapshot = await applyChange(snapshot, { activated: [generation(`doc-${i}`, [`common term unique${i}`, `second chunk ${i % 7}`])] });
  }
  // Replace a third of them, then remove some.
  for (let i = 0; i < 100; i++) snapshot = await applyChange(snapshot, { activated: [generation(`doc-${i}`, [`replaced text ${i}`])] });
  snapshot = await applyChange(snapshot, { activated: [], removed: [versionIdentity({ documentId: 'doc-250', versionId: 'doc-250' })] });
  const check = (candidate: typeof snapshot) => {
    assert.equal(candidate.versions.size, 299);
    assert.equal(sparseIds(candidate, 'common').length, 199);
    assert.equal(sparseIds(candidate, 'replaced').length, 100);
    assert.deepEqual(sparseIds(candidate, 'unique250'), []);
    assert.deepEqual(sparseIds(candidate, 'unique251'), ['doc-251']);
    assert.equal(candidate.liveChunkCount, 100 + 199 * 2);
  };
  // Publishing only appends (merging is background work); segments left with no live chunk are dropped.
  assert.ok(snapshot.segments.length > MAX_SEGMENTS);
  assert.ok(snapshot.segments.length < 401, 'the 100 fully replaced segments were dropped');
  check(snapshot);
  const compacted = await compactFully(snapshot);
  assert.ok(compacted.segments.length <= MAX_SEGMENTS, `${compacted.segments.length} segments`);
  assert.equal(compactionPlan(compacted), null);
  check(compacted);
  check(snapshot); // the older snapshot is untouched
});

test('a merge replaces its segments only while they are still served', async () => {
  let snapshot = emptySnapshot('c', DIMS);
  for (const id of ['a', 'b', 'c', 'd']) {
    assert.equal(compactionPlan(snapshot), null, 'fewer than SEGMENT_MERGE_FACTOR small segments stay apart');
    snapshot = await applyChange(snapshot, { activated: [generation(id, [`text of ${id}`])] });
  }
  const plan = compactionPlan(snapshot)!;
  assert.equal(plan.length, SEGMENT_MERGE_FACTOR);
  const merged = await inlineSegmentBuilder.merge(plan, snapshot.live);
  const later = await applyChange(snapshot, { activated: [generation('c2', ['third'])] });
  const swapped = replaceSegments(later, plan, merged)!;
  assert.equal(swapped.segments.length, 2, 'the four merged plus the newer one');
  assert.deepEqual(sparseIds(swapped, 'text'), ['a', 'b', 'c', 'd']);
  assert.deepEqual(sparseIds(swapped, 'third'), ['c2']);
  const rebuilt = await applyChange(emptySnapshot('c', DIMS), { activated: [generation('z', ['other'])] });
  assert.equal(replaceSegments(rebuilt, plan, merged), null, 'a snapshot without those segments is left alone');
});

test('once publications pause, the newest segments merge as far back as an older one is not far larger', async () => {
  // Segments of the given sizes, oldest first: one publication each of that many single-chunk documents.
  const withSizes = async (sizes: number[]) => {
    let snapshot = emptySnapshot('c', DIMS);
    for (const [s, size] of sizes.entries()) snapshot = await applyChange(snapshot, { activated: Array.from({ length: size }, (_, i) => generation(`s${s}-${i}`, [`ledger ${s} ${i}`])) });
    assert.deepEqual(snapshot.segments.map((segment) => segment.rows), sizes);
    return snapshot;
  };
  const planned = (snapshot: Awaited<ReturnType<typeof withSizes>>) => settleMergePlan(snapshot)?.map((segment) => segment.rows) ?? null;
  // What bulk ingest leaves: sizes no size-class run merges. Each older one is at most 4x what is newer: all merge.
  const mixed = await withSizes([300, 150, 40, 120]);
  assert.equal(compactionPlan(mixed), null, 'no run of one size class');
  assert.deepEqual(planned(mixed), [300, 150, 40, 120]);
  const settled = await compactFully(replaceSegments(mixed, settleMergePlan(mixed)!, await inlineSegmentBuilder.merge(settleMergePlan(mixed)!, mixed.live))!);
  assert.deepEqual(settled.segments.map((segment) => segment.rows), [610]);
  assert.equal(settleMergePlan(settled), null, 'one segment: nothing more to merge');
  assert.equal(sparseIds(settled, 'ledger').length, 610);
  // A large segment is not rewritten for a few newer rows; the newer ones still merge among themselves.
  assert.deepEqual(planned(await withSizes([400, 20, 30])), [20, 30]);
  assert.equal(planned(await withSizes([400, 50])), null, '400 rows are more than 4x 50: left as they are');
  assert.deepEqual(planned(await withSizes([400, 60, 50])), [400, 60, 50], '4x the 110 newer rows reaches the 400');
});

test('an old segment kept by a few live chunks is rewritten without its dead rows once they are half of it', async () => {
  const replace = (from: number, to: number) => ({ activated: Array.from({ length: to - from }, (_, k) => generation(`doc-${from + k}`, [`replaced ${from + k}`])) });
  // One segment of 100 documents of two chunks each; later publications replace some of them with one chunk.
  let snapshot = await applyChange(emptySnapshot('c', DIMS), { activated: Array.from({ length: 100 }, (_, i) => generation(`doc-${i}`, [`ledger ${i}`, `original ${i}`])) });
  const [old] = snapshot.segments;
  assert.equal(old.rows, 200);
  snapshot = await applyChange(snapshot, replace(0, 40));
  assert.equal(liveRowsOf(snapshot.segments[0], snapshot.live), 120);
  assert.equal(compactionPlan(snapshot), null, '80 dead rows of 200 stay: under half');
  snapshot = await applyChange(snapshot, replace(40, 60));
  assert.deepEqual(compactionPlan(snapshot), [old], '120 dead rows of 200: the old segment alone is rewritten');
  const compacted = await compactFully(snapshot);
  assert.deepEqual(compacted.segments.map((segment) => segment.rows), [80, 40, 20], 'only live rows are left, in ordinal order');
  for (const candidate of [snapshot, compacted]) {
    assert.deepEqual(sparseIds(candidate, 'original').length, 40);
    assert.deepEqual(sparseIds(candidate, 'replaced').length, 60);
    assert.deepEqual(sparseIds(candidate, 'ledger'), Array.from({ length: 40 }, (_, k) => `doc-${60 + k}`).sort(), 'the replaced chunks are not found');
    assert.equal(candidate.liveChunkCount, 40 * 2 + 60);
  }
  assert.equal(compactionPlan(compacted), null);
});

test('a run of small segments behind a larger newer one is merged too (rewrites leave such runs)', async () => {
  let snapshot = emptySnapshot('c', DIMS);
  for (let i = 0; i < SEGMENT_MERGE_FACTOR; i++) snapshot = await applyChange(snapshot, { activated: [generation(`small-${i}`, [`ledger ${i}`])] });
  const small = snapshot.segments.slice();
  snapshot = await applyChange(snapshot, { activated: Array.from({ length: 300 }, (_, i) => generation(`large-${i}`, [`budget ${i}`])) });
  assert.deepEqual(compactionPlan(snapshot), small);
  const compacted = await compactFully(snapshot);
  assert.deepEqual(compacted.segments.map((segment) => segment.rows), [SEGMENT_MERGE_FACTOR, 300]);
  assert.equal(sparseIds(compacted, 'ledger').length, SEGMENT_MERGE_FACTOR);
});

test('a small segment is not rewritten for a few dead rows, however large their share', async () => {
  const documents = SEGMENT_DEAD_MIN_ROWS - 1;
  let snapshot = await applyChange(emptySnapshot('c', DIMS), { activated: Array.from({ length: documents }, (_, i) => generation(`doc-${i}`, [`ledger ${i}`])) });
  snapshot = await applyChange(snapshot, { activated: [], removed: Array.from({ length: documents - 1 }, (_, i) => versionIdentity({ documentId: `doc-${i}`, versionId: `doc-${i}` })) });
  assert.equal(liveRowsOf(snapshot.segments[0], snapshot.live), 1);
  assert.equal(compactionPlan(snapshot), null);
});

test('a merged segment keeps no word of a chunk that died (the fuzzy lane forgets purged documents)', async () => {
  let snapshot = emptySnapshot('c', DIMS);
  // One segment holds both; only one of them dies.
  snapshot = await applyChange(snapshot, { activated: [generation('keep', ['ledger reconciliation']), generation('gone', ['confidential zanzibar'])] });
  snapshot = await applyChange(snapshot, { activated: [], removed: [versionIdentity({ documentId: 'gone', versionId: 'gone' })] });
  for (let i = 1; i < SEGMENT_MERGE_FACTOR; i++) snapshot = await applyChange(snapshot, { activated: [generation(`more-${i}`, ['ledger summary'])] });
  assert.ok(tableHas(snapshot.segments[0].vocabulary.words, 'zanzibar'), 'before the merge the word is still indexed');
  const compacted = await compactFully(snapshot);
  assert.equal(compacted.segments.length, 1);
  const words = compacted.segments.flatMap((segment) => tableStrings(segment.vocabulary.words));
  assert.ok(words.includes('ledger'));
  assert.ok(!words.includes('zanzibar'), 'a removed chunk left the vocabulary');
  // Its derived terms go with it (derived again from the words kept), while a merge dropping nothing unites them.
  const [segment] = compacted.segments;
  assert.ok(tableHas(snapshot.segments[0].vocabulary.terms, 'zanzibar'));
  assert.ok(!tableHas(segment.vocabulary.terms, 'zanzibar') && !tableHas(segment.vocabulary.terms, 'confidenti'));
  assert.ok(tableHas(segment.vocabulary.terms, 'ledger') && tableHas(segment.vocabulary.terms, 'summari'));
  assert.deepEqual(tableStrings(segment.vocabulary.terms).sort(), tableStrings(buildVocabulary(vocabularyEntries(segment.vocabulary)).terms).sort());
});

test('a segment holds its generations\' word ids and counts as narrow as they fit, and merges count the words kept exactly', async () => {
  let snapshot = emptySnapshot('c', DIMS);
  snapshot = await applyChange(snapshot, { activated: [generation('small', ['ledger one', 'ledger two'])] });
  assert.ok(snapshot.segments[0].wordIds instanceof Uint16Array && snapshot.segments[0].wordCounts instanceof Uint8Array);
  // A word in 300 chunks of one generation needs a 16-bit count; a vocabulary past 65,536 words needs 32-bit ids.
  const manyChunks = Array.from({ length: 300 }, (_, i) => `ledger chunk${i}`);
  snapshot = await applyChange(snapshot, { activated: [generation('many-chunks', manyChunks)] });
  assert.ok(snapshot.segments[1].wordCounts instanceof Uint16Array);
  const letters = (n: number) => { let word = ''; for (let rest = n; word.length < 4 || rest > 0; rest = Math.floor(rest / 26)) word += String.fromCharCode(97 + (rest % 26)); return `q${word}`; };
  const manyWords = Array.from({ length: 66 }, (_, chunk) => Array.from({ length: 1000 }, (_, i) => letters(chunk * 1000 + i)).join(' '));
  // Beside a generation that stays, so that the merge has the removed one's words to leave out.
  snapshot = await applyChange(snapshot, { activated: [generation('many-words', manyWords), generation('beside', ['ledger beside'])] });
  assert.ok(snapshot.segments[2].vocabulary.words.size > 0x10000 && snapshot.segments[2].wordIds instanceof Uint32Array);
  snapshot = await applyChange(snapshot, { activated: [], removed: [versionIdentity({ documentId: 'many-words', versionId: 'many-words' })] });
  const merged = mergeSegments(snapshot.segments, snapshot.live);
  const count = (segment: Segment, word: string) => vocabularyEntries(segment.vocabulary).find(([entry]) => entry === word)?.[1];
  assert.equal(count(merged, 'ledger'), 2 + 300 + 1);
  assert.equal(count(merged, letters(0)), undefined, 'the removed generation\'s words are gone');
  assert.ok(merged.wordIds instanceof Uint16Array && merged.wordCounts instanceof Uint16Array);
  // Without the generation of the large count, the rest fit in a byte again and still count exactly.
  snapshot = await applyChange(snapshot, { activated: [], removed: [versionIdentity({ documentId: 'many-chunks', versionId: 'many-chunks' })] });
  const rewritten = mergeSegments(snapshot.segments, snapshot.live);
  assert.ok(rewritten.wordCounts instanceof Uint8Array);
  assert.equal(count(rewritten, 'ledger'), 2 + 1);
});

test('a merge that drops nothing unites its inputs\' derived terms and roots: exactly what deriving them from the merged words gives', async () => {
  let snapshot = emptySnapshot('c', DIMS);
  const texts = ['pelajaran di sekolah', 'guru mengajar murid', 'account statements', 'penyata akaun simpanan'];
  for (const [i, text] of texts.entries()) snapshot = await applyChange(snapshot, { activated: [generation(`d${i}`, [text])] });
  assert.equal(snapshot.segments.length, SEGMENT_MERGE_FACTOR);
  const [segment] = (await compactFully(snapshot)).segments;
  const derived = buildVocabulary(vocabularyEntries(segment.vocabulary));
  assert.deepEqual(tableStrings(segment.vocabulary.terms).sort(), tableStrings(derived.terms).sort());
  assert.deepEqual(tableStrings(segment.vocabulary.malayRoots).sort(), tableStrings(derived.malayRoots).sort());
  assert.ok(tableHas(segment.vocabulary.malayRoots, 'ajar') && tableHas(segment.vocabulary.terms, 'account'));
});

test('every ordinal finds its version through the range table, also across the holes a merge leaves', async () => {
  let snapshot = emptySnapshot('c', DIMS);
  // Generations of 1 to 40 chunks (and one with none), some removed again before the segments merge.
  const sizes = [1, 40, 3, 0, 1, 1, 17, 2, 33, 1, 5, 9, 1, 26, 4, 1, 1, 12];
  snapshot = await applyChange(snapshot, { activated: sizes.slice(0, 9).map((size, i) => generation(`g${i}`, Array.from({ length: size }, (_, c) => `ledger ${i} ${c}`))) });
  snapshot = await applyChange(snapshot, { activated: sizes.slice(9).map((size, i) => generation(`g${i + 9}`, Array.from({ length: size }, (_, c) => `ledger ${i + 9} ${c}`))) });
  snapshot = await applyChange(snapshot, { activated: [], removed: ['g1', 'g4', 'g8', 'g12'].map((id) => versionIdentity({ documentId: id, versionId: id })) });
  const check = (label: string) => {
    const numbering = generationNumbering(snapshot);
    const numbered = new Map<number, unknown>();
    snapshot.segments.forEach((segment, s) => {
      for (let ordinal = segment.minOrdinal - 2; ordinal <= segment.maxOrdinal + 2; ordinal++) {
        const row = rowOfOrdinal(segment, ordinal);
        const generation = generationOfOrdinalIn(segment, ordinal);
        assert.equal(generation < 0 ? undefined : segment.versions[generation], row >= 0 ? versionAtRow(segment, row) : undefined, `${label}: ordinal ${ordinal}`);
        if (row < 0) continue;
        assert.equal(segmentIndexOf(snapshot, ordinal), s, `${label}: the segment of ordinal ${ordinal}`);
        // One number per version across the snapshot's segments.
        const number = numbering[s] + generation;
        assert.ok(number < numbering[snapshot.segments.length]);
        assert.ok(!numbered.has(number) || numbered.get(number) === segment.versions[generation], `${label}: number ${number} names one version`);
        numbered.set(number, segment.versions[generation]);
      }
    });
    assert.equal(segmentIndexOf(snapshot, snapshot.nextOrdinal + 5), -1, `${label}: no segment holds an ordinal never given`);
  };
  check('before the merge');
  snapshot = replaceSegments(snapshot, snapshot.segments, await inlineSegmentBuilder.merge(snapshot.segments, snapshot.live))!;
  assert.equal(snapshot.segments.length, 1);
  assert.ok(snapshot.segments.some((segment) => segment.maxOrdinal - segment.minOrdinal + 1 > segment.rows), 'a merged segment has holes');
  check('after the merge');
});
