// The persisted binary form of a generation's lane data (generation-lanes.ts): magic, format, a small JSON header,
// the terms and words as newline-joined UTF-8, then the typed arrays, each 8-byte aligned; and the digest a
// manifest records of it. Nothing here reads chunk text back: decoding gives what the lanes hold, no more.

import { createHash, webcrypto } from 'node:crypto';
import type { TermFrequencies } from './bm25-segment.ts';
import type { GenerationLanes } from './generation-lanes.ts';
import { derivedTermsOf } from '../text/vocabulary.ts';
import { JoinedStrings, listSize, listStrings, splitBytes } from '../text/string-table.ts';
import type { StringList } from '../text/string-table.ts';

/**
 * The layout version written in every blob. A blob of an unknown version fails its evidence check (it cannot be
 * read), so a layout change must keep decoding the old versions or re-derive such blobs from their chunks.
 * Format 2 adds the query-side terms and Malay roots of the words (format 1 blobs are read, and those derived
 * again from the words).
 */
export const LANES_FORMAT = 2;
const READABLE_FORMATS = new Set([1, 2]);
const MAGIC = 0x4c534448; // "HDSL" little-endian
type ArrayName = 'textLengths' | 'titleLengths' | 'postingStarts' | 'postingDocs' | 'postingTextTf' | 'postingTitleTf' | 'codes' | 'wordCounts' | 'chunkIndexes' | 'pages' | 'textHashes';
const ARRAY_TYPES = {
  textLengths: Uint32Array,
  titleLengths: Uint32Array,
  postingStarts: Uint32Array,
  postingDocs: Uint32Array,
  postingTextTf: Uint16Array,
  postingTitleTf: Uint16Array,
  codes: Int8Array,
  wordCounts: Uint32Array,
  chunkIndexes: Int32Array,
  pages: Int32Array,
  textHashes: Uint32Array,
} as const;
const ARRAY_ORDER = Object.keys(ARRAY_TYPES) as ArrayName[];

interface Header {
  format: number;
  chunkCount: number;
  dimensions: number;
  /** UTF-8 byte lengths of the newline-joined terms and words that follow the header. */
  termBytes: number;
  wordBytes: number;
  /** Format 2: the same for the words' derived terms and Malay roots, which follow the words. */
  derivedTermBytes?: number;
  malayRootBytes?: number;
  labelRows: number[];
  labels: string[];
  lengths: number[];
}

/** Lane data stores term frequencies in 16 bits (a merged segment may hold them in 8). */
function sixteenBit(frequencies: TermFrequencies): Uint16Array {
  return frequencies instanceof Uint16Array ? frequencies : Uint16Array.from(frequencies);
}

function arraysOf(lanes: GenerationLanes): Record<ArrayName, ArrayBufferView & { length: number }> {
  const { bm25 } = lanes;
  return {
    textLengths: bm25.textLengths,
    titleLengths: bm25.titleLengths,
    postingStarts: bm25.postingStarts,
    postingDocs: bm25.postingDocs,
    postingTextTf: sixteenBit(bm25.postingTextTf),
    postingTitleTf: sixteenBit(bm25.postingTitleTf),
    codes: lanes.codes,
    wordCounts: lanes.wordCounts,
    chunkIndexes: lanes.chunkIndexes,
    pages: lanes.pages,
    textHashes: lanes.textHashes,
  };
}

const align8 = (n: number) => (n + 7) & ~7;
/** Terms and words never hold white space (the analyzers split on it), so a newline separates them. */
const SEPARATOR = '\n';
const SEPARATOR_BYTE = 0x0a;

/**
 * The persisted form: magic, format, header length, a small JSON header, the terms and the words as
 * newline-joined UTF-8, then the typed arrays, each 8-byte aligned.
 */
export function encodeLanes(lanes: GenerationLanes): Uint8Array {
  const arrays = arraysOf(lanes);
  const terms = Buffer.from(listStrings(lanes.bm25.terms).join(SEPARATOR), 'utf8');
  const words = Buffer.from(listStrings(lanes.words).join(SEPARATOR), 'utf8');
  const derived = lanes.derived ?? derivedTermsOf(listStrings(lanes.words));
  const derivedTerms = Buffer.from(listStrings(derived.terms).join(SEPARATOR), 'utf8');
  const malayRoots = Buffer.from(listStrings(derived.malayRoots).join(SEPARATOR), 'utf8');
  const header: Header = {
    format: LANES_FORMAT,
    chunkCount: lanes.chunkCount,
    dimensions: lanes.dimensions,
    termBytes: terms.length,
    wordBytes: words.length,
    derivedTermBytes: derivedTerms.length,
    malayRootBytes: malayRoots.length,
    labelRows: lanes.labelRows,
    labels: lanes.labels,
    lengths: ARRAY_ORDER.map((name) => arrays[name].length),
  };
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  const strings = [terms, words, derivedTerms, malayRoots];
  let size = 12 + headerBytes.length + strings.reduce((sum, part) => sum + part.length, 0);
  for (const name of ARRAY_ORDER) size = align8(size) + arrays[name].byteLength;
  const out = new Uint8Array(align8(size));
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, LANES_FORMAT, true);
  view.setUint32(8, headerBytes.length, true);
  let offset = 12;
  for (const part of [headerBytes, ...strings]) {
    out.set(part, offset);
    offset += part.length;
  }
  for (const name of ARRAY_ORDER) {
    const array = arrays[name];
    offset = align8(offset);
    out.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), offset);
    offset += array.byteLength;
  }
  return out;
}

export class LanesFormatError extends Error {}

function readHeader(bytes: Uint8Array): { header: Header; offset: number } {
  if (bytes.byteLength < 12) throw new LanesFormatError('lane data too short');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const format = view.getUint32(4, true);
  if (view.getUint32(0, true) !== MAGIC || !READABLE_FORMATS.has(format)) throw new LanesFormatError('unknown lane data format');
  const headerLength = view.getUint32(8, true);
  if (12 + headerLength > bytes.byteLength) throw new LanesFormatError('lane data header overruns');
  let header: Header;
  try {
    header = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset + 12, headerLength).toString('utf8')) as Header;
  } catch {
    throw new LanesFormatError('lane data header is not JSON');
  }
  if (!Number.isInteger(header.chunkCount) || !Number.isInteger(header.termBytes) || !Number.isInteger(header.wordBytes) || !Array.isArray(header.lengths)) {
    throw new LanesFormatError('lane data header is incomplete');
  }
  if (format >= 2 && (!Number.isInteger(header.derivedTermBytes) || !Number.isInteger(header.malayRootBytes))) throw new LanesFormatError('lane data header is incomplete');
  if (header.format !== format) throw new LanesFormatError('lane data header disagrees with its format');
  return { header, offset: 12 + headerLength };
}

/** The chunk count lane data declares, reading its header only (evidence checks its digest, not its content). */
export function lanesChunkCount(bytes: Uint8Array): number {
  return readHeader(bytes).header.chunkCount;
}

/** A newline-joined section of `length` bytes at `offset`, checked to lie within the blob. */
function sectionOf(bytes: Uint8Array, offset: number, length: number): Uint8Array {
  if (length < 0 || offset + length > bytes.byteLength) throw new LanesFormatError('lane data strings overrun');
  return bytes.subarray(offset, offset + length);
}

/** A newline-joined section as strings by id, left as UTF-8 (merging interns them from their bytes). */
function splitSection(bytes: Uint8Array, offset: number, length: number): StringList {
  return splitBytes(sectionOf(bytes, offset, length), SEPARATOR_BYTE);
}

/** splitSection, split only when read: a load of many generations derives terms at the end instead (serving/segment-assembler.ts). */
function joinedSection(bytes: Uint8Array, offset: number, length: number): StringList {
  return new JoinedStrings(sectionOf(bytes, offset, length), SEPARATOR_BYTE);
}

/**
 * Decodes persisted lane data. Arrays are views of the blob's buffer where it is aligned for them, copies
 * otherwise. Throws LanesFormatError on a malformed blob.
 */
export function decodeLanes(bytes: Uint8Array): GenerationLanes {
  const { header, offset: stringsAt } = readHeader(bytes);
  const terms = splitSection(bytes, stringsAt, header.termBytes);
  const words = splitSection(bytes, stringsAt + header.termBytes, header.wordBytes);
  let offset = stringsAt + header.termBytes + header.wordBytes;
  let derived: GenerationLanes['derived'] = null;
  if (header.format >= 2) {
    const terms = joinedSection(bytes, offset, header.derivedTermBytes!);
    const malayRoots = joinedSection(bytes, offset + header.derivedTermBytes!, header.malayRootBytes!);
    derived = { terms, malayRoots };
    offset += header.derivedTermBytes! + header.malayRootBytes!;
  }
  const arrays = {} as Record<ArrayName, ArrayBufferView>;
  ARRAY_ORDER.forEach((name, i) => {
    const Type = ARRAY_TYPES[name];
    const length = header.lengths[i];
    offset = align8(offset);
    const byteLength = Number(length) * Type.BYTES_PER_ELEMENT;
    if (!Number.isInteger(length) || length < 0 || offset + byteLength > bytes.byteLength) throw new LanesFormatError(`lane data array ${name} overruns`);
    const at = bytes.byteOffset + offset;
    arrays[name] = at % Type.BYTES_PER_ELEMENT === 0 ? new Type(bytes.buffer as ArrayBuffer, at, length) : new Type(bytes.slice(offset, offset + byteLength).buffer);
    offset += byteLength;
  });
  const a = arrays as unknown as { [K in ArrayName]: InstanceType<(typeof ARRAY_TYPES)[K]> };
  const n = header.chunkCount;
  if (a.textLengths.length !== n || a.chunkIndexes.length !== n || a.codes.length !== n * header.dimensions || a.postingStarts.length !== listSize(terms) + 1 || a.wordCounts.length !== listSize(words)) {
    throw new LanesFormatError('lane data arrays disagree with the header');
  }
  let totalText = 0;
  let totalTitle = 0;
  const docIds = new Int32Array(n);
  for (let d = 0; d < n; d++) {
    totalText += a.textLengths[d];
    totalTitle += a.titleLengths[d];
    docIds[d] = d;
  }
  return {
    chunkCount: n,
    dimensions: header.dimensions,
    bm25: {
      docCount: n,
      docIds,
      textLengths: a.textLengths,
      titleLengths: a.titleLengths,
      totalTextLength: totalText,
      totalTitleLength: totalTitle,
      terms,
      postingStarts: a.postingStarts,
      postingDocs: a.postingDocs,
      postingTextTf: a.postingTextTf,
      postingTitleTf: a.postingTitleTf,
    },
    codes: a.codes,
    words,
    wordCounts: a.wordCounts,
    derived,
    chunkIndexes: a.chunkIndexes,
    pages: a.pages,
    labelRows: header.labelRows,
    labels: header.labels,
    textHashes: a.textHashes,
  };
}

/** The digest a manifest records for persisted lane data (verified when an api process loads it). */
export function lanesDigest(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** lanesDigest, computed on libuv's thread pool instead of the calling thread. */
export async function lanesDigestOffThread(bytes: Uint8Array): Promise<string> {
  return Buffer.from(await webcrypto.subtle.digest('SHA-256', bytes)).toString('hex');
}
