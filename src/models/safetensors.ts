// Reads the safetensors container: an 8-byte little-endian header length, a JSON header naming each
// tensor's dtype, shape and byte range, then the raw data. It validates and slices; it never copies weights.

import { ModelProviderError } from './model-error.ts';

/** The format's own cap on the JSON header; anything larger is a corrupt or hostile file. */
export const SAFETENSORS_MAX_HEADER_BYTES = 100_000_000;
const HEADER_LENGTH_BYTES = 8;

export const SAFETENSORS_DTYPE_BYTES: Readonly<Record<string, number>> = {
  F64: 8, F32: 4, F16: 2, BF16: 2, I64: 8, I32: 4, I16: 2, I8: 1, U8: 1, BOOL: 1,
};

export interface SafetensorsTensor {
  name: string;
  dtype: string;
  shape: number[];
  /** The tensor's raw little-endian bytes (a view into the file buffer). */
  bytes: Uint8Array;
}

export interface SafetensorsFile {
  tensors: Map<string, SafetensorsTensor>;
  metadata: Record<string, string>;
}

function invalid(source: string, reason: string): ModelProviderError {
  return new ModelProviderError('model_file_invalid', `${source}: not a valid safetensors file (${reason})`);
}

function readHeader(buffer: Uint8Array, source: string): { header: Record<string, unknown>; dataStart: number } {
  if (buffer.byteLength < HEADER_LENGTH_BYTES) throw invalid(source, `only ${buffer.byteLength} bytes`);
  const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  const headerLength = Number(view.getBigUint64(0, true));
  if (headerLength > SAFETENSORS_MAX_HEADER_BYTES) throw invalid(source, `header length ${headerLength} exceeds ${SAFETENSORS_MAX_HEADER_BYTES}`);
  if (HEADER_LENGTH_BYTES + headerLength > buffer.byteLength) throw invalid(source, `header length ${headerLength} runs past the end of the file`);
  const text = new TextDecoder('utf-8', { fatal: true }).decode(buffer.subarray(HEADER_LENGTH_BYTES, HEADER_LENGTH_BYTES + headerLength));
  let header: unknown;
  try {
    header = JSON.parse(text);
  } catch (error) {
    throw invalid(source, `header is not JSON: ${(error as Error).message}`);
  }
  if (header === null || typeof header !== 'object' || Array.isArray(header)) throw invalid(source, 'header is not a JSON object');
  return { header: header as Record<string, unknown>, dataStart: HEADER_LENGTH_BYTES + headerLength };
}

function elementCount(shape: number[]): number {
  return shape.reduce((product, size) => product * size, 1);
}

function parseEntry(name: string, entry: unknown, data: Uint8Array, source: string): SafetensorsTensor {
  const { dtype, shape, data_offsets: offsets } = (entry ?? {}) as { dtype?: unknown; shape?: unknown; data_offsets?: unknown };
  if (typeof dtype !== 'string' || !(dtype in SAFETENSORS_DTYPE_BYTES)) throw invalid(source, `tensor "${name}" has unknown dtype ${JSON.stringify(dtype)}`);
  if (!Array.isArray(shape) || !shape.every((size) => Number.isSafeInteger(size) && size >= 0)) throw invalid(source, `tensor "${name}" has a bad shape`);
  if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every((o) => Number.isSafeInteger(o) && o >= 0)) throw invalid(source, `tensor "${name}" has bad data_offsets`);
  const [begin, end] = offsets as [number, number];
  if (begin > end || end > data.byteLength) throw invalid(source, `tensor "${name}" byte range [${begin}, ${end}) lies outside the ${data.byteLength}-byte data section`);
  const expected = elementCount(shape) * SAFETENSORS_DTYPE_BYTES[dtype];
  if (end - begin !== expected) throw invalid(source, `tensor "${name}" has ${end - begin} bytes, its dtype and shape need ${expected}`);
  return { name, dtype, shape: shape as number[], bytes: data.subarray(begin, end) };
}

/** Parses a whole safetensors file held in memory; `source` names it in error messages. */
export function parseSafetensors(buffer: Uint8Array, source = 'safetensors'): SafetensorsFile {
  const { header, dataStart } = readHeader(buffer, source);
  const data = buffer.subarray(dataStart);
  const tensors = new Map<string, SafetensorsTensor>();
  let metadata: Record<string, string> = {};
  for (const [name, entry] of Object.entries(header)) {
    if (name === '__metadata__') metadata = (entry ?? {}) as Record<string, string>;
    else tensors.set(name, parseEntry(name, entry, data, source));
  }
  return { tensors, metadata };
}
