// What a Client's serving snapshot costs an api process, estimated from what it holds: the typed arrays of
// its segments counted exactly, strings and objects at measured per-item sizes. The serving index evicts
// Clients by it under what SERVING_MEMORY_BUDGET_MB leaves for snapshots; it is an estimate, not a measurement
// of the heap.

import type { Segment } from './segment.ts';
import type { ClientSnapshot } from './snapshot.ts';
import { ANN_CONNECTIVITY } from './graphs/ann-index.ts';
import type { Vocabulary } from '../text/vocabulary.ts';
import { tableBytes } from '../text/string-table.ts';
import { CLIENT_CONNECTION_CACHE_MAX_KIB, CLIENT_CONNECTION_CACHE_MIN_KIB } from '../storage/port.ts';

/** A page label string. */
export const LABEL_BYTES = 48;
/** An entry of a vocabulary's bigram map: the map entry and its typed-array view (the ids are counted exactly). */
export const BIGRAM_ENTRY_BYTES = 160;
/** What a small vocabulary's bigram index, built on its first fuzzy lookup, may take per word (about eight bigrams of 4 bytes, and map entries). */
export const LAZY_BIGRAM_BYTES_PER_WORD = 64;
/** A served version: canonical metadata, entities and metadata leaves as parsed objects. */
export const VERSION_BYTES = 6 * 1024;

/** What the segment thread may hold between recycles (threaded-segment-builder.ts THREAD_RECYCLE_BYTES). */
export const SEGMENT_THREAD_RESERVE_BYTES = 64 * 1024 * 1024;
/**
 * A Client database connection: its page cache (at least storage/port.ts CLIENT_CONNECTION_CACHE_MIN_KIB), schema
 * and prepared statements, measured at about 0.7 MiB. A served Client keeps one open; an evicted one lets it go.
 */
export const CLIENT_CONNECTION_BYTES = 0.7 * 1024 * 1024;
/**
 * A large Client's connection caches more: a share of its file (storage/client-page-cache.ts CLIENT_DB_CACHE_SHARE,
 * 1/256), which holds about 8.6 KB a chunk (100,000 SciFact chunks: 864 MB), so about 34 bytes a chunk, up to
 * CLIENT_CONNECTION_CACHE_MAX_KIB.
 */
export const CONNECTION_CACHE_BYTES_PER_CHUNK = 34;

/** The page cache of a Client's connection beyond the floor CLIENT_CONNECTION_BYTES counts. */
function connectionCacheBytes(chunks: number): number {
  return Math.max(0, Math.min(CLIENT_CONNECTION_CACHE_MAX_KIB * 1024, chunks * CONNECTION_CACHE_BYTES_PER_CHUNK) - CLIENT_CONNECTION_CACHE_MIN_KIB * 1024);
}

/**
 * Below this, what the budget leaves for served Clients holds a few small ones at most, and the process
 * warns at start-up: a busy api process also needs room for allocator and heap growth the estimate does not
 * see (memory-pressure.ts takes it from the served Clients' share), about 40-60 MiB measured.
 */
export const SERVED_CLIENTS_LOW_BYTES = 64 * 1024 * 1024;

/**
 * SERVING_MEMORY_BUDGET_MB bounds an api process as a whole: what it holds once started (its binary, modules
 * and models, measured as its resident size then), the segment thread's reserve, V8's young generation once
 * requests have grown it (two semi-spaces, V8_MAX_SEMI_SPACE_MB each), and its served Clients. Those get what
 * is left (none when the budget is below the rest: then only the Client being read is held).
 */
export function snapshotBudgetBytes(processBudgetBytes: number, startedRssBytes: number, maxSemiSpaceBytes: number): number {
  return Math.max(0, processBudgetBytes - startedRssBytes - SEGMENT_THREAD_RESERVE_BYTES - 2 * maxSemiSpaceBytes);
}

function typedBytes(...arrays: ArrayBufferView[]): number {
  return arrays.reduce((sum, array) => sum + array.byteLength, 0);
}

const indexBytes = new WeakMap<Segment, number>();

function vocabularyBytes(vocabulary: Vocabulary): number {
  const [first] = vocabulary.bigrams?.values() ?? [];
  const bigramIndex = vocabulary.bigrams
    ? // Every bigram list is a view of one array.
      (first?.buffer.byteLength ?? 0) + vocabulary.bigrams.size * BIGRAM_ENTRY_BYTES
    : vocabulary.words.size * LAZY_BIGRAM_BYTES_PER_WORD;
  return (
    tableBytes(vocabulary.words) +
    typedBytes(vocabulary.counts, vocabulary.lengths, vocabulary.byLength, vocabulary.lengthStarts) +
    tableBytes(vocabulary.terms) +
    tableBytes(vocabulary.malayRoots) +
    bigramIndex
  );
}

/** A segment's estimate; its graph, attached later, is counted when present. */
export function segmentBytes(segment: Segment): number {
  let bytes = indexBytes.get(segment);
  if (bytes === undefined) {
    const { bm25 } = segment;
    bytes =
      typedBytes(bm25.docIds, bm25.textLengths, bm25.titleLengths, bm25.postingStarts, bm25.postingDocs, bm25.postingTextTf, bm25.postingTitleTf) +
      tableBytes(bm25.terms) +
      typedBytes(segment.codes, segment.generationRows, segment.wordStarts, segment.wordIds, segment.wordCounts, segment.chunkIndexes, segment.pages, segment.textHashes, segment.labelRows) +
      typedBytes(segment.rangeStarts, segment.rangeGenerations, segment.rangeBuckets) +
      segment.labels.length * LABEL_BYTES +
      vocabularyBytes(segment.vocabulary);
    indexBytes.set(segment, bytes);
  }
  // An HNSW graph holds its own int8 copy of each distinct row and about two links per connection per row,
  // and the segment's rows are mapped to its vectors and back (two uint32 a row).
  const graph = segment.ann.graph ? segment.ann.graph.nodes * (segment.dimensions + ANN_CONNECTIVITY * 2 * 4) + segment.rows * 8 : 0;
  return bytes + graph;
}

/** A served Client: its snapshot, and the database connection it keeps open. */
export function snapshotBytes(snapshot: ClientSnapshot): number {
  let bytes = CLIENT_CONNECTION_BYTES + connectionCacheBytes(snapshot.liveChunkCount) + snapshot.live.byteLength + snapshot.versions.size * VERSION_BYTES;
  for (const segment of snapshot.segments) bytes += segmentBytes(segment);
  return bytes;
}
