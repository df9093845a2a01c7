// The int8 form of the dense vectors: what a worker writes into a generation's lane data (the rows' codes at one
// fixed scale) and what a reader turns a query into before a native first pass over them. One scale for every
// row keeps the native ranking and the JavaScript scores (serving/quantized-scan.ts) consistent with each other.

/**
 * int8 = round(component * scale), clamped: unit vectors of a few hundred dimensions rarely have a component
 * above 0.4. The dot product of a query with a row's codes, divided by the scale, differs from the float32
 * cosine by the rounding of each component (at most 1 / (2 * scale) each): about 0.002 at 384 dimensions.
 */
export const QUANTIZATION_SCALE = 320;

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
