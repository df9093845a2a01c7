// A content answer orders only the versions a page (or the reranked prefix) needs: the head must be exactly
// what a full sort puts first, and no version may be lost or repeated from the totals and the evidence check,
// which count them all.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareVersionHits, rankHead, searchContent } from '../../src/search/content-lane.ts';
import type { VersionHit } from '../../src/search/content-lane.ts';
import type { ServedVersion } from '../../src/serving/served-types.ts';
import { applyChange, emptySnapshot } from '../../src/serving/snapshot.ts';
import { createHashingEmbedder } from '../../src/models/hashing-embedder.ts';
import { loadedGeneration } from '../helpers/generations.ts';

function hits(count: number, seed: number): VersionHit[] {
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  // Few distinct scores, so ties on score and tie-break fall back to the identity.
  return Array.from({ length: count }, (_, i) => ({
    version: { identity: `doc-${String(i).padStart(4, '0')}` } as ServedVersion,
    score: Math.floor(next() * 20) / 20,
    tieBreak: Math.floor(next() * 3),
    chunks: [],
  }));
}

test('the ranked head equals the head of a full sort', () => {
  for (const [count, head] of [[1000, 10], [1000, 0], [1000, 1], [1000, 50], [1000, 400], [7, 3], [0, 10], [30, 30], [200, Number.POSITIVE_INFINITY]] as const) {
    const input = hits(count, count + (Number.isFinite(head) ? head : 1));
    const expected = [...input].sort(compareVersionHits).slice(0, head);
    const ranked = rankHead([...input], head, compareVersionHits);
    assert.deepEqual(ranked.map((hit) => hit.version.identity), expected.map((hit) => hit.version.identity), `${count} hits, head ${head}`);
  }
});

test('the content lane ranks only the head it is asked for, and still counts and lists every matched version', async () => {
  const embedder = createHashingEmbedder();
  const texts = Array.from({ length: 60 }, (_, i) => `statement ${i % 7 === 0 ? 'escrow escrow' : 'account'} number ${i} ${'balance '.repeat(i % 5)}`);
  const generations = await Promise.all(
    texts.map(async (text, i) => {
      const [vector] = await embedder.embed([text]);
      return loadedGeneration(`doc-${i}`, [text, `${text} continued`], { dimensions: embedder.dimensions, vectors: [vector, vector] });
    }),
  );
  const snapshot = await applyChange(emptySnapshot('c', embedder.dimensions), { activated: generations });
  for (const alpha of [0, 0.5, 1]) {
    const all = await searchContent(snapshot, 'escrow statement balance', alpha, snapshot.live, embedder, 1000, 0, Number.POSITIVE_INFINITY);
    assert.ok(all.versions.length > 20, `alpha ${alpha}: many versions match`);
    assert.equal(all.total, all.versions.length);
    assert.deepEqual(all.versions, [...all.versions].sort(compareVersionHits), 'all of them in rank order');
    for (const head of [1, 3, 10]) {
      const ranked = await searchContent(snapshot, 'escrow statement balance', alpha, snapshot.live, embedder, 1000, 0, head);
      const row = (hit: VersionHit) => [hit.version.identity, hit.score, hit.tieBreak, hit.chunks.map((chunk) => chunk.ordinal)];
      assert.deepEqual(ranked.versions.map(row), all.versions.slice(0, head).map(row), `alpha ${alpha}, head ${head}`);
      assert.equal(ranked.total, all.total);
      const listed = [...ranked.matchedVersions()].map((version) => version.identity);
      assert.equal(new Set(listed).size, listed.length, 'each version once');
      assert.deepEqual(listed.sort(), all.versions.map((hit) => hit.version.identity).sort());
    }
  }
});

test('a content answer keeps its ranked chunks and matched versions while later searches run', async () => {
  const embedder = createHashingEmbedder();
  // Three publications, so that the snapshot has several segments to find versions in.
  let snapshot = emptySnapshot('c', embedder.dimensions);
  for (let batch = 0; batch < 3; batch++) {
    const generations = await Promise.all(
      Array.from({ length: 20 }, async (_, j) => {
        const i = batch * 20 + j;
        const text = `${i % 3 === 0 ? 'invoice overdue' : 'letter of'} ${i % 4 === 0 ? 'escrow' : 'payroll'} reference ${i} ${'amount '.repeat(i % 6)}`;
        const [vector] = await embedder.embed([text]);
        return loadedGeneration(`doc-${i}`, [text, `${text} page two`], { dimensions: embedder.dimensions, vectors: [vector, vector] });
      }),
    );
    snapshot = await applyChange(snapshot, { activated: generations });
  }
  assert.ok(snapshot.segments.length > 1, 'several segments');
  const queries = ['escrow invoice amount', 'payroll letter reference'];
  const read = (result: Awaited<ReturnType<typeof searchContent>>) => ({
    rows: result.versions.map((hit) => [hit.version.identity, hit.score, hit.tieBreak, hit.chunks.map((chunk) => [chunk.ordinal, chunk.score, chunk.tieBreak])]),
    total: result.total,
    matched: [...result.matchedVersions()].map((version) => version.identity).sort(),
  });
  for (const alpha of [0, 0.5, 1]) {
    for (const head of [3, Number.POSITIVE_INFINITY]) {
      const search = (query: string) => searchContent(snapshot, query, alpha, snapshot.live, embedder, 1000, 0, head);
      // Each answer read as soon as it is made...
      const expected = [];
      for (const query of queries) expected.push(read(await search(query)));
      assert.notDeepEqual(expected[0].rows, expected[1].rows, `alpha ${alpha}: the queries rank differently`);
      assert.equal(expected[0].matched.length, expected[0].total);
      // ...and read only after the other query's search ran: the same.
      const held = [];
      for (const query of queries) held.push(await search(query));
      const concurrent = await Promise.all([search(queries[1]), search(queries[0])]);
      assert.deepEqual(held.map(read), expected, `alpha ${alpha}, head ${head}: held answers`);
      assert.deepEqual(concurrent.reverse().map(read), expected, `alpha ${alpha}, head ${head}: concurrent answers`);
    }
  }
});
