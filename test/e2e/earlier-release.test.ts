// A Client database written by the first release, before the publication log existed, is served after an
// upgrade: search, list and text find its documents. The fixture is built here from that release's schema (the
// first of the Client migrations, which are only ever appended to) and filled with rows as its writer stored them:
// no log, no lane data, chunks in the WITHOUT ROWID table. The documents are real ones from the shared corpus.
// PostgreSQL has no such release: its publication log came in the same migration as the Client tables.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { api, KEYS, removeDir, startTestServer, tempDataDir } from '../helpers/server.ts';
import type { TestServer } from '../helpers/server.ts';
import { TEST_STORE } from '../helpers/test-store.ts';
import { CLIENT_MIGRATIONS } from '../../src/storage/client-migrations.ts';
import { clientFileName } from '../../src/storage/storage.ts';
import { openDatabase } from '../../src/storage/sqlite.ts';
import { vectorToBlob } from '../../src/storage/generation-records.ts';
import { createHashingEmbedder } from '../../src/models/hashing-embedder.ts';
import { chunkPages } from '../../src/ingest/chunk.ts';
import { canonicalMetadataOf } from '../../src/ingest/pipeline.ts';
import { metadataLeaves } from '../../src/domain/metadata-leaves.ts';
import { emptyEntities } from '../../src/domain/entities.ts';
import { versionKey } from '../../src/domain/identity.ts';
import { computeManifest } from '../../src/codec/manifest.ts';

const CORPUS = join(process.cwd(), '..', 'shared', 'corpus');
/** The schema of the first release: the Client tables without the publication log. */
const FIRST_RELEASE_SCHEMA = CLIENT_MIGRATIONS.slice(0, 1);
const CLIENT = 'client-alpha';

const DOCUMENTS = [
  { documentId: 'asn-statement', file: 'txt/mt940_ASNB_0708271685_09022020_164516.940.txt' },
  { documentId: 'abc-categories', file: 'txt/tika_multi-language.txt' },
];

interface WrittenDocument {
  documentId: string;
  chunks: string[];
}

/** Writes the documents into the Client's database file as the first release did (one active generation each). */
async function writeFirstReleaseClient(dataDir: string): Promise<WrittenDocument[]> {
  const db = openDatabase(join(dataDir, 'clients', clientFileName(CLIENT)), FIRST_RELEASE_SCHEMA);
  const embedder = createHashingEmbedder();
  const written: WrittenDocument[] = [];
  try {
    assert.equal((db.prepare("SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'publication_log'").get() as { n: number }).n, 0, 'the schema before the log');
    for (const { documentId, file } of DOCUMENTS) {
      const text = readFileSync(join(CORPUS, file), 'utf8');
      const pages = [{ pageNumber: null, pageLabel: null, text }];
      const chunks = chunkPages(pages);
      const vectors = await embedder.embed(chunks.map((chunk) => chunk.text));
      const parsed = { mimeType: 'text/plain', extension: 'txt', pages, pageCount: null, textExtraction: 'native' as const, ocrUsed: false, warnings: [], properties: { title: null, author: null, createdAt: null } };
      const metadata = canonicalMetadataOf(parsed, file.split('/').pop()!, { status: 'disabled', categories: [] }, {});
      const leaves = metadataLeaves(metadata);
      const manifest = computeManifest({ documentId, versionId: documentId, jobId: null }, chunks, leaves);
      const at = '2025-03-01T08:00:00.000Z';
      const { generation } = db
        .prepare(
          `INSERT INTO generations (document_id, version_key, job_id, state, created_at, staged_at, activated_at, canonical_metadata, entities, embedding, chunk_count, manifest)
           VALUES (?, ?, NULL, 'active', ?, ?, ?, ?, ?, '{}', ?, ?) RETURNING generation`,
        )
        .get(documentId, versionKey(documentId), at, at, at, JSON.stringify(metadata), JSON.stringify(emptyEntities()), chunks.length, JSON.stringify(manifest)) as { generation: number };
      db.prepare('INSERT INTO versions (document_id, version_key, active_generation, created_at) VALUES (?, ?, ?, ?)').run(documentId, versionKey(documentId), generation, at);
      const insertChunk = db.prepare('INSERT INTO chunks (generation, chunk_index, page, page_label, text, entities, vector) VALUES (?, ?, NULL, NULL, ?, ?, ?)');
      chunks.forEach((chunk, index) => insertChunk.run(generation, chunk.chunkIndex, chunk.text, JSON.stringify(emptyEntities()), vectorToBlob(vectors[index])));
      const insertLeaf = db.prepare('INSERT INTO metadata_leaves (generation, ordinal, path, value, value_type) VALUES (?, ?, ?, ?, ?)');
      leaves.forEach((leaf, ordinal) => insertLeaf.run(generation, ordinal, JSON.stringify(leaf.path), JSON.stringify(leaf.value), leaf.valueType));
      written.push({ documentId, chunks: chunks.map((chunk) => chunk.text) });
    }
  } finally {
    db.close();
  }
  return written;
}

const onSqlite = TEST_STORE === 'sqlite' ? false : 'a SQLite file of an earlier release; PostgreSQL always had its publication log';
const dataDir = tempDataDir();
let server: TestServer;
let documents: WrittenDocument[];

before(async () => {
  if (onSqlite) return;
  documents = await writeFirstReleaseClient(dataDir);
  server = await startTestServer({}, dataDir);
});

after(async () => {
  await server?.close();
  removeDir(dataDir);
});

test('search, list and text serve the documents of a Client database written before the publication log', { skip: onSqlite }, async () => {
  const list = await api(server.url, '/documents', { key: KEYS.alpha });
  assert.equal(list.status, 200, list.text);
  assert.deepEqual(list.json.documents.map((row: any) => [row.document_id, row.version_id, row.chunk_count]), documents.map(({ documentId, chunks }) => [documentId, documentId, chunks.length]).sort());

  for (const { documentId, chunks } of documents) {
    const text = await api(server.url, `/document/${documentId}/text`, { key: KEYS.alpha });
    assert.equal(text.status, 200, text.text);
    assert.deepEqual(text.json.chunks.map((chunk: any) => chunk.text), chunks);
  }

  const search = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'betaling sieraden paulissen' } });
  assert.equal(search.status, 200, search.text);
  assert.equal(search.json.results[0]?.document_version.document_id, 'asn-statement');
  const keyword = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'pagamento de sucesso', alpha: 0 } });
  assert.equal(keyword.status, 200, keyword.text);
  assert.deepEqual(keyword.json.results.map((row: any) => row.document_version.document_id), ['abc-categories']);
});

test('the upgrade entered the active generations in the publication log, once', { skip: onSqlite }, async () => {
  const db = new DatabaseSync(join(dataDir, 'clients', clientFileName(CLIENT)), { readOnly: true });
  try {
    const entries = db.prepare('SELECT kind, document_id, generation FROM publication_log ORDER BY seq').all() as { kind: string; document_id: string; generation: number }[];
    const active = db.prepare("SELECT document_id, generation FROM generations WHERE state = 'active' ORDER BY generation").all() as { document_id: string; generation: number }[];
    assert.deepEqual(entries.map((entry) => [entry.kind, entry.document_id, entry.generation]), active.map((row) => ['activate', row.document_id, row.generation]));
  } finally {
    db.close();
  }
});
