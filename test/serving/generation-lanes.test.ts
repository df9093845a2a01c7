// A generation's persisted lane data: what a worker writes is what an api process decodes and serves, a
// malformed blob is refused legibly, and loading from lane data serves exactly what indexing the chunks does.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { listStrings, tableHas } from '../../src/text/string-table.ts';
import { chunkTextHash, lanesOf, NO_PAGE } from '../../src/codec/generation-lanes.ts';
import { decodeLanes, encodeLanes, lanesDigest, LanesFormatError } from '../../src/codec/lanes-encoding.ts';
import { verifyEvidence, evidenceInputOf, proveLanes } from '../../src/codec/evidence.ts';
import { computeManifest, lanesAndManifest } from '../../src/codec/manifest.ts';
import { Storage } from '../../src/storage/storage.ts';
import { ServingIndex } from '../../src/serving/serving-index.ts';
import { inlineSegmentBuilder } from '../../src/serving/segment.ts';
import { addPart, DERIVED_UNION_MAX_TERMS_PER_WORD, indexParts, SegmentAssembler } from '../../src/serving/segment-assembler.ts';
import { derivedTermsOf, vocabularyWordsOf } from '../../src/text/vocabulary.ts';
import { buildBm25Segment } from '../../src/codec/bm25-segment.ts';
import { chunksOf } from '../../src/serving/snapshot.ts';
import { searchBm25 } from '../../src/search/bm25.ts';
import { analyzeQueryTerms } from '../../src/text/analyzer.ts';
import { createHashingEmbedder } from '../../src/models/hashing-embedder.ts';
import { removeDir, tempDataDir } from '../helpers/server.ts';
import { seedVersions } from '../helpers/seed.ts';
import { loadedGeneration } from '../helpers/generations.ts';

const embedder = createHashingEmbedder();
const TEXTS = ['Penyata akaun simpanan bulan Mac.', 'Closing balance RM 12,450.00 on 31 March 2024.', 'Faedah dikreditkan ke akaun.'];

async function chunks() {
  const vectors = await embedder.embed(TEXTS);
  return TEXTS.map((text, chunkIndex) => ({ chunkIndex, page: chunkIndex === 1 ? 2 : null, pageLabel: chunkIndex === 1 ? 'ii' : null, text, vector: vectors[chunkIndex], language: null }));
}

test('lane data round-trips through its persisted form', async () => {
  const lanes = lanesOf(await chunks(), 'Statement', embedder.dimensions);
  const decoded = decodeLanes(encodeLanes(lanes));
  assert.equal(decoded.chunkCount, 3);
  assert.deepEqual(listStrings(decoded.bm25.terms), listStrings(lanes.bm25.terms));
  assert.deepEqual(decoded.bm25.postingDocs, lanes.bm25.postingDocs);
  assert.deepEqual(decoded.bm25.postingTitleTf, lanes.bm25.postingTitleTf);
  assert.equal(decoded.bm25.totalTitleLength, lanes.bm25.totalTitleLength);
  assert.deepEqual(decoded.codes, lanes.codes);
  assert.deepEqual(listStrings(decoded.words), listStrings(lanes.words));
  assert.deepEqual(decoded.wordCounts, lanes.wordCounts);
  assert.deepEqual([...decoded.pages], [NO_PAGE, 2, NO_PAGE]);
  assert.deepEqual(decoded.labelRows, [1]);
  assert.deepEqual(decoded.labels, ['ii']);
  assert.deepEqual([...decoded.textHashes], TEXTS.map((text, index) => chunkTextHash(index, text)));
  const derived = derivedTermsOf(listStrings(lanes.words));
  assert.deepEqual(listStrings(decoded.derived!.terms), derived.terms);
  assert.deepEqual(listStrings(decoded.derived!.malayRoots), derived.malayRoots);
  assert.ok(derived.terms.includes('akaun') && derived.malayRoots.includes('kredit'), 'the words\' query terms and Malay roots travel with them');
});

test('lane postings and words are what the shared analyzer gives each chunk (each text tokenized once for both)', async () => {
  const given = await chunks();
  const lanes = lanesOf(given, 'Statement of account', embedder.dimensions);
  const plain = buildBm25Segment(given.map((chunk, row) => ({ id: row, text: chunk.text, title: 'Statement of account' })));
  assert.deepEqual(listStrings(lanes.bm25.terms), listStrings(plain.terms));
  for (const name of ['postingStarts', 'postingDocs', 'postingTextTf', 'postingTitleTf', 'textLengths', 'titleLengths'] as const) assert.deepEqual(lanes.bm25[name], plain[name], name);
  const counts = new Map<string, number>();
  for (const chunk of given) for (const word of vocabularyWordsOf(chunk.text)) counts.set(word, (counts.get(word) ?? 0) + 1);
  assert.deepEqual(listStrings(lanes.words), [...counts.keys()].sort());
  assert.deepEqual([...lanes.wordCounts], [...counts.keys()].sort().map((word) => counts.get(word)));
  assert.ok(counts.get('akaun') === 2 && !counts.has('on'), 'a word counts once per chunk holding it; stopwords are left out');
});

test('a load of many generations over the same words derives their terms at the end, to what uniting them gives', async () => {
  const vectors = await embedder.embed(['Pelajaran akaun', 'Guru mengajar murid']);
  const blob = (text: string, row: number) => encodeLanes(lanesOf([{ chunkIndex: 0, page: null, pageLabel: null, text, vector: vectors[row], language: null }], null, embedder.dimensions));
  const few = [blob('Pelajaran akaun', 0), blob('Guru mengajar murid', 1)];
  // Each generation repeats the same few words, so the terms to unite soon outnumber the words many times over.
  const many = Array.from({ length: DERIVED_UNION_MAX_TERMS_PER_WORD * 2 }, (_, i) => few[i % 2]);
  const [united, derived] = [few, many].map((blobs) => indexParts(blobs.map((lanes, i) => ({ firstOrdinal: i, source: { lanes } })), embedder.dimensions).vocabulary);
  assert.deepEqual(listStrings(derived.words).slice().sort(), listStrings(united.words).slice().sort());
  for (const table of ['terms', 'malayRoots'] as const) assert.deepEqual(listStrings(derived[table]).slice().sort(), listStrings(united[table]).slice().sort(), table);
  assert.ok(tableHas(derived.malayRoots, 'ajar'));
});

test('a build told how many sources are coming decides on its first ones whether to unite their derived terms', async () => {
  const [vector] = await embedder.embed(['Pelajaran akaun']);
  const lanes = lanesOf([{ chunkIndex: 0, page: null, pageLabel: null, text: 'Pelajaran akaun', vector, language: null }], null, embedder.dimensions);
  // A derived term no word of the blob gives: uniting carries it into the vocabulary, deriving at the end does not.
  const marked = encodeLanes({ ...lanes, derived: { terms: [...listStrings(lanes.derived!.terms), 'unitedmarker'], malayRoots: listStrings(lanes.derived!.malayRoots) } });
  const termsOf = (expectedSources: number) => {
    const assembler = new SegmentAssembler(embedder.dimensions, expectedSources);
    for (let i = 0; i < 4; i++) addPart(assembler, { firstOrdinal: i, source: { lanes: marked } });
    return assembler.finish().vocabulary.terms;
  };
  assert.ok(tableHas(termsOf(0), 'unitedmarker'), 'four sources over two words: united');
  assert.ok(tableHas(termsOf(4), 'unitedmarker'), 'four of four expected: united');
  assert.ok(!tableHas(termsOf(DERIVED_UNION_MAX_TERMS_PER_WORD * 100), 'unitedmarker'), 'the first four of thousands: derived at the end from the start');
});

/** The same lanes in format 1 (before the words' derived terms and roots were persisted): header, terms, words, arrays. */
function formatOneBlob(bytes: Uint8Array): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = view.getUint32(8, true);
  const header = JSON.parse(Buffer.from(bytes.subarray(12, 12 + headerLength)).toString('utf8'));
  const strings = bytes.subarray(12 + headerLength, 12 + headerLength + header.termBytes + header.wordBytes);
  let arraysAt = 12 + headerLength + header.termBytes + header.wordBytes + header.derivedTermBytes + header.malayRootBytes;
  const { derivedTermBytes: _terms, malayRootBytes: _roots, ...rest } = header;
  const oldHeader = Buffer.from(JSON.stringify({ ...rest, format: 1 }), 'utf8');
  const sizes = [4, 4, 4, 4, 2, 2, 1, 4, 4, 4, 4]; // element sizes of the arrays, in their order in the blob
  const align8 = (n: number) => (n + 7) & ~7;
  const parts: Uint8Array[] = [];
  (header.lengths as number[]).forEach((length, i) => {
    arraysAt = align8(arraysAt);
    parts.push(bytes.subarray(arraysAt, arraysAt + length * sizes[i]));
    arraysAt += length * sizes[i];
  });
  let size = 12 + oldHeader.length + strings.length;
  for (const part of parts) size = align8(size) + part.length;
  const out = new Uint8Array(align8(size));
  const outView = new DataView(out.buffer);
  outView.setUint32(0, view.getUint32(0, true), true);
  outView.setUint32(4, 1, true);
  outView.setUint32(8, oldHeader.length, true);
  out.set(oldHeader, 12);
  out.set(strings, 12 + oldHeader.length);
  let offset = 12 + oldHeader.length + strings.length;
  for (const part of parts) {
    offset = align8(offset);
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

test('lane data of format 1 is still read: its words\' terms and roots are derived again, to the same vocabulary', async () => {
  const lanes = lanesOf(await chunks(), 'Statement', embedder.dimensions);
  const current = encodeLanes(lanes);
  const old = formatOneBlob(current);
  const decoded = decodeLanes(old);
  assert.equal(decoded.derived, null);
  assert.deepEqual(listStrings(decoded.words), listStrings(lanes.words));
  assert.deepEqual(decoded.codes, lanes.codes);
  assert.deepEqual(decoded.textHashes, lanes.textHashes);
  const [fromOld, fromCurrent] = [old, current].map((blob) => indexParts([{ firstOrdinal: 1, source: { lanes: blob } }], embedder.dimensions));
  for (const table of ['words', 'terms', 'malayRoots'] as const) {
    assert.deepEqual(listStrings(fromOld.vocabulary[table]).slice().sort(), listStrings(fromCurrent.vocabulary[table]).slice().sort(), table);
  }
  const unknown = current.slice();
  new DataView(unknown.buffer).setUint32(4, 3, true);
  assert.throws(() => decodeLanes(unknown), LanesFormatError, 'a format this code does not know is refused');
});

test('malformed lane data is refused with a LanesFormatError, never read past its end', async () => {
  const bytes = encodeLanes(lanesOf(await chunks(), null, embedder.dimensions));
  assert.throws(() => decodeLanes(bytes.subarray(0, 8)), LanesFormatError);
  assert.throws(() => decodeLanes(bytes.subarray(0, bytes.length - 64)), LanesFormatError);
  const wrongMagic = bytes.slice();
  wrongMagic[0] ^= 0xff;
  assert.throws(() => decodeLanes(wrongMagic), LanesFormatError);
  const badHeader = bytes.slice();
  badHeader[13] = 0x7b; // '{' inside the JSON header
  assert.throws(() => decodeLanes(badHeader), LanesFormatError);
});

test('evidence of a generation with lane data is checked through it: its digest and counts', async () => {
  const base = loadedGeneration('doc', TEXTS, { dimensions: embedder.dimensions, vectors: (await chunks()).map((chunk) => chunk.vector) });
  const { lanes, manifest } = lanesAndManifest({ documentId: 'doc', versionId: 'doc', jobId: null }, base.chunks, [], null);
  const served = { ...base, manifest, lanes, chunks: undefined };
  assert.deepEqual(verifyEvidence(evidenceInputOf(served)), { state: 'verified' });
  const flipped = lanes.slice();
  flipped[flipped.length - 1] ^= 1;
  // Not the bytes the manifest recorded: never decoded, so the generation is served without rows.
  assert.deepEqual(verifyEvidence(evidenceInputOf({ ...served, lanes: flipped })), { state: 'corrupt', lane: 'content', point: `generation ${base.generation}`, lanesUnproven: true });
  const otherCount = { ...manifest, lanes: { ...(manifest.lanes as object), count: 2 } };
  assert.equal((verifyEvidence(evidenceInputOf({ ...served, manifest: otherCount })) as { lane: string }).lane, 'content');
  const noLaneEvidence = { ...manifest };
  delete (noLaneEvidence as Record<string, unknown>).lanes;
  assert.deepEqual(verifyEvidence(evidenceInputOf({ ...served, manifest: noLaneEvidence })), { state: 'corrupt', lane: 'content', point: `generation ${base.generation}` }, 'lane data the manifest does not prove is not served (it decodes: its rows are kept, for reads to fail closed on)');
  const cut = lanes.slice(0, lanes.length >> 1);
  assert.equal((verifyEvidence(evidenceInputOf({ ...served, lanes: cut, manifest: noLaneEvidence })) as { lanesUnproven?: true }).lanesUnproven, true, 'no digest to prove it by, and it does not decode');
  assert.equal(lanesDigest(lanes), (manifest.lanes as { digest: string }).digest);
  // The fuzzy lane's counts taken from the lanes are the ones counted from the chunks' texts.
  assert.deepEqual(manifest, computeManifest({ documentId: 'doc', versionId: 'doc', jobId: null }, base.chunks, [], lanes));
});

test('evidence proven from the lane data beforehand (the segment thread gets no blob) decides as the blob itself does', async () => {
  const base = loadedGeneration('doc', TEXTS, { dimensions: embedder.dimensions, vectors: (await chunks()).map((chunk) => chunk.vector) });
  const { lanes, manifest } = lanesAndManifest({ documentId: 'doc', versionId: 'doc', jobId: null }, base.chunks, [], null);
  const served = { ...base, manifest, lanes, chunks: undefined };
  const proved = await proveLanes(evidenceInputOf(served));
  assert.equal(proved.lanes, undefined, 'the proof stands in for the blob');
  assert.deepEqual(proved.lanesProof, { digest: lanesDigest(lanes), chunkCount: TEXTS.length });
  assert.deepEqual(verifyEvidence(proved), { state: 'verified' });
  const flipped = lanes.slice();
  flipped[flipped.length - 1] ^= 1;
  assert.deepEqual(verifyEvidence(await proveLanes(evidenceInputOf({ ...served, lanes: flipped }))), { state: 'corrupt', lane: 'content', point: `generation ${base.generation}`, lanesUnproven: true });
  // A blob whose digest the manifest records but whose header does not read is not served either.
  const unreadable = lanes.slice();
  unreadable[0] ^= 0xff;
  const recorded = { ...manifest, lanes: { ...(manifest.lanes as object), digest: lanesDigest(unreadable) } };
  const proof = await proveLanes(evidenceInputOf({ ...served, lanes: unreadable, manifest: recorded }));
  assert.equal(proof.lanesProof?.chunkCount, null);
  assert.deepEqual(verifyEvidence(proof), { state: 'corrupt', lane: 'content', point: `generation ${base.generation}`, lanesUnproven: true });
  assert.deepEqual(verifyEvidence(evidenceInputOf({ ...served, lanes: unreadable, manifest: recorded })), verifyEvidence(proof));
});

test('a Client loaded from lane data serves what indexing its chunks serves (data written before lanes existed)', async () => {
  const withLanes = tempDataDir();
  const legacy = tempDataDir();
  const versions = Array.from({ length: 12 }, (_, i) => ({ versionId: `v${i}`, text: `Entry ${i}: ${TEXTS[i % TEXTS.length]} Reference INV-${1000 + i}.` }));
  await seedVersions(withLanes, 'c', 'doc', versions);
  await seedVersions(legacy, 'c', 'doc', versions, { withoutLanes: true });
  const stores = [new Storage(withLanes), new Storage(legacy)];
  try {
    const snapshots = await Promise.all(
      stores.map(async (storage) => {
        const index = new ServingIndex(storage, embedder.dimensions, inlineSegmentBuilder);
        await index.catchUp('c');
        return index.snapshot('c');
      }),
    );
    for (const query of ['akaun simpanan', 'closing balance March', 'inv-1007', 'faedah']) {
      const [a, b] = snapshots.map((snapshot) => searchBm25(snapshot.segments.map((segment) => segment.bm25), analyzeQueryTerms(query), { limit: 100, liveById: snapshot.live }).hits);
      assert.deepEqual(a, b, query);
    }
    const [a, b] = snapshots;
    assert.deepEqual(a.segments[0].codes, b.segments[0].codes);
    assert.deepEqual(a.segments[0].vocabulary.words, b.segments[0].vocabulary.words);
    for (const version of a.versions.values()) {
      assert.equal(version.evidence.state, 'verified');
      const other = b.versions.get(version.identity)!;
      assert.deepEqual(chunksOf(a, version).map((chunk) => chunk.textHash), chunksOf(b, other).map((chunk) => chunk.textHash));
    }
  } finally {
    for (const storage of stores) storage.close();
    removeDir(withLanes);
    removeDir(legacy);
  }
});

test('the text hash is FNV-1a over the code units of "index:text", as lane data written before recorded it', () => {
  const reference = (value: string) => {
    let hash = 0x811c9dc5;
    for (let i = 0; i < value.length; i++) hash = Math.imul(hash ^ value.charCodeAt(i), 0x01000193);
    return hash >>> 0;
  };
  for (const [index, text] of [[0, ''], [3, 'abc'], [12, 'Penyata akaun – RM 1,200.00'], [7, 'naïve 日本 𝔘nicode']] as const) {
    assert.equal(chunkTextHash(index, text), reference(`${index}:${text}`));
  }
  assert.equal(chunkTextHash(0, 'a'), 0x98b2bcaa, 'a fixed value: "0:a" under 32-bit FNV-1a');
});

test("a chunk's recorded language chooses its analyzer: a Malay chunk full of English function words still gets Malay stems", async () => {
  // A Malay loan clause quoting English boilerplate: by its function words alone it reads English.
  const text = 'Pembayaran balik pinjaman of the customer is due at the end of the month to the bank.';
  const [vector] = await embedder.embed([text]);
  const termsWith = (language: 'en' | 'ms' | 'other' | null) => listStrings(lanesOf([{ chunkIndex: 0, page: null, pageLabel: null, text, vector, language }], null, embedder.dimensions).bm25.terms);
  const malayRoot = analyzeQueryTerms('dibayar')[0];
  assert.equal(malayRoot, 'bayar');
  assert.ok(termsWith('ms').includes(malayRoot), 'recorded Malay: Malay affixes are stripped, so dibayar meets pembayaran');
  assert.ok(termsWith('other').includes(malayRoot), 'other or unknown languages get the analyzer that serves both');
  assert.ok(!termsWith('en').includes(malayRoot), 'recorded English: Porter alone');
  assert.ok(!termsWith(null).includes(malayRoot), 'no language recorded (an older chunk): chosen by its function words, as before');
});
