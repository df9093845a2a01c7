// The dense lane's vectors as an api process holds them: int8 codes of the unit vectors at one fixed scale
// (codec/quantization.ts; full-precision vectors stay in the store), scored in JavaScript for small or
// filtered sets and scanned natively by usearch's exhaustive search for large ones.

import { createRequire } from 'node:module';
import { QUANTIZATION_SCALE, quantizeQuery } from '../codec/quantization.ts';

/** One native thread: measured faster than two for a single query (the pool's start-up outweighs the split). */
export const NATIVE_SCAN_THREADS = 1;

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
