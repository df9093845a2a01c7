// Turns raw safetensors tensors into numbers: a row-addressable embedding matrix that keeps half-precision
// and int8 weights compact, plus small float and integer vectors. It never changes the stored values.

import { ModelProviderError } from './model-error.ts';
import type { SafetensorsTensor } from './safetensors.ts';

/** Dtypes an embedding matrix may use; model2vec writes F32, F16 or quantized I8. */
export const EMBEDDING_MATRIX_DTYPES = ['F32', 'F16', 'BF16', 'I8'] as const;

export interface EmbeddingMatrix {
  readonly rows: number;
  readonly cols: number;
  readonly dtype: string;
  /** out += scale * row */
  addRowTo(out: Float32Array, row: number, scale: number): void;
}

const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** IEEE 754 binary16 bits to a number (subnormals, infinities and NaN included). */
export function float16ToFloat32(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 0x1f) return fraction === 0 ? sign * Infinity : NaN;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}

/** bfloat16 is the top half of a float32. */
export function bfloat16ToFloat32(bits: number): number {
  const word = new Uint32Array([bits << 16]);
  return new Float32Array(word.buffer)[0];
}

let float16Table: Float32Array | null = null;
let bfloat16Table: Float32Array | null = null;

function halfTable(dtype: 'F16' | 'BF16'): Float32Array {
  if (dtype === 'F16') return (float16Table ??= Float32Array.from({ length: 65536 }, (_, bits) => float16ToFloat32(bits)));
  return (bfloat16Table ??= Float32Array.from({ length: 65536 }, (_, bits) => bfloat16ToFloat32(bits)));
}

// Typed-array views over the file need aligned offsets and a little-endian host; otherwise decode a copy.
function float32View(bytes: Uint8Array): Float32Array {
  const length = bytes.byteLength / 4;
  if (LITTLE_ENDIAN_HOST && bytes.byteOffset % 4 === 0) return new Float32Array(bytes.buffer, bytes.byteOffset, length);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return Float32Array.from({ length }, (_, i) => view.getFloat32(i * 4, true));
}

function uint16View(bytes: Uint8Array): Uint16Array {
  const length = bytes.byteLength / 2;
  if (LITTLE_ENDIAN_HOST && bytes.byteOffset % 2 === 0) return new Uint16Array(bytes.buffer, bytes.byteOffset, length);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return Uint16Array.from({ length }, (_, i) => view.getUint16(i * 2, true));
}

function denseRows(values: Float32Array | Int8Array, cols: number): EmbeddingMatrix['addRowTo'] {
  return (out, row, scale) => {
    const base = row * cols;
    for (let i = 0; i < cols; i++) out[i] += scale * values[base + i];
  };
}

function halfRows(values: Uint16Array, table: Float32Array, cols: number): EmbeddingMatrix['addRowTo'] {
  return (out, row, scale) => {
    const base = row * cols;
    for (let i = 0; i < cols; i++) out[i] += scale * table[values[base + i]];
  };
}

export function embeddingMatrix(tensor: SafetensorsTensor, source: string): EmbeddingMatrix {
  if (tensor.shape.length !== 2) throw new ModelProviderError('model_file_invalid', `${source}: tensor "${tensor.name}" must be 2-D [vocab, dim], has shape [${tensor.shape.join(', ')}]`);
  const [rows, cols] = tensor.shape as [number, number];
  if (rows === 0 || cols === 0) throw new ModelProviderError('model_file_invalid', `${source}: tensor "${tensor.name}" is empty`);
  const dtype = tensor.dtype;
  let addRowTo: EmbeddingMatrix['addRowTo'];
  if (dtype === 'F32') addRowTo = denseRows(float32View(tensor.bytes), cols);
  else if (dtype === 'F16' || dtype === 'BF16') addRowTo = halfRows(uint16View(tensor.bytes), halfTable(dtype), cols);
  else if (dtype === 'I8') addRowTo = denseRows(new Int8Array(tensor.bytes.buffer, tensor.bytes.byteOffset, tensor.bytes.byteLength), cols);
  else throw new ModelProviderError('model_file_invalid', `${source}: tensor "${tensor.name}" has dtype ${dtype}; supported: ${EMBEDDING_MATRIX_DTYPES.join(', ')}`);
  return { rows, cols, dtype, addRowTo };
}

/** A 1-D float tensor (e.g. model2vec per-token weights) as float32. */
export function floatVector(tensor: SafetensorsTensor, source: string): Float32Array {
  const view = new DataView(tensor.bytes.buffer, tensor.bytes.byteOffset, tensor.bytes.byteLength);
  const readers: Record<string, [number, (at: number) => number]> = {
    F64: [8, (at) => view.getFloat64(at, true)],
    F32: [4, (at) => view.getFloat32(at, true)],
    F16: [2, (at) => float16ToFloat32(view.getUint16(at, true))],
    BF16: [2, (at) => bfloat16ToFloat32(view.getUint16(at, true))],
  };
  const reader = readers[tensor.dtype];
  if (!reader) throw new ModelProviderError('model_file_invalid', `${source}: tensor "${tensor.name}" has dtype ${tensor.dtype}; expected a float dtype`);
  const [width, read] = reader;
  return Float32Array.from({ length: tensor.bytes.byteLength / width }, (_, i) => read(i * width));
}

/** A 1-D integer tensor (e.g. model2vec token -> row mapping); values must be safe integers. */
export function integerVector(tensor: SafetensorsTensor, source: string): Int32Array {
  const view = new DataView(tensor.bytes.buffer, tensor.bytes.byteOffset, tensor.bytes.byteLength);
  const readers: Record<string, [number, (at: number) => number]> = {
    I64: [8, (at) => Number(view.getBigInt64(at, true))],
    I32: [4, (at) => view.getInt32(at, true)],
    I16: [2, (at) => view.getInt16(at, true)],
  };
  const reader = readers[tensor.dtype];
  if (!reader) throw new ModelProviderError('model_file_invalid', `${source}: tensor "${tensor.name}" has dtype ${tensor.dtype}; expected an integer dtype`);
  const [width, read] = reader;
  const out = new Int32Array(tensor.bytes.byteLength / width);
  for (let i = 0; i < out.length; i++) {
    const value = read(i * width);
    if (value < 0 || value > 0x7fffffff) throw new ModelProviderError('model_file_invalid', `${source}: tensor "${tensor.name}" holds out-of-range index ${value}`);
    out[i] = value;
  }
  return out;
}
