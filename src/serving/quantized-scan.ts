// The dense lane's vectors as an api process holds them: int8 codes of the unit vectors at one fixed scale
// (full-precision vectors stay in the store), scored in JavaScript for small or filtered sets and scanned
// natively by usearch's exhaustive search for large ones. One scale for every row keeps the native
// ranking and the JavaScript scores consistent with each other.

import { createRequire } from 'node:module';

/** One native thread: measured faster than two for a single query (the pool's start-up outweighs the split). */
export const NATIVE_SCAN_THREADS = 1;
/**
 * int8 = round(component * scale), clamped: unit vectors of a few hundred dimensions rarely have a component
 * above 0.4. The dot product of a query with a row's codes, divided by the scale, differs from the float32
 * cosine by the rounding of each component (at most 1 / (2 * scale) each): about 0.002 at 384 dimensions.
 */
export const QUANTIZATION_SCALE = 320;

interface NativeExactSearch {
  (dataset: Int8Array, queries: Int8Array, dimensions: number, count: number, metric: string, threads?: number): { keys: BigUint64Array; distances: Float32Array };
}

let native: NativeExactSearch | null | undefined;

/** usearch's exactSearch, or null where its prebuilt addon cannot load (the caller then scans in JS). */
function exactSearch(): NativeExactSearch | null {
  if (native === undefined) {
    try {
      const usearch = createRequire(import.meta.url)('usearch') as { exactSearch: NativeExactSearch };
      native = usearch.exactSearch;
    } catch {
      native = null;
    }
  }
  return native;
}

export function quantizationAvailable(): boolean {
  return exactSearch() !== null;
}

export function quantize(vectors: Float32Array): Int8Array {
  const out = new Int8Array(vectors.length);
  for (let i = 0; i < vectors.length; i++) {
    const value = Math.round(vectors[i] * QUANTIZATION_SCALE);
    out[i] = value > 127 ? 127 : value < -127 ? -127 : value;
  }
  return out;
}

/**
 * A query's int8 form for a native first pass: scaled so its largest component is 127. Ranking by inner
 * product does not depend on the query's scale, and a short query's few large components would be clipped at
 * the rows' fixed scale, turning it away from where it points.
 */
export function quantizeQuery(query: Float32Array): Int8Array {
  let largest = 0;
  for (let i = 0; i < query.length; i++) largest = Math.max(largest, Math.abs(query[i]));
  const scale = largest > 0 ? 127 / largest : 0;
  const out = new Int8Array(query.length);
  for (let i = 0; i < query.length; i++) out[i] = Math.round(query[i] * scale);
  return out;
}

/** The cosine of a unit query with row `row` of the codes, as the codes allow (see QUANTIZATION_SCALE). */
export function quantizedDot(codes: Int8Array, row: number, dimensions: number, query: Float32Array): number {
  let score = 0;
  const base = row * dimensions;
  for (let d = 0; d < dimensions; d++) score += codes[base + d] * query[d];
  return score / QUANTIZATION_SCALE;
}

/**
 * Rows (indices) of the `count` best inner products of the query against the int8 matrix, best first.
 * The matrix must own its buffer from offset 0 (the native side ignores typed-array offsets).
 */
export function topRowsByInnerProduct(matrix: Int8Array, query: Float32Array, dimensions: number, count: number): number[] {
  const search = exactSearch();
  if (!search) throw new Error('usearch is not available');
  const rows = matrix.length / dimensions;
  const wanted = Math.min(rows, Math.max(1, count));
  const result = search(matrix, quantizeQuery(query), dimensions, wanted, 'ip', NATIVE_SCAN_THREADS);
  const out: number[] = [];
  for (let i = 0; i < result.keys.length && out.length < wanted; i++) out.push(Number(result.keys[i]));
  return out;
}
