import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ModelProviderError } from '../../src/models/model-error.ts';
import { parseSafetensors } from '../../src/models/safetensors.ts';
import { bfloat16ToFloat32, embeddingMatrix, float16ToFloat32, floatVector, integerVector } from '../../src/models/tensor-decode.ts';
import { float16Bits, safetensorsFile, tensorBytes } from './tiny-model.ts';

function row(matrix: ReturnType<typeof embeddingMatrix>, index: number): number[] {
  const out = new Float32Array(matrix.cols);
  matrix.addRowTo(out, index, 1);
  return Array.from(out);
}

test('float16 bit patterns decode to IEEE values, subnormals and infinities included', () => {
  assert.equal(float16ToFloat32(0x3c00), 1);
  assert.equal(float16ToFloat32(0xc000), -2);
  assert.equal(float16ToFloat32(0x7bff), 65504);
  assert.equal(float16ToFloat32(0x0001), 2 ** -24);
  assert.equal(float16ToFloat32(0x0400), 2 ** -14);
  assert.equal(float16ToFloat32(0x3555), 0.333251953125);
  assert.equal(float16ToFloat32(0x7c00), Infinity);
  assert.equal(float16ToFloat32(0xfc00), -Infinity);
  assert.ok(Number.isNaN(float16ToFloat32(0x7e00)));
  assert.ok(Object.is(float16ToFloat32(0x8000), -0));
  assert.equal(bfloat16ToFloat32(0x3f80), 1);
  assert.equal(bfloat16ToFloat32(0xc040), -3);
  // The test-side encoder and the decoder agree on representable values.
  for (const value of [0.5, -0.25, 0.99609375, 1 / 256, -255 / 256]) assert.equal(float16ToFloat32(float16Bits(value)), value);
});

test('parses header, metadata and tensors, and reads F16, BF16, I8 and unaligned F32 matrices', () => {
  const bf16 = new Uint8Array(8);
  [0x3f80, 0xc040, 0x4000, 0x0000].forEach((bits, i) => new DataView(bf16.buffer).setUint16(i * 2, bits, true));
  const file = safetensorsFile([
    { name: 'pad', dtype: 'U8', shape: [1], bytes: new Uint8Array([7]) }, // shifts the next tensor off 4-byte alignment
    { name: 'f32', dtype: 'F32', shape: [2, 2], bytes: tensorBytes('F32', [1.5, -2, 0.25, 3]) },
    { name: 'f16', dtype: 'F16', shape: [2, 2], bytes: tensorBytes('F16', [0.5, -1, 2, 0.125]) },
    { name: 'bf16', dtype: 'BF16', shape: [2, 2], bytes: bf16 },
    { name: 'i8', dtype: 'I8', shape: [1, 3], bytes: new Uint8Array([1, 255, 128]) },
    { name: 'ids', dtype: 'I32', shape: [3], bytes: tensorBytes('I32', [2, 0, 1]) },
    { name: 'w', dtype: 'F16', shape: [2], bytes: tensorBytes('F16', [0.5, 4]) },
  ], { format: 'pt' });
  const parsed = parseSafetensors(file);
  assert.deepEqual(parsed.metadata, { format: 'pt' });
  assert.deepEqual([...parsed.tensors.keys()], ['pad', 'f32', 'f16', 'bf16', 'i8', 'ids', 'w']);
  const f32 = embeddingMatrix(parsed.tensors.get('f32')!, 'test');
  assert.deepEqual([f32.rows, f32.cols], [2, 2]);
  assert.deepEqual(row(f32, 1), [0.25, 3]);
  assert.deepEqual(row(embeddingMatrix(parsed.tensors.get('f16')!, 'test'), 0), [0.5, -1]);
  assert.deepEqual(row(embeddingMatrix(parsed.tensors.get('bf16')!, 'test'), 0), [1, -3]);
  assert.deepEqual(row(embeddingMatrix(parsed.tensors.get('i8')!, 'test'), 0), [1, -1, -128]);
  assert.deepEqual(Array.from(integerVector(parsed.tensors.get('ids')!, 'test')), [2, 0, 1]);
  assert.deepEqual(Array.from(floatVector(parsed.tensors.get('w')!, 'test')), [0.5, 4]);
  const scaled = new Float32Array(2);
  f32.addRowTo(scaled, 0, 2);
  assert.deepEqual(Array.from(scaled), [3, -4]);
});

test('rejects unknown dtypes, bad offsets and non-object headers', () => {
  const header = (json: string): Uint8Array => {
    const bytes = Buffer.from(json);
    const out = new Uint8Array(8 + bytes.length + 4);
    new DataView(out.buffer).setBigUint64(0, BigInt(bytes.length), true);
    out.set(bytes, 8);
    return out;
  };
  const fails = (bytes: Uint8Array, pattern: RegExp) => assert.throws(() => parseSafetensors(bytes, 'x.safetensors'), (error: unknown) => error instanceof ModelProviderError && error.code === 'model_file_invalid' && pattern.test(error.message));
  fails(header('[1]'), /header is not a JSON object/);
  fails(header('{"t":{"dtype":"F8","shape":[1],"data_offsets":[0,1]}}'), /unknown dtype "F8"/);
  fails(header('{"t":{"dtype":"F32","shape":[1],"data_offsets":[2,1]}}'), /byte range \[2, 1\)/);
  fails(header('{"t":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}}'), /bad shape/);
  fails(header('{"t":{"dtype":"F32","shape":[1]}}'), /bad data_offsets/);
  assert.throws(() => embeddingMatrix(parseSafetensors(header('{"t":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}')).tensors.get('t')!, 'x'), /must be 2-D/);
});
