// Rules that decide user-visible results, over HTTP against the real service: the metadata lane's value-only
// gates and its lack of query rewriting (SPEC.md POST /search rules 5 and 6), embedding provenance of the
// document text resource, and lifecycle writes while the authority is FENCING.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, tempDataDir, api, KEYS, removeDir, uploadText, waitForJob } from '../helpers/server.ts';
import type { TestServer } from '../helpers/server.ts';
import { seedVersions } from '../helpers/seed.ts';
import { setMode, until } from '../helpers/processes.ts';
import { openTestStorage } from '../helpers/test-store.ts';
import { Publisher } from '../../src/publication/publisher.ts';
import { createHashingEmbedder } from '../../src/models/hashing-embedder.ts';
import { emptyEntities } from '../../src/domain/entities.ts';
import { computeManifest } from '../../src/codec/manifest.ts';
import { canonicalMetadataOf } from '../../src/ingest/pipeline.ts';
import { metadataLeaves } from '../../src/domain/metadata-leaves.ts';
import { versionKey } from '../../src/domain/identity.ts';
import type { JsonObject } from '../../src/domain/canonical-metadata.ts';

/**
 * One version written straight into the store (as seed.ts does) with the `embedding` record an older
 * indexer left: the provenance rule reads only what was captured there.
 */
async function seedWithEmbedding(dataDir: string, clientId: string, documentId: string, text: string, embedding: JsonObject): Promise<void> {
  const storage = await openTestStorage(dataDir);
  try {
    const [vector] = await createHashingEmbedder().embed([text]);
    const parsed = { mimeType: 'text/plain', extension: 'txt', pages: [{ pageNumber: null, pageLabel: null, text }], pageCount: null, textExtraction: 'native' as const, ocrUsed: false, warnings: [], properties: { title: null, author: null, createdAt: null } };
    const canonicalMetadata = canonicalMetadataOf(parsed, `${documentId}.txt`, { status: 'disabled', categories: [] }, {});
    const leaves = metadataLeaves(canonicalMetadata);
    const chunks = [{ chunkIndex: 0, page: null, pageLabel: null, text, entities: emptyEntities(), vector, language: null }];
    const activation = await new Publisher(storage, { enabled: true }).stageAndActivate(clientId, {
      documentId,
      versionKey: versionKey(documentId),
      jobId: null,
      createdAt: new Date().toISOString(),
      canonicalMetadata,
      entities: emptyEntities(),
      embedding,
      deletion: { deleted: false, deletedAt: null, deletedBy: null },
      chunks,
      leaves,
      manifest: computeManifest({ documentId, versionId: documentId, jobId: null }, chunks, leaves) as unknown as JsonObject,
    });
    assert.ok(activation, `${documentId} was activated`);
  } finally {
    await storage.end();
  }
}

/** What an indexer of another configuration captured: the four model fields, nothing else. */
const RETIRED_MODEL_FIELDS = { dense_model: 'retired-dense-v0', dense_dimensions: 128, sparse_model: 'retired-sparse', embedded_at: '2023-01-02T03:04:05.000Z' };

let server: TestServer;
before(async () => {
  const dataDir = tempDataDir();
  // Client beta: records written before provenance was captured, and one captured by another configuration.
  await seedVersions(dataDir, 'client-beta', 'legacy', [{ versionId: 'v1', text: 'Legacy ledger imported before provenance was captured.' }]);
  const { embedded_at: _dropped, ...withoutTime } = RETIRED_MODEL_FIELDS;
  await seedWithEmbedding(dataDir, 'client-beta', 'partial', 'Three of the four model fields were recorded.', { ...withoutTime, embedding_version: '0', chunker: 'old-chunker' });
  await seedWithEmbedding(dataDir, 'client-beta', 'retired', 'Indexed by a configuration that is gone now.', RETIRED_MODEL_FIELDS);
  server = await startTestServer({}, dataDir);
  const uploads: [string, string, string, JsonObject][] = [
    [KEYS.alpha, 'inv-42', 'Consulting services for the third quarter.', { subject: 'invoice INV-2024-0042 for consulting', invoice_number: 'INV-2024-0042', amount: 1500, approved: true, due: '2024-03-31' }],
    [KEYS.alpha, 'inv-43', 'Hardware purchase for the Penang branch.', { subject: 'invoice INV-2024-0043 for consulting', invoice_number: 'INV-2024-0043', amount: 150, approved: false, due: '2024-03-30', note: 'board meeting held on 31 March 2024' }],
    [KEYS.alpha, 'memo-typo', 'Branch memo about the cash float.', { title: 'Monthly Statment', short: 'stmt acct' }],
    [KEYS.alpha, 'memo-right', 'Monthly statement of the savings account.', { title: 'Monthly Statement', short: 'statement account' }],
    [KEYS.beta, 'fresh', 'A document indexed by this service just now.', {}],
  ];
  for (const [key, documentId, text, metadata] of uploads) {
    const accepted = await uploadText(server.url, key, { document_id: documentId, text, metadata });
    assert.equal((await waitForJob(server.url, key, accepted.json.job_id)).status, 'completed', documentId);
  }
});
after(async () => {
  await server.close();
  removeDir(server.dataDir);
});

async function search(body: Record<string, unknown>, key: string = KEYS.alpha) {
  const response = await api(server.url, '/search', { key, body: { scope: 'metadata', limit: 20, ...body } });
  assert.equal(response.status, 200, response.text);
  return response.json;
}

/** document id -> its metadata evidence as "path=kind" strings. */
function evidence(result: any): Record<string, string[]> {
  return Object.fromEntries(
    result.results.map((row: any) => [row.document_version.document_id, row.metadata_evidence.items.map((item: any) => `${item.path.join('.')}=${item.match_kind}`)]),
  );
}

// Rule 1: the floor is fixed; path names are not evidence.

test('rule 1: callers cannot send a semantic floor (or any other threshold) with a search', async () => {
  for (const extra of [{ semantic_floor: 0 }, { metadata_floor: 0.1 }, { min_similarity: 0 }, { floor: 0 }, { threshold: 0 }]) {
    const response = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'consulting', scope: 'metadata', ...extra } });
    assert.equal(response.status, 422, JSON.stringify(extra));
    assert.equal(response.json.error_code, 'validation_error');
  }
});

test('rule 1: a query that is only a path name matches nothing', async () => {
  for (const query of ['subject', 'invoice_number', 'amount', 'approved', 'due', 'note', 'title', 'short', 'custom', 'custom.amount', 'filename', 'mime_type']) {
    assert.deepEqual(evidence(await search({ query })), {}, query);
  }
});

// Rule 2: mixed queries keep digit-bearing components verbatim.

test('rule 2: a mixed query keeps its identifier verbatim; the identifier leaf needs the identifier alone', async () => {
  assert.deepEqual(evidence(await search({ query: 'invoice INV-2024-0042' })), { 'inv-42': ['custom.subject=lexical'] });
  assert.deepEqual(evidence(await search({ query: 'Invoice inv-2024-0043 consulting' })), { 'inv-43': ['custom.subject=lexical'] });
  assert.deepEqual(evidence(await search({ query: 'INV-2024-0042' })), { 'inv-42': ['custom.invoice_number=exact'] });
  assert.deepEqual(evidence(await search({ query: 'invoice INV-2024-004' })), {}, 'no prefix of the identifier');
  assert.deepEqual(evidence(await search({ query: 'invoice INV-2024' })), {});
  assert.deepEqual(evidence(await search({ query: 'invoice 2024 0042' })), {}, 'no re-split identifier');
  // scope both: the content lane's normalizer leaves identifiers as written too.
  const both = await search({ query: 'invoice INV-2024-0042', scope: 'both' });
  assert.deepEqual(evidence(both)['inv-42'], ['custom.subject=lexical']);
  assert.equal(evidence(both)['inv-43']?.length ?? 0, 0, 'the neighbouring invoice has no metadata evidence');
});

// Rule 3: typed numbers, booleans and dates.

test('rule 3: numbers, booleans and dates match only by whole-value equality', async () => {
  const cases: [string, Record<string, string[]>][] = [
    ['1500', { 'inv-42': ['custom.amount=exact'] }],
    ['150', { 'inv-43': ['custom.amount=exact'] }],
    ['15', {}],
    ['1500.5', {}],
    ['true', { 'inv-42': ['custom.approved=exact'] }],
    ['False', { 'inv-43': ['custom.approved=exact'] }],
    ['2024-03-31', { 'inv-42': ['custom.due=exact'] }],
    ['2024-03', {}],
    ['2024', {}],
    // A date as the whole query is structured too: the descriptive note holding its tokens is no match.
    ['31 March 2024', {}],
    ['meeting 31 March 2024', { 'inv-43': ['custom.note=lexical'] }],
  ];
  for (const [query, expected] of cases) {
    const result = await search({ query });
    assert.deepEqual(evidence(result), expected, query);
    for (const row of result.results) for (const item of row.metadata_evidence.items) assert.equal(typeof item.value === 'string', item.value_type === 'string');
  }
  const [row] = (await search({ query: '1500' })).results;
  assert.deepEqual(row.metadata_evidence.items, [{ path: ['custom', 'amount'], value: 1500, value_type: 'integer', match_kind: 'exact' }]);
});

// Rule 4: exact-only paths and structured values reject lexical matches.

test('rule 4: enumerations and identifiers reject token-sharing queries, equality still matches', async () => {
  const extension = await search({ query: 'TXT' });
  for (const row of extension.results) assert.deepEqual(row.metadata_evidence.items.map((item: any) => `${item.path.join('.')}=${item.match_kind}`), ['source.extension=exact']);
  assert.equal(extension.results.length, 4, 'every text upload of the Client');
  const mime = await search({ query: 'text/plain' });
  for (const row of mime.results) assert.ok(row.metadata_evidence.items.every((item: any) => item.match_kind === 'exact'));
  for (const query of ['INV-2024', 'INV 2024 0042', '0042', 'INV', 'plain text', 'on 2024-03-31', 'is true', 'amount 1500']) {
    assert.deepEqual(evidence(await search({ query })), {}, query);
  }
  // A query holding the whole identifier among other words reaches the descriptive subject, never the identifier leaf.
  assert.deepEqual(evidence(await search({ query: 'the INV-2024-0042' })), { 'inv-42': ['custom.subject=lexical'] });
});

// Rule 5: no query rewriting in the metadata lane.

test('rule 5: a known typo matches the value spelled with it, never the corrected spelling', async () => {
  assert.deepEqual(evidence(await search({ query: 'statment' })), { 'memo-typo': ['custom.title=lexical'] });
  assert.deepEqual(evidence(await search({ query: 'Monthly Statment' })), { 'memo-typo': ['custom.title=exact'] });
  assert.deepEqual(evidence(await search({ query: 'statement' })), { 'memo-right': ['custom.title=lexical', 'custom.short=lexical'] });
});

test('rule 5: abbreviations are not expanded in the metadata lane', async () => {
  assert.deepEqual(evidence(await search({ query: 'stmt' })), { 'memo-typo': ['custom.short=lexical'] });
  assert.deepEqual(evidence(await search({ query: 'stmt acct' })), { 'memo-typo': ['custom.short=exact'] });
  assert.deepEqual(evidence(await search({ query: 'a/c' })), {});
});

test('rule 5: in scope both the content lane corrects the query, the metadata lane does not', async () => {
  const result = await search({ query: 'statment', scope: 'both' });
  const rows = new Map<string, any>(result.results.map((row: any) => [row.document_version.document_id, row]));
  // The content lane searched "statement" (a known-typo correction): the text that says so is found.
  assert.deepEqual(rows.get('memo-right')?.retrieval_contributions.map((c: any) => c.lane), ['content']);
  assert.deepEqual(rows.get('memo-right').metadata_evidence, { items: [], total: 0, truncated: false }, 'Monthly Statement is not metadata evidence');
  // The metadata lane searched "statment" as written: only the value spelled that way is evidence.
  assert.deepEqual(rows.get('memo-typo')?.retrieval_contributions, [{ lane: 'metadata', rank: 1 }]);
  assert.deepEqual(evidence(result)['memo-typo'], ['custom.title=lexical']);
  const abbreviation = await search({ query: 'stmt', scope: 'both' });
  assert.deepEqual(evidence(abbreviation), { 'memo-typo': ['custom.short=lexical'], 'memo-right': [] });
  assert.equal(abbreviation.meta.query, 'stmt', 'the query is echoed as sent');
});

// Document text resource: embedding provenance.

test('document text: provenance current_config without the four captured model fields, captured with them', async () => {
  const read = async (documentId: string) => {
    const response = await api(server.url, `/document/${documentId}/text`, { key: KEYS.beta });
    assert.equal(response.status, 200, response.text);
    return response.json.embedding;
  };
  const fresh = await read('fresh');
  assert.equal(fresh.provenance, 'captured');
  assert.equal(typeof fresh.embedded_at, 'string');
  assert.equal(fresh.embedding_version, '1');
  const current = { dense_model: fresh.dense_model, dense_dimensions: fresh.dense_dimensions, sparse_model: fresh.sparse_model, dense_runtime: fresh.dense_runtime };
  const queryTime = {
    reranker_model: fresh.reranker_model,
    reranker_scope: 'query_time',
    classifier_model: fresh.classifier_model,
    classifier_model_file: fresh.classifier_model_file,
    classifier_scope: 'classification_only',
    classification_enabled: fresh.classification_enabled,
  };
  const currentConfig = { provenance: 'current_config', ...current, embedded_at: null, embedding_version: null, chunker: null, extraction: null, ...queryTime };
  // Seeded with embedding {}: every model field is the current configuration, nothing indexing-time is claimed.
  assert.deepEqual(await read('legacy'), currentConfig);
  // Three of the four captured (no embedded_at): still current_config; the partial record is not reported.
  assert.deepEqual(await read('partial'), currentConfig);
  // All four captured: captured, with the recorded values, even though the optional fields are absent.
  assert.deepEqual(await read('retired'), {
    provenance: 'captured',
    ...RETIRED_MODEL_FIELDS,
    embedding_version: null,
    dense_runtime: null,
    chunker: null,
    extraction: null,
    ...queryTime,
  });
  assert.deepEqual(Object.keys(await read('legacy')).sort(), Object.keys(fresh).sort(), 'same fields either way');
});

// FENCING: real writes attempted while reads are pinned.

test('FENCING: delete, restore and hard delete are refused and change nothing; an update waits; reads stay pinned; READY applies the update', async () => {
  const fenced = await startTestServer();
  const call = (path: string, options: { method?: string; body?: unknown } = {}) => api(fenced.url, path, { key: KEYS.alpha, ...options });
  const ids = (result: any) => result.results.map((row: any) => row.document_version.document_id).sort();
  const searchFenced = async (query: string, scope = 'content') => {
    const response = await call('/search', { body: { query, scope, limit: 20 } });
    assert.equal(response.status, 200, response.text);
    return response.json;
  };
  try {
    const uploads: Record<string, string> = {};
    for (const [id, text, metadata] of [
      ['kept', 'Overdraft facility letter for the Ipoh office.', { stage: 'draft review' }],
      ['binned', 'Overdraft facility renewal for the Ipoh office.', { stage: 'archived copy' }],
    ] as const) {
      const accepted = await uploadText(fenced.url, KEYS.alpha, { document_id: id, text, metadata });
      uploads[id] = accepted.json.job_id;
      assert.equal((await waitForJob(fenced.url, KEYS.alpha, accepted.json.job_id)).status, 'completed');
    }
    assert.equal((await call('/document/binned', { method: 'DELETE' })).status, 200, 'soft deleted before the fence');
    assert.deepEqual(ids(await searchFenced('overdraft facility Ipoh')), ['kept']);

    await setMode(fenced.url, 'FENCING');
    const refused = async (what: string, path: string, method: string) => {
      const response = await call(path, { method });
      assert.equal(response.status, 503, `${what}: ${response.text}`);
      assert.equal(response.json.error_code, 'publication_busy', what);
      assert.equal(response.headers.get('retry-after'), '1', what);
    };
    await refused('soft delete', '/document/kept', 'DELETE');
    await refused('soft delete of one version', '/document/kept?version_id=kept', 'DELETE');
    await refused('restore', '/document/binned/restore', 'POST');
    await refused('hard delete', '/document/kept?mode=hard', 'DELETE');
    await refused('hard delete of a soft-deleted document', '/document/binned?mode=hard', 'DELETE');

    const update = await call('/update', { method: 'PATCH', body: { document_id: 'kept', metadata: { stage: 'final signed' } } });
    assert.equal(update.status, 202, update.text);
    assert.equal(update.json.status, 'pending');
    const waiting = await waitForJob(fenced.url, KEYS.alpha, update.json.job_id, { until: (job) => job.status === 'retrying' });
    assert.match(waiting.error, /FENCING/);

    // Reads answer from the pinned READY state: nothing of the refused writes, nothing of the waiting update.
    for (let i = 0; i < 5; i++) {
      const content = await searchFenced('overdraft facility Ipoh');
      assert.equal(content.meta.publication_view, 'pinned_ready');
      assert.deepEqual(ids(content), ['kept']);
      const old = await searchFenced('draft review', 'metadata');
      assert.equal(old.meta.publication_view, 'pinned_ready');
      assert.deepEqual(ids(old), ['kept']);
      assert.deepEqual(ids(await searchFenced('final signed', 'metadata')), []);
      assert.deepEqual(ids(await searchFenced('archived copy', 'metadata')), [], 'the soft-deleted version stays hidden');
    }
    const pinnedText = await call('/document/kept/text');
    assert.equal(pinnedText.status, 200);
    assert.deepEqual(pinnedText.json.metadata.custom, { stage: 'draft review' });
    assert.equal((await call('/document/binned/text')).status, 404);
    // Still waiting: retrying, or started (or processing) for the moment a worker claims it again, finds FENCING and
    // hands it back.
    assert.ok(['retrying', 'started', 'processing'].includes((await api(fenced.url, `/status/${update.json.job_id}`, { key: KEYS.alpha })).json.status), 'still waiting');

    await setMode(fenced.url, 'READY');
    const done = await waitForJob(fenced.url, KEYS.alpha, update.json.job_id);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal(done.publication_status, 'ready');

    // The update shows; every refused write left its target as it was.
    const updated = await until('the update to be served', async () => {
      const result = await searchFenced('final signed', 'metadata');
      return ids(result).length === 1 ? result : null;
    });
    assert.equal(updated.meta.publication_view, 'ready');
    assert.deepEqual(ids(updated), ['kept']);
    assert.deepEqual(ids(await searchFenced('draft review', 'metadata')), []);
    const text = await call('/document/kept/text');
    assert.equal(text.status, 200, 'not soft or hard deleted');
    assert.deepEqual(text.json.metadata.custom, { stage: 'final signed' });
    assert.equal((await call('/document/binned/text')).status, 404, 'not restored');
    const binned = await call('/document/binned/text?include_deleted=true');
    assert.equal(binned.status, 200, 'not hard deleted');
    assert.equal(binned.json.deleted, true);
    assert.deepEqual(ids(await searchFenced('overdraft facility Ipoh')), ['kept']);
    const listed = await call('/documents?include_deleted=true');
    assert.deepEqual(listed.json.documents.map((row: any) => `${row.document_id}:${row.deleted}`).sort(), ['binned:true', 'kept:false']);
    for (const jobId of Object.values(uploads)) assert.equal((await call(`/status/${jobId}`)).status, 200, 'job bindings survive');
  } finally {
    await fenced.close();
    removeDir(fenced.dataDir);
  }
});
