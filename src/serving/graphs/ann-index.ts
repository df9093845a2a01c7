// The approximate dense index of a large segment: an HNSW graph (usearch) over the segment's int8 codes,
// one vector per group of identical rows (distinct-rows.ts), keyed by group. A graph process (graph-process.ts) builds it into the graph cache (graph-cache.ts); the api
// process maps the file and attaches the graph to its segment. Until then, and for small or heavily filtered
// candidate sets, the dense lane scans exactly.
// The graph only proposes rows: every proposed row is scored from the segment's own codes and checked for
// eligibility by the caller.

import { createRequire } from 'node:module';
import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { quantizeQuery } from '../../codec/quantization.ts';
import { groupCodes, groupOfRows, rowGroups } from './distinct-rows.ts';
import type { RowGroups } from './distinct-rows.ts';

/** Segments with at least this many rows get a graph: below it an exact scan costs about as much. */
export const ANN_MIN_ROWS = 20_000;
/**
 * HNSW parameters, measured on SciFact queries over 100,000 chunks with the hashing embedder (recall@10 of the
 * rescored top 10 against an exact float32 scan; 200 proposals): M 16 / ef 128 gave 0.71, M 32 / ef 512 0.97,
 * M 48 / ef 512 0.98 at 1.6 ms a search. Short queries sit far from every chunk, where graphs are weakest.
 * Since identical rows share one node (distinct-rows.ts), a search expansion of 256 kept that recall (0.996,
 * the same as ef 512 and as the exhaustive int8 scan). With 100 proposals (dense-lane.ts ANN_CANDIDATES) an
 * expansion of 128 gives 0.994 and the same fused top 10 for all 1,109 train queries as 256, with the walk
 * about 0.46 ms instead of 0.65-0.75.
 */
export const ANN_CONNECTIVITY = 48;
export const ANN_EXPANSION_ADD = 256;
export const ANN_EXPANSION_SEARCH = 128;
/** Graph building runs on one native thread, so the other core keeps serving. */
export const ANN_BUILD_THREADS = 1;

interface NativeIndex {
  add(keys: BigUint64Array, vectors: Int8Array, threads?: number): void;
  search(vector: Int8Array, k: number, threads?: number): { keys: BigUint64Array; distances: Float32Array };
  save(path: string): void;
  view(path: string): void;
  size(): number;
}

/** usearch's index options (what a graph file is read with). */
export interface AnnIndexOptions {
  dimensions: number;
  metric: string;
  quantization: string;
  connectivity: number;
  expansion_add: number;
  expansion_search: number;
}

type IndexConstructor = new (options: AnnIndexOptions) => NativeIndex;

let indexClass: IndexConstructor | null | undefined;

function nativeIndex(): IndexConstructor | null {
  if (indexClass === undefined) {
    try {
      indexClass = (createRequire(import.meta.url)('usearch') as { Index: IndexConstructor }).Index;
    } catch {
      indexClass = null;
    }
  }
  return indexClass;
}

export function annAvailable(): boolean {
  return nativeIndex() !== null;
}

/** The options every graph is built and read with: int8 codes, inner product, the parameters above. */
export function annIndexOptions(dimensions: number): AnnIndexOptions {
  return { dimensions, metric: 'ip', quantization: 'i8', connectivity: ANN_CONNECTIVITY, expansion_add: ANN_EXPANSION_ADD, expansion_search: ANN_EXPANSION_SEARCH };
}

function newIndex(dimensions: number): NativeIndex {
  const Index = nativeIndex();
  if (!Index) throw new Error('usearch is not available');
  return new Index(annIndexOptions(dimensions));
}

/** Rows added to a graph per native call: between calls a builder can notice it is no longer wanted. */
export const ANN_ADD_BATCH_ROWS = 8192;

/**
 * Builds the graph of `codes` (row-major int8, one row per key) and writes it to `path`; `abandoned`,
 * asked between batches, stops the build (nothing is written).
 */
export function writeAnnGraph(codes: Int8Array, dimensions: number, path: string, abandoned: () => boolean = () => false): boolean {
  const index = newIndex(dimensions);
  const rows = codes.length / dimensions;
  for (let from = 0; from < rows; from += ANN_ADD_BATCH_ROWS) {
    if (abandoned()) return false;
    const to = Math.min(rows, from + ANN_ADD_BATCH_ROWS);
    index.add(BigUint64Array.from({ length: to - from }, (_, i) => BigInt(from + i)), codes.subarray(from * dimensions, to * dimensions), ANN_BUILD_THREADS);
  }
  index.save(path);
  return true;
}

/** Maps a graph file (the mapping outlives the file, which may be removed at any time). */
function mapGraphFile(path: string, dimensions: number): NativeIndex {
  const index = newIndex(dimensions);
  index.view(path);
  return index;
}

/** How many nodes to ask a graph of `nodes` nodes for, when `count` are wanted. */
export function nodesToAsk(nodes: number, count: number): number {
  return Math.max(1, Math.min(count, nodes));
}

/**
 * The nodes a search of a graph of `nodes` nodes answered, by key, nearest first. A graph file names nodes by
 * key; one that is not this graph's cannot propose a node it lacks.
 */
export function nodesOfKeys(keys: BigUint64Array, nodes: number): Uint32Array {
  const out = new Uint32Array(keys.length);
  let found = 0;
  for (let i = 0; i < keys.length; i++) if (keys[i] < nodes) out[found++] = Number(keys[i]);
  return found === out.length ? out : out.subarray(0, found);
}

let graphsMapped = 0;

/** A graph mapped from its file: proposes the groups of identical rows (distinct-rows.ts) nearest a unit query. */
export class AnnGraph {
  private readonly index: NativeIndex;
  /** The segment's rows grouped by identical codes; the graph's keys are group numbers. */
  readonly groups: RowGroups;
  /** Names this mapping in this process (the graph thread maps the same file under the same number). */
  readonly id = ++graphsMapped;
  /** The file it was mapped from, which another thread of the process may map too; null for a graph built in memory. */
  readonly file: string | null;

  constructor(index: NativeIndex, groups: RowGroups, file: string | null = null) {
    if (index.size() !== groups.count) throw new Error(`a graph of ${index.size()} vectors cannot index ${groups.count} groups of rows`);
    this.index = index;
    this.groups = groups;
    this.file = file;
  }

  /** Vectors in the graph: one per group of identical rows. */
  get nodes(): number {
    return this.groups.count;
  }

  /**
   * Maps the graph file of a segment of `rows` rows with its groups file (the mapping outlives the files,
   * which may be removed at any time); files that do not describe exactly those rows are refused.
   */
  static open(path: string, groupsPath: string, dimensions: number, rows: number): AnnGraph {
    const bytes = readFileSync(groupsPath);
    if (bytes.byteLength !== rows * 4) throw new Error(`groups file ${groupsPath} holds ${bytes.byteLength / 4} rows, not ${rows}`);
    const groupOfRow = new Uint32Array(rows);
    new Uint8Array(groupOfRow.buffer).set(bytes);
    return new AnnGraph(mapGraphFile(path, dimensions), rowGroups(groupOfRow), path);
  }

  /** Up to `count` groups of rows, nearest first. */
  nearestGroups(query: Float32Array, count: number): Uint32Array {
    return nodesOfKeys(this.index.search(quantizeQuery(query), nodesToAsk(this.nodes, count), 1).keys, this.nodes);
  }
}

/** Builds and maps a graph on the calling thread (tests and tools; api processes build in a graph process). */
export function buildAnnGraph(codes: Int8Array, dimensions: number): AnnGraph {
  const path = join(tmpdir(), `hds-ann-${process.pid}-${randomUUID()}.usearch`);
  try {
    const groups = rowGroups(groupOfRows(codes, dimensions));
    writeAnnGraph(groupCodes(codes, dimensions, groups), dimensions, path);
    return new AnnGraph(mapGraphFile(path, dimensions), groups);
  } finally {
    rmSync(path, { force: true });
  }
}
