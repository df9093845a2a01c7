// SPEC.md POST /search rules 5 and 6, metadata lane: the semantic floor, value-only embedding, path-only
// queries, digit-bearing components, typed values, exact-only paths and the absence of query rewriting.
// The embedder is a fake whose vectors the test chooses, and which records every text it is asked to embed.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EXACT_ONLY_PATHS, MetadataLane } from '../../src/search/metadata-lane.ts';
import { SEMANTIC_METADATA_FLOOR } from '../../src/spec-limits.ts';
import type { MetadataVersionHit } from '../../src/search/metadata-lane.ts';
import { applyChange, emptySnapshot } from '../../src/serving/snapshot.ts';
import type { ClientSnapshot } from '../../src/serving/snapshot.ts';
import { metadataLeaves } from '../../src/domain/metadata-leaves.ts';
import type { JsonObject } from '../../src/domain/canonical-metadata.ts';
import type { MetadataLeaf } from '../../src/domain/generation.ts';
import type { Embedder } from '../../src/models/embedder.ts';
import { normalizeContentQuery } from '../../src/text/query-normalizer.ts';
import { KNOWN_TYPOS } from '../../src/text/known-typos.ts';
import { ABBREVIATIONS } from '../../src/text/abbreviations.ts';
import { vocabularyFromTexts } from '../../src/text/vocabulary.ts';
import { loadedGeneration } from '../helpers/generations.ts';

const DIMS = 64;
/** Directions 0 and 1 are the test's; every other text gets a direction of its own from here on. */
const FIRST_FREE_DIRECTION = 2;

function basis(index: number): Float32Array {
  const vector = new Float32Array(DIMS);
  vector[index] = 1;
  return vector;
}

/** A unit vector whose cosine to basis(0) is exactly `cosine` (in float32). */
function atCosine(cosine: number): Float32Array {
  const vector = new Float32Array(DIMS);
  vector[0] = cosine;
  vector[1] = Math.sqrt(1 - cosine * cosine);
  return vector;
}

/**
 * A fake embedder. `pick` chooses a text's vector; texts it leaves alone get a direction of their own
 * (cosine 0 to every other text), so nothing matches semantically unless the test says so.
 */
class RecordingEmbedder implements Embedder {
  readonly provider = 'test';
  readonly model = 'recording';
  readonly dimensions = DIMS;
  readonly calls: string[][] = [];
  private readonly own = new Map<string, Float32Array>();
  private readonly pick: (text: string) => Float32Array | undefined;

  constructor(pick: (text: string) => Float32Array | undefined = () => undefined) {
    this.pick = pick;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    this.calls.push([...texts]);
    return texts.map((text) => this.pick(text) ?? this.ownDirection(text));
  }

  /** Every text embedded, in call order. */
  get inputs(): string[] {
    return this.calls.flat();
  }

  private ownDirection(text: string): Float32Array {
    let vector = this.own.get(text);
    if (!vector) {
      vector = basis(FIRST_FREE_DIRECTION + this.own.size);
      this.own.set(text, vector);
    }
    return vector;
  }
}

/** Every text embeds to the same vector: any value the lane lets reach the semantic step matches there. */
const sameForAll = () => new RecordingEmbedder(() => basis(0));

/** A snapshot with one version per document, its leaves flattened from `custom` like the publisher does. */
async function snapshotOf(documents: Record<string, JsonObject>, extraLeaves: Record<string, MetadataLeaf[]> = {}, chunkText?: string): Promise<ClientSnapshot> {
  const generations = Object.entries(documents).map(([documentId, custom]) => {
    const generation = loadedGeneration(documentId, [chunkText ?? `text of ${documentId}`]);
    const canonicalMetadata = { ...generation.canonicalMetadata, custom };
    return { ...generation, canonicalMetadata, leaves: [...metadataLeaves(canonicalMetadata), ...(extraLeaves[documentId] ?? [])] };
  });
  return applyChange(emptySnapshot('client', 4), { activated: generations });
}

const everyVersion = () => true;

async function search(embedder: Embedder, snapshot: ClientSnapshot, query: string): Promise<MetadataVersionHit[]> {
  return new MetadataLane(embedder).search(snapshot, query, everyVersion);
}

/** Searches with a fresh recording embedder (vectors of their own): kinds of the hits and the query as embedded. */
async function searchAlone(snapshot: ClientSnapshot, query: string): Promise<{ kinds: Record<string, string>; embeddedQuery: string | undefined }> {
  const embedder = new RecordingEmbedder();
  const hits = await search(embedder, snapshot, query);
  return { kinds: kinds(hits), embeddedQuery: embedder.calls[0]?.[0] };
}

/** document id -> match kind of its best match. */
function kinds(hits: MetadataVersionHit[]): Record<string, string> {
  return Object.fromEntries(hits.map((hit) => [hit.version.documentId, hit.best.kind]));
}

/** The matches of one document as "path=kind". */
function matchesOf(hits: MetadataVersionHit[], documentId: string): string[] {
  const hit = hits.find((candidate) => candidate.version.documentId === documentId);
  return (hit?.matches ?? []).map((match) => `${match.leaf.path.join('.')}=${match.kind}`);
}

// Rule 1: the semantic floor, value-only embedding, path-only queries.

test('semantic floor 0.75: a value just below it does not match, one at or just above it does', async () => {
  assert.equal(SEMANTIC_METADATA_FLOOR, 0.75);
  const query = 'quarterly figures';
  const values: Record<string, Float32Array> = {
    [query]: basis(0),
    'lowish value': atCosine(0.749),
    'floor value': atCosine(0.75),
    'highish value': atCosine(0.751),
    'clearly unrelated': atCosine(0.5),
  };
  const embedder = new RecordingEmbedder((text) => values[text]);
  const snapshot = await snapshotOf({
    below: { note: 'lowish value' },
    at: { note: 'floor value' },
    above: { note: 'highish value' },
    far: { note: 'clearly unrelated' },
  });
  const hits = await search(embedder, snapshot, query);
  assert.deepEqual(kinds(hits), { above: 'semantic', at: 'semantic' }, 'only cosines of at least 0.75 match');
  assert.deepEqual(
    hits.map((hit) => hit.version.documentId),
    ['above', 'at'],
    'semantic matches rank by similarity',
  );
  assert.ok(Math.abs(hits[0].best.score - 0.751) < 1e-6);
  assert.deepEqual(matchesOf(hits, 'above'), ['custom.note=semantic']);
});

test('the floor is not a parameter: extra arguments from a caller cannot lower it', async () => {
  const embedder = new RecordingEmbedder((text) => (text === 'quarterly figures' ? basis(0) : text === 'lowish value' ? atCosine(0.749) : undefined));
  const snapshot = await snapshotOf({ below: { note: 'lowish value' } });
  const lane = new MetadataLane(embedder) as unknown as { search: (...args: unknown[]) => Promise<MetadataVersionHit[]> };
  for (const override of [0, 0.1, { floor: 0 }, { semanticFloor: 0, semantic_floor: 0, minSimilarity: 0 }]) {
    assert.deepEqual(await lane.search(snapshot, 'quarterly figures', everyVersion, override), [], JSON.stringify(override));
  }
});

test('the semantic step embeds the query and each rendered value alone, never a path', async () => {
  const embedder = new RecordingEmbedder();
  const snapshot = await snapshotOf({
    a: { vendor: 'acme trading', department: 'finance operations', nested: { owner: 'siti aminah' } },
    b: { vendor: 'acme trading', headcount: 12 },
  });
  await search(embedder, snapshot, 'consulting report');
  const [queryCall, ...valueCalls] = embedder.calls;
  assert.deepEqual(queryCall, ['consulting report'], 'the query is embedded on its own');
  // Each distinct descriptive value once, exactly as rendered; no path, no key, no joined "path: value".
  assert.deepEqual(valueCalls.flat().sort(), ['acme trading', 'finance operations', 'siti aminah']);
  for (const input of embedder.inputs) {
    for (const pathPart of ['custom', 'vendor', 'department', 'nested', 'owner', 'headcount', 'source', 'mime_type']) {
      assert.equal(input.includes(pathPart), false, `"${input}" carries the path part ${pathPart}`);
    }
  }
});

test('a query equal to a leaf path name but not its value never matches (path-only)', async () => {
  // Any text that mentions a path name embeds exactly like the query: embedding the path would match.
  const pathWords = ['vendor', 'invoice', 'number', 'department', 'custom'];
  const embedder = new RecordingEmbedder((text) => (pathWords.some((word) => text.includes(word)) ? basis(0) : undefined));
  const snapshot = await snapshotOf({
    inv: { vendor: 'acme trading sdn bhd', invoice_number: 'INV-2024-0042', department: 'finance operations' },
  });
  for (const query of ['vendor', 'Vendor', 'invoice_number', 'invoice number', 'department', 'custom', 'custom.vendor', 'custom vendor']) {
    assert.deepEqual(await search(embedder, snapshot, query), [], `path-only query ${query}`);
  }
  // The value itself still matches: the leaves are searchable, only the path is not evidence.
  assert.deepEqual(kinds(await search(embedder, snapshot, 'acme trading')), { inv: 'lexical' });
});

// Rule 2: mixed queries keep digit-bearing components verbatim.

test('mixed query: the digit-bearing component is kept verbatim and matched whole, never rewritten', async () => {
  const embedder = sameForAll();
  const snapshot = await snapshotOf({
    exact: { subject: 'Invoice INV-2024-0042' },
    described: { subject: 'invoice INV-2024-0042 for consulting services' },
    neighbour: { subject: 'invoice INV-2024-0043 for consulting services' },
    longer: { subject: 'invoice INV-2024-00421 for consulting services' },
    prefix: { subject: 'invoice INV-2024 for consulting services' },
    split: { subject: 'invoice INV 2024 0042 for consulting services' },
    identifier: { invoice_number: 'INV-2024-0042' },
  });
  const hits = await search(embedder, snapshot, 'invoice INV-2024-0042');
  // Every descriptive value is semantically identical to the query here: only the verbatim identifier decides.
  assert.deepEqual(kinds(hits), { exact: 'exact', described: 'lexical' });
  assert.deepEqual(
    hits.map((hit) => hit.version.documentId),
    ['exact', 'described'],
    'exact ranks above lexical',
  );
  // The identifier leaf is a structured value: only whole-value equality with the whole query matches it.
  assert.deepEqual(kinds(await search(embedder, snapshot, 'INV-2024-0042')), { identifier: 'exact' });
  assert.deepEqual(kinds(await search(embedder, snapshot, 'inv-2024-0042')), { identifier: 'exact' }, 'case folding is lossless');
  assert.deepEqual(kinds(await search(embedder, snapshot, 'INV-2024-004')), {}, 'no prefix of an identifier');
  assert.deepEqual(kinds(await search(embedder, snapshot, 'INV-2024-00420')), {}, 'no near identifier');
});

test('mixed query with a known typo: the word is not corrected, the identifier not touched', async () => {
  // The content lane would rewrite the words of these queries; the metadata lane keeps every component.
  assert.equal(normalizeContentQuery('invoce INV-2024-0042').text, 'invoice inv-2024-0042');
  const embedder = new RecordingEmbedder();
  const snapshot = await snapshotOf({
    typo: { subject: 'invoce INV-2024-0042 copy' },
    corrected: { subject: 'invoice INV-2024-0042 copy' },
  });
  assert.deepEqual(kinds(await search(embedder, snapshot, 'invoce INV-2024-0042')), { typo: 'lexical' });
  assert.deepEqual(embedder.calls[0], ['invoce inv-2024-0042'], 'the query is embedded as written (normalized losslessly)');
});

// Rule 3: typed numbers, booleans and dates.

test('typed numbers, booleans and dates match only by whole-value equality', async () => {
  const embedder = sameForAll();
  const snapshot = await snapshotOf({
    doc: { amount: 1500, approved: true, due: '2024-03-31', signed: '31 March 2024' },
    fraction: { amount: 1500.5 },
    negative: { approved: false },
  });
  const check = async (query: string, expected: Record<string, string[]>) => {
    const hits = await search(embedder, snapshot, query);
    const actual = Object.fromEntries(hits.map((hit) => [hit.version.documentId, matchesOf(hits, hit.version.documentId)]));
    assert.deepEqual(actual, expected, `query ${JSON.stringify(query)}`);
  };
  await check('1500', { doc: ['custom.amount=exact'] });
  await check('150', {});
  await check('15000', {});
  await check('1500.5', { fraction: ['custom.amount=exact'] });
  await check('1500 amount', {});
  await check('true', { doc: ['custom.approved=exact'] });
  await check('TRUE', { doc: ['custom.approved=exact'] });
  await check('false', { negative: ['custom.approved=exact'] });
  // A boolean is not descriptive text: semantically identical queries still do not reach it.
  await check('yes', {});
  await check('approved', {});
  await check('is true', {});
  await check('the 1500', {});
  await check('2024-03-31', { doc: ['custom.due=exact'] });
  await check('on 2024-03-31', {});
  await check('2024-03', {});
  await check('2024', {});
  await check('03-31', {});
  await check('31 March 2024', { doc: ['custom.signed=exact'] });
  await check('March 2024', {});
  await check('31 march', {});
  // Numbers and dates are never sent to the embedder as values.
  for (const input of embedder.inputs) assert.doesNotMatch(input, /^(1500|1500\.5|true|false|2024-03-31|31 march 2024)$/);
});

test('a typed number is matched as the number it is, not as text that contains it', async () => {
  const embedder = sameForAll();
  const snapshot = await snapshotOf({ total: { amount: 1500 }, text: { note: 'paid 1500 in cash' } });
  // A descriptive value keeps lexical matching of the same digits; the typed number does not.
  assert.deepEqual(kinds(await search(embedder, snapshot, 'paid 1500')), { text: 'lexical' });
  assert.deepEqual(kinds(await search(embedder, snapshot, '1500')), { total: 'exact' });
});

test('a date, number or code as the whole query admits only whole-value equality, spelled with spaces or not', async () => {
  const embedder = sameForAll();
  const snapshot = await snapshotOf({
    iso: { note: 'paid on 2024-03-31 by transfer' },
    spelled: { note: 'board meeting held on 31 March 2024' },
    american: { note: 'signed March 31, 2024 in Penang' },
    code: { note: 'reference inv#42 settled' },
    date: { due: '31 March 2024' },
  });
  // Each descriptive value holds every token of the query, and is semantically identical to it here.
  assert.deepEqual(kinds(await search(embedder, snapshot, '2024-03-31')), {});
  assert.deepEqual(kinds(await search(embedder, snapshot, '31 March 2024')), { date: 'exact' });
  assert.deepEqual(kinds(await search(embedder, snapshot, 'March 31, 2024')), {});
  assert.deepEqual(kinds(await search(embedder, snapshot, 'inv#42')), {});
  // With a descriptive word the query is mixed: digit-bearing components verbatim, lexical matching allowed.
  // (the American spelling holds the digit-bearing tokens too, so the embedder's say-so reaches it semantically).
  assert.deepEqual(kinds(await search(embedder, snapshot, 'meeting 31 March 2024')), { spelled: 'lexical', american: 'semantic' });
  assert.deepEqual(kinds(await search(embedder, snapshot, 'paid 2024-03-31')), { iso: 'lexical' });
});

// Rule 4: exact-only paths.

test('exact-only paths match by whole-value equality and reject lexical and semantic matches', async () => {
  assert.deepEqual([...EXACT_ONLY_PATHS].sort(), ['classification.status', 'quality.text_extraction', 'source.extension', 'source.mime_type']);
  const embedder = sameForAll();
  const mimeType = 'text/plain; charset=utf-8';
  const onPath = (path: string, value: string): MetadataLeaf => ({ path: path.split('.'), value, valueType: 'string' });
  const enumLeaves = [
    onPath('source.mime_type', mimeType),
    onPath('source.extension', 'plain text'),
    onPath('classification.status', 'not classified'),
    onPath('quality.text_extraction', 'native text'),
  ];
  // The same values under a custom key (a descriptive path) as the control.
  const snapshot = await snapshotOf(
    { enums: {}, control: { content_type: mimeType, kind: 'plain text', state: 'not classified', extraction: 'native text' } },
    { enums: enumLeaves },
  );
  for (const query of ['charset', 'utf-8 charset', 'plain', 'classified', 'native']) {
    const hits = await search(embedder, snapshot, query);
    assert.deepEqual(matchesOf(hits, 'enums'), [], `exact-only paths reject "${query}"`);
    assert.ok(matchesOf(hits, 'control').length > 0, `the same value on a descriptive path matches "${query}"`);
  }
  // Whole-value equality still matches on an exact-only path.
  const exact = await search(embedder, snapshot, 'TEXT/PLAIN; charset=UTF-8');
  assert.deepEqual(matchesOf(exact, 'enums'), ['source.mime_type=exact']);
  const extension = await search(embedder, snapshot, 'plain text');
  assert.deepEqual(matchesOf(extension, 'enums'), ['source.extension=exact']);
});

test('identifiers and opaque codes reject token-sharing queries on any path', async () => {
  const embedder = sameForAll();
  const snapshot = await snapshotOf({
    codes: { invoice_number: 'INV-2024-0042', account: '1234-5678-90', reference: 'TRX/2024/000981', swift: 'MBBEMYKL2024' },
  });
  const tokenSharing = ['INV-2024', 'INV', '0042', '2024', 'inv 2024 0042', 'invoice INV-2024', '1234-5678', '5678', 'TRX/2024', 'TRX 2024 000981', 'MBBEMYKL', 'mbbemykl 2024'];
  // Queries holding the whole identifier as one of their tokens: still not whole-value equality.
  const containing = ['the INV-2024-0042', 'INV-2024-0042 and', 'invoice INV-2024-0042', 'account 1234-5678-90', 'ref TRX/2024/000981'];
  for (const query of [...tokenSharing, ...containing]) {
    assert.deepEqual(await search(embedder, snapshot, query), [], `"${query}" shares tokens with an identifier but is not equal to it`);
  }
  for (const [query, path] of [
    ['inv-2024-0042', 'custom.invoice_number'],
    ['1234-5678-90', 'custom.account'],
    ['trx/2024/000981', 'custom.reference'],
    ['MBBEMYKL2024', 'custom.swift'],
  ]) {
    assert.deepEqual(matchesOf(await search(embedder, snapshot, query), 'codes'), [`${path}=exact`]);
  }
});

// Rule 5: no query rewriting in the metadata lane.

test('known typos are not corrected: the typo matches its own spelling, never the corrected one', async () => {
  assert.equal(KNOWN_TYPOS.get('statment'), 'statement');
  assert.equal(normalizeContentQuery('monthly statment').text, 'monthly statement', 'the content lane corrects it');
  const snapshot = await snapshotOf({ typo: { title: 'Monthly Statment' }, corrected: { title: 'Monthly Statement' } });
  assert.deepEqual(await searchAlone(snapshot, 'Monthly Statment'), { kinds: { typo: 'exact' }, embeddedQuery: 'monthly statment' });
  assert.deepEqual(await searchAlone(snapshot, 'statment'), { kinds: { typo: 'lexical' }, embeddedQuery: 'statment' });
  assert.deepEqual((await searchAlone(snapshot, 'statement')).kinds, { corrected: 'lexical' });
});

test('abbreviations are not expanded: the short form matches itself only', async () => {
  assert.equal(ABBREVIATIONS.get('stmt'), 'statement');
  assert.equal(ABBREVIATIONS.get('acct'), 'account');
  assert.equal(normalizeContentQuery('stmt acct').text, 'statement account', 'the content lane expands them');
  assert.equal(normalizeContentQuery('a/c').text, 'account');
  const snapshot = await snapshotOf({ short: { title: 'stmt acct' }, long: { title: 'statement account' } });
  assert.deepEqual(await searchAlone(snapshot, 'stmt acct'), { kinds: { short: 'exact' }, embeddedQuery: 'stmt acct' });
  assert.deepEqual(await searchAlone(snapshot, 'stmt'), { kinds: { short: 'lexical' }, embeddedQuery: 'stmt' });
  assert.deepEqual(await searchAlone(snapshot, 'a/c'), { kinds: {}, embeddedQuery: 'a/c' }, 'slashed abbreviations are not expanded either');
});

test('no fuzzy correction towards the Client vocabulary', async () => {
  const vocabulary = vocabularyFromTexts(['remittance advice for the branch']);
  assert.equal(normalizeContentQuery('remitance', vocabulary).text, 'remittance', 'the content lane fuzzes it');
  // The Client's documents say "remittance": the content lane would fuzz towards it, the metadata lane must not.
  const snapshot = await snapshotOf({ typo: { note: 'remitance advice' }, right: { note: 'remittance advice' } }, {}, 'remittance advice for the branch');
  assert.deepEqual(await searchAlone(snapshot, 'remitance'), { kinds: { typo: 'lexical' }, embeddedQuery: 'remitance' });
  assert.deepEqual((await searchAlone(snapshot, 'remittance')).kinds, { right: 'lexical' });
  assert.deepEqual((await searchAlone(snapshot, 'remitance advise')).kinds, {}, 'every required token verbatim');
});
