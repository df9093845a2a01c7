// A fast first pass for the exact dense lane: int8 copies of the unit vectors scanned natively by usearch's
// exhaustive (not approximate) search. Callers re-score its candidates with the float32 vectors, so the
// scores they report stay exact; this only decides which rows are worth scoring.

import { createRequire } from 'node:module';

/** One native thread: measured faster than two for a single query (the pool's start-up outweighs the split). */
export const NATIVE_SCAN_THREADS = 1;
/** int8 = round(component * scale), clamped: unit vectors of a few hundred dimensions rarely exceed 0.4. */
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
 * Rows (indices) of the `count` best inner products of the query against the int8 matrix, best first.
 * The matrix must own its buffer from offset 0 (the native side ignores typed-array offsets).
 */
export function topRowsByInnerProduct(matrix: Int8Array, query: Float32Array, dimensions: number, count: number): number[] {
  const search = exactSearch();
  if (!search) throw new Error('usearch is not available');
  const rows = matrix.length / dimensions;
  const wanted = Math.min(rows, Math.max(1, count));
  const result = search(matrix, quantize(query), dimensions, wanted, 'ip', NATIVE_SCAN_THREADS);
  const out: number[] = [];
  for (let i = 0; i < result.keys.length && out.length < wanted; i++) out.push(Number(result.keys[i]));
  return out;
}
