// Test helper: writes small model2vec-layout model directories (seeded random vectors, a WordPiece vocabulary)
// and raw safetensors files, so loading code is tested on files generated here, never downloaded.

import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { seededRandom } from '../helpers/seeded-random.ts';

export const TINY_WORDPIECE_VOCAB = [
  '[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]', 'the', 'cat', '##s', 'sat', 'on', 'mat', 'play', '##ing', '##ed',
  'un', '##believ', '##able', 'cafe', ',', '.', '!', 'kerja', '##an', 'pe', '##ker', '##ja', '中', '文',
];

/** Values k/256 with |k| < 256: exactly representable in float16, float32 and float64. */
export function seededMatrix(rows: number, cols: number, seed: number): number[][] {
  const random = seededRandom(seed);
  return Array.from({ length: rows }, () => Array.from({ length: cols }, () => Math.round((random() * 2 - 1) * 255) / 256));
}

/** float16 bits for values exactly representable in float16 (the test matrices only hold such values). */
export function float16Bits(value: number): number {
  if (value === 0) return Object.is(value, -0) ? 0x8000 : 0;
  const sign = value < 0 ? 0x8000 : 0;
  const magnitude = Math.abs(value);
  const exponent = Math.floor(Math.log2(magnitude));
  if (exponent < -14) return sign | Math.round(magnitude / 2 ** -24);
  const mantissa = Math.round((magnitude / 2 ** exponent - 1) * 1024);
  return sign | ((exponent + 15) << 10) | mantissa;
}

export interface RawTensor { name: string; dtype: string; shape: number[]; bytes: Uint8Array }

export function tensorBytes(dtype: 'F32' | 'F16' | 'I32' | 'I64', values: number[]): Uint8Array {
  const width = { F32: 4, F16: 2, I32: 4, I64: 8 }[dtype];
  const bytes = new Uint8Array(values.length * width);
  const view = new DataView(bytes.buffer);
  values.forEach((value, i) => {
    if (dtype === 'F32') view.setFloat32(i * width, value, true);
    else if (dtype === 'F16') view.setUint16(i * width, float16Bits(value), true);
    else if (dtype === 'I32') view.setInt32(i * width, value, true);
    else view.setBigInt64(i * width, BigInt(value), true);
  });
  return bytes;
}

/** A safetensors file: 8-byte header length, JSON header padded to 8 bytes, then the tensors back to back. */
export function safetensorsFile(tensors: RawTensor[], metadata?: Record<string, string>): Uint8Array {
  const header: Record<string, unknown> = metadata ? { __metadata__: metadata } : {};
  let offset = 0;
  for (const tensor of tensors) {
    header[tensor.name] = { dtype: tensor.dtype, shape: tensor.shape, data_offsets: [offset, offset + tensor.bytes.byteLength] };
    offset += tensor.bytes.byteLength;
  }
  let json = JSON.stringify(header);
  while ((8 + Buffer.byteLength(json)) % 8 !== 0) json += ' ';
  const headerBytes = Buffer.from(json, 'utf8');
  const out = new Uint8Array(8 + headerBytes.byteLength + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(headerBytes.byteLength), true);
  out.set(headerBytes, 8);
  let at = 8 + headerBytes.byteLength;
  for (const tensor of tensors) {
    out.set(tensor.bytes, at);
    at += tensor.bytes.byteLength;
  }
  return out;
}

export function wordPieceTokenizerJson(vocab: string[] = TINY_WORDPIECE_VOCAB, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    version: '1.0',
    added_tokens: [{ id: 0, content: '[PAD]', special: true }, { id: 1, content: '[UNK]', special: true }],
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 20, vocab: Object.fromEntries(vocab.map((token, id) => [token, id])) },
    ...extra,
  };
}

export interface TinyModel {
  dir: string;
  matrix: number[][];
  vocab: string[];
}

export interface TinyModelOptions {
  dtype?: 'F32' | 'F16';
  dim?: number;
  seed?: number;
  vocab?: string[];
  /** Extra tensors (weights, mapping) written next to "embeddings". */
  extraTensors?: RawTensor[];
  /** Rows of the embedding matrix (defaults to the vocabulary size). */
  rows?: number;
  config?: Record<string, unknown> | null;
  tokenizer?: Record<string, unknown>;
}

export async function writeTinyModel(dir: string, options: TinyModelOptions = {}): Promise<TinyModel> {
  const vocab = options.vocab ?? TINY_WORDPIECE_VOCAB;
  const dim = options.dim ?? 8;
  const rows = options.rows ?? vocab.length;
  const matrix = seededMatrix(rows, dim, options.seed ?? 42);
  const dtype = options.dtype ?? 'F32';
  const embeddings: RawTensor = { name: 'embeddings', dtype, shape: [rows, dim], bytes: tensorBytes(dtype, matrix.flat()) };
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'model.safetensors'), safetensorsFile([embeddings, ...(options.extraTensors ?? [])]));
  await writeFile(join(dir, 'tokenizer.json'), JSON.stringify(options.tokenizer ?? wordPieceTokenizerJson(vocab)));
  if (options.config !== null) await writeFile(join(dir, 'config.json'), JSON.stringify(options.config ?? { normalize: true, hidden_dim: dim }));
  return { dir, matrix, vocab };
}

/** The reference result computed independently in float64: normalize(mean(weight_i * row(map_i))). */
export function expectedEmbedding(matrix: number[][], ids: number[], weights?: number[], mapping?: number[]): number[] {
  const dim = matrix[0].length;
  const sum = new Array<number>(dim).fill(0);
  for (const id of ids) {
    const row = matrix[mapping ? mapping[id] : id];
    for (let d = 0; d < dim; d++) sum[d] += (weights ? weights[id] : 1) * row[d];
  }
  const mean = sum.map((x) => x / ids.length);
  const norm = Math.sqrt(mean.reduce((s, x) => s + x * x, 0));
  return mean.map((x) => x / norm);
}
