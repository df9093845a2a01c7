// Content-search latency over 100,000 chunks in one Client: p50/p95 in-process and over HTTP with
// concurrent clients (default alpha, limit 10, no rerank), plus where the time goes per lane.
// Usage: node bench/search-latency.ts [chunks=100000] [httpClients=8] [httpRequests=2000]

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadDataset } from './datasets.ts';
import { benchEnv } from './bench-service.ts';
import { Storage } from '../src/storage/storage.ts';
import { chunkPages } from '../src/ingest/chunk.ts';
import { createHashingEmbedder } from '../src/models/hashing-embedder.ts';
import { emptyEntities } from '../src/domain/entities.ts';
import { computeManifest } from '../src/publication/manifest.ts';
import { canonicalMetadataOf } from '../src/ingest/pipeline.ts';
import { metadataLeaves } from '../src/domain/metadata-leaves.ts';
import { loadConfig } from '../src/config.ts';
import { startService } from '../src/service.ts';
import { searchBm25 } from '../src/search/bm25.ts';
import { searchDense } from '../src/search/dense-lane.ts';
import { analyzeQueryTerms } from '../src/text/analyzer.ts';
import { normalizeContentQuery } from '../src/text/query-normalizer.ts';
import { snapshotVocabulary } from '../src/publication/snapshot.ts';
import type { JsonObject } from '../src/domain/canonical-metadata.ts';

const TARGET_CHUNKS = Number(process.argv[2] ?? 100_000);
const HTTP_CLIENTS = Number(process.argv[3] ?? 8);
const HTTP_REQUESTS = Number(process.argv[4] ?? 2000);
const ABSTRACTS_PER_DOCUMENT = 10;
const CLIENT = 'latency-client';
const KEY = 'latency-key';

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function summary(label: string, values: number[]): string {
  return `${label.padEnd(34)} p50 ${percentile(values, 50).toFixed(2)} ms  p95 ${percentile(values, 95).toFixed(2)} ms  (n=${values.length})`;
}

const scifact = loadDataset('scifact', 'train.tsv');
const queries = [...scifact.queries.values()];
const dataDir = mkdtempSync(join(tmpdir(), 'hds-latency-'));
const embedder = createHashingEmbedder();

// 1. Write generations straight into the durable store (the start-up rebuild then loads them).
let started = performance.now();
const storage = new Storage(dataDir);
const store = storage.client(CLIENT);
let chunkCount = 0;
let documentCount = 0;
for (let round = 0; chunkCount < TARGET_CHUNKS; round++) {
  for (let start = 0; start < scifact.documents.length && chunkCount < TARGET_CHUNKS; start += ABSTRACTS_PER_DOCUMENT) {
    const group = scifact.documents.slice(start, start + ABSTRACTS_PER_DOCUMENT);
    const pages = group.map((doc) => ({ pageNumber: null, pageLabel: null, text: `${doc.title}\n\n${doc.text}` }));
    const texts = chunkPages(pages, { targetChars: 1000, overlapChars: 150 }).slice(0, TARGET_CHUNKS - chunkCount);
    const vectors = await embedder.embed(texts.map((chunk) => chunk.text));
    const chunks = texts.map((chunk, i) => ({ chunkIndex: chunk.chunkIndex, page: null, pageLabel: null, text: chunk.text, entities: emptyEntities(), vector: vectors[i] }));
    const documentId = `doc-${round}-${start}`;
    const parsed = { mimeType: 'text/markdown', extension: 'md', pages, pageCount: null, textExtraction: 'native' as const, ocrUsed: false, warnings: [], properties: { title: null, author: null, createdAt: null } };
    const metadata = canonicalMetadataOf(parsed, `${documentId}.md`, { status: 'disabled', categories: [] }, {});
    const leaves = metadataLeaves(metadata);
    store.stageAndActivate({
      documentId,
      versionKey: documentId,
      jobId: null,
      createdAt: new Date().toISOString(),
      canonicalMetadata: metadata,
      entities: emptyEntities(),
      embedding: { dense_model: embedder.model, dense_dimensions: embedder.dimensions, sparse_model: 'bm25', embedded_at: new Date().toISOString() },
      deletion: { deleted: false, deletedAt: null, deletedBy: null },
      chunks,
      leaves,
      manifest: computeManifest({ documentId, versionId: documentId, jobId: null }, chunks, leaves) as unknown as JsonObject,
    });
    chunkCount += chunks.length;
    documentCount++;
  }
}
storage.close();
console.log(`wrote ${chunkCount} chunks in ${documentCount} versions in ${((performance.now() - started) / 1000).toFixed(1)} s`);

// 2. Start the service: recovery rebuilds the serving snapshot from SQLite.
started = performance.now();
const service = await startService(loadConfig(benchEnv(dataDir, CLIENT, KEY)));
console.log(`service started (snapshot rebuilt) in ${((performance.now() - started) / 1000).toFixed(1)} s; RSS ${Math.round(process.memoryUsage().rss / 1048576)} MiB`);

try {
  const search = (query: string) =>
    service.services.search.search(CLIENT, {
      query,
      scope: 'content',
      alpha: undefined,
      limit: 10,
      offset: 0,
      filters: {},
      rerank: false,
      topKRerank: 20,
      includeDeleted: false,
      highlight: false,
    });
  for (const query of queries.slice(0, 50)) await search(query); // warm-up (JIT, vocabulary)

  // 3. In-process latency of the whole search path, then of its parts.
  const whole: number[] = [];
  for (const query of queries) {
    const t = performance.now();
    await search(query);
    whole.push(performance.now() - t);
  }
  const snapshot = service.services.authority.snapshot(CLIENT);
  const vocabulary = snapshotVocabulary(snapshot);
  const parts = { normalize: [] as number[], embed: [] as number[], sparse: [] as number[], dense: [] as number[] };
  for (const query of queries) {
    let t = performance.now();
    const normalized = normalizeContentQuery(query, vocabulary).text;
    parts.normalize.push(performance.now() - t);
    t = performance.now();
    const [vector] = await embedder.embed([normalized]);
    parts.embed.push(performance.now() - t);
    t = performance.now();
    searchBm25(snapshot.segments.map((segment) => segment.bm25), analyzeQueryTerms(normalized), { limit: 1000, liveById: snapshot.live });
    parts.sparse.push(performance.now() - t);
    t = performance.now();
    searchDense(snapshot.segments, vector, snapshot.live);
    parts.dense.push(performance.now() - t);
  }
  console.log(`\nin-process, ${snapshot.liveChunkCount} live chunks in ${snapshot.segments.length} segments:`);
  console.log(summary('search (default alpha, limit 10)', whole));
  for (const [name, values] of Object.entries(parts)) console.log(summary(`  ${name}`, values));

  // 4. Over HTTP with concurrent clients.
  const latencies: number[] = [];
  let next = 0;
  const httpStarted = performance.now();
  await Promise.all(
    Array.from({ length: HTTP_CLIENTS }, async () => {
      while (next < HTTP_REQUESTS) {
        const query = queries[next++ % queries.length];
        const t = performance.now();
        const response = await fetch(`${service.url}/search`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-API-Key': KEY },
          body: JSON.stringify({ query, scope: 'content', limit: 10 }),
        });
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`HTTP ${response.status}`);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - httpStarted) / 1000;
  console.log(`\nover HTTP, ${HTTP_CLIENTS} concurrent clients (client and server share this process and its 2 cores):`);
  console.log(summary('POST /search', latencies));
  console.log(`throughput ${(latencies.length / seconds).toFixed(0)} requests/s`);
} finally {
  await service.close();
  rmSync(dataDir, { recursive: true, force: true });
}
