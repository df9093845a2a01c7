// Small vector helpers shared by the embedding providers (normalization, dot product).
// Pure functions on Float32Array; they never allocate more than the vector they return.

/** Norms below this are treated as zero so empty or degenerate inputs yield an all-zero vector, not NaN. */
export const MIN_VECTOR_NORM = 1e-12;

/** Scales `vector` in place to unit L2 norm; leaves an (almost) zero vector as all zeros. */
export function l2NormalizeInPlace<T extends Float32Array>(vector: T): T {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i] * vector[i];
  const norm = Math.sqrt(sum);
  if (norm < MIN_VECTOR_NORM) {
    vector.fill(0);
    return vector;
  }
  const scale = 1 / norm;
  for (let i = 0; i < vector.length; i++) vector[i] *= scale;
  return vector;
}

export function dot(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) throw new RangeError(`vector lengths differ: ${a.length} vs ${b.length}`);
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}

export function l2Norm(vector: Float32Array): number {
  return Math.sqrt(dot(vector, vector));
}
