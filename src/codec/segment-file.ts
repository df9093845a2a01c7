// The on-disk form of a segment index (segment-index.ts), as the api's segment cache (serving/caches/segment-cache.ts)
// keeps it: what a load would otherwise rebuild by merging the lane data of every generation, written once and
// read back whole. A header names the generations the index
// holds (with the digest of each one's lane data, as its manifest records it) and describes the index as JSON
// whose typed arrays are replaced by numbered sections; the sections follow, each 8-byte aligned. The body's
// digest covers the description and every section, and is checked before anything is decoded.
//
// Plain data in, plain data out: no file I/O here (the cache reads and writes, the segment thread decodes).

import { createHash } from 'node:crypto';
import type { SegmentIndex } from './segment-index.ts';
import { vocabularyOf } from '../text/vocabulary.ts';
import type { StringTable } from '../text/string-table.ts';

const MAGIC = 0x48445347; // "HDSG"
/** Bumped whenever the layout or what an index holds changes: older files are then ignored (and pruned). */
export const SEGMENT_FILE_FORMAT = 1;
/** magic, format, header length (u32 each). */
const PREFIX_BYTES = 12;

/** One generation of a cached segment: its number, its lane data's digest (from its manifest) and its rows. */
export interface CachedGeneration {
  generation: number;
  lanesDigest: string;
  rows: number;
}

/** What the header says: enough to choose a file without reading its body. */
export interface SegmentFileHeader {
  format: number;
  dimensions: number;
  generations: CachedGeneration[];
  rows: number;
  /** The index as JSON with each typed array as { $section: i }. */
  description: string;
  sections: { type: SectionType; offset: number; length: number }[];
  /** sha256 over the description and each section's own sha256, in order. */
  digest: string;
}

const SECTION_TYPES = { Int8Array, Uint8Array, Uint16Array, Int32Array, Uint32Array } as const;
type SectionType = keyof typeof SECTION_TYPES;
type Section = InstanceType<(typeof SECTION_TYPES)[SectionType]>;

export class SegmentFileError extends Error {}

/**
 * What a file holds of an index: everything but the row ordinals (a load gives the rows new ones) and the
 * vocabulary's derived lookups (rebuilt from its words and counts by vocabularyOf).
 */
function storedPart(index: SegmentIndex): unknown {
  // Named one by one: a Segment passed as its index carries its versions and lookups too, which stay out.
  const { bm25, vocabulary, codes, generationRows, wordStarts, wordIds, wordCounts, chunkIndexes, pages, textHashes, labelRows, labels } = index;
  const { docIds: _ordinals, ...postings } = bm25;
  return {
    bm25: postings,
    codes,
    generationRows,
    wordStarts,
    wordIds,
    wordCounts,
    chunkIndexes,
    pages,
    textHashes,
    labelRows,
    labels,
    words: vocabulary.words,
    counts: vocabulary.counts,
    terms: vocabulary.terms,
    malayRoots: vocabulary.malayRoots,
  };
}

function sectionType(array: ArrayBufferView): SectionType {
  for (const name of Object.keys(SECTION_TYPES) as SectionType[]) if (array instanceof SECTION_TYPES[name]) return name;
  throw new SegmentFileError(`a segment index holds a ${array.constructor.name}, which a segment file does not store`);
}

const align8 = (n: number) => (n + 7) & ~7;

function bodyDigest(description: string, sectionDigests: readonly string[]): string {
  const hash = createHash('sha256').update(description);
  for (const digest of sectionDigests) hash.update(digest);
  return hash.digest('hex');
}

export function sectionDigest(section: ArrayBufferView): string {
  return createHash('sha256').update(new Uint8Array(section.buffer, section.byteOffset, section.byteLength)).digest('hex');
}

/** An index laid out for writing: the header and the sections, in file order (written as they are, not copied). */
export interface SegmentFileParts {
  header: SegmentFileHeader;
  sections: Section[];
}

/**
 * Lays out an index for a file. `digestOf` hashes one section (serving/caches/segment-cache.ts passes one that runs
 * off the event loop); the file's parts reference the index's own arrays.
 */
export async function segmentFileParts(index: SegmentIndex, dimensions: number, generations: CachedGeneration[], digestOf: (section: Section) => Promise<string>): Promise<SegmentFileParts> {
  const sections: Section[] = [];
  const description = JSON.stringify(storedPart(index), (_key, value: unknown) => {
    if (!ArrayBuffer.isView(value)) return value;
    sections.push(value as Section);
    return { $section: sections.length - 1 };
  });
  const layout: SegmentFileHeader['sections'] = [];
  let offset = 0;
  for (const section of sections) {
    offset = align8(offset);
    layout.push({ type: sectionType(section), offset, length: section.length });
    offset += section.byteLength;
  }
  const digests = await Promise.all(sections.map(digestOf));
  const rows = generations.reduce((sum, generation) => sum + generation.rows, 0);
  return { header: { format: SEGMENT_FILE_FORMAT, dimensions, generations, rows, description, sections: layout, digest: bodyDigest(description, digests) }, sections };
}

/** The file's bytes before its first section: prefix, header, padding to 8. */
export function headerBytes(header: SegmentFileHeader): Uint8Array {
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const out = new Uint8Array(align8(PREFIX_BYTES + json.length));
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, SEGMENT_FILE_FORMAT, true);
  view.setUint32(8, json.length, true);
  out.set(json, PREFIX_BYTES);
  return out;
}

/** Padding to write before each section (so that each starts 8-byte aligned after the header). */
export function sectionPadding(parts: SegmentFileParts): number[] {
  let at = 0;
  return parts.header.sections.map((section, i) => {
    const padding = section.offset - at;
    at = section.offset + parts.sections[i].byteLength;
    return padding;
  });
}

/** How many bytes the prefix says the header takes (given the file's first PREFIX_BYTES bytes), or null when they are not a segment file's of this format. */
export function headerLength(prefix: Uint8Array): number | null {
  if (prefix.byteLength < PREFIX_BYTES) return null;
  const view = new DataView(prefix.buffer, prefix.byteOffset, prefix.byteLength);
  if (view.getUint32(0, true) !== MAGIC || view.getUint32(4, true) !== SEGMENT_FILE_FORMAT) return null;
  return view.getUint32(8, true);
}

export const SEGMENT_FILE_PREFIX_BYTES = PREFIX_BYTES;

/** The header of a file's first bytes (prefix and header at least); throws SegmentFileError when malformed. */
export function readHeader(bytes: Uint8Array): { header: SegmentFileHeader; bodyOffset: number } {
  const length = headerLength(bytes);
  if (length === null || PREFIX_BYTES + length > bytes.byteLength) throw new SegmentFileError('not a segment file of this format');
  let header: SegmentFileHeader;
  try {
    header = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset + PREFIX_BYTES, length).toString('utf8')) as SegmentFileHeader;
  } catch {
    throw new SegmentFileError('segment file header is not JSON');
  }
  const valid =
    header.format === SEGMENT_FILE_FORMAT &&
    Number.isInteger(header.dimensions) &&
    Array.isArray(header.generations) &&
    header.generations.every((g) => Number.isInteger(g?.generation) && typeof g.lanesDigest === 'string' && Number.isInteger(g.rows) && g.rows >= 0) &&
    typeof header.description === 'string' &&
    Array.isArray(header.sections) &&
    header.sections.every((s) => Object.hasOwn(SECTION_TYPES, s?.type) && Number.isInteger(s.offset) && Number.isInteger(s.length) && s.offset >= 0 && s.length >= 0) &&
    typeof header.digest === 'string';
  if (!valid) throw new SegmentFileError('segment file header is incomplete');
  return { header, bodyOffset: align8(PREFIX_BYTES + length) };
}

/**
 * The index of a whole file, its rows numbered from `firstOrdinal` on, in buffers of its own (the file's may be
 * let go). Throws SegmentFileError when the file is damaged (its digest, its layout or the index it describes).
 */
export function decodeSegmentFile(file: Uint8Array, firstOrdinal: number): { header: SegmentFileHeader; index: SegmentIndex } {
  const { header, bodyOffset } = readHeader(file);
  const sections = header.sections.map(({ type, offset, length }) => {
    const Type = SECTION_TYPES[type];
    const at = file.byteOffset + bodyOffset + offset;
    if (bodyOffset + offset + length * Type.BYTES_PER_ELEMENT > file.byteLength) throw new SegmentFileError('segment file is truncated');
    return at % Type.BYTES_PER_ELEMENT === 0 ? new Type(file.buffer as ArrayBuffer, at, length) : new Type(file.slice(bodyOffset + offset, bodyOffset + offset + length * Type.BYTES_PER_ELEMENT).buffer);
  });
  if (bodyDigest(header.description, sections.map(sectionDigest)) !== header.digest) throw new SegmentFileError('segment file does not match its digest');
  // Copied out of the file's buffer, which is let go: the codes into a buffer of their own (the native scan
  // needs one), every other section into one buffer together.
  const codesSection = Number(/"codes":\{"\$section":(\d+)\}/.exec(header.description)?.[1] ?? -1);
  let poolBytes = 0;
  sections.forEach((section, i) => {
    if (i !== codesSection) poolBytes = align8(poolBytes) + section.byteLength;
  });
  const pool = new ArrayBuffer(poolBytes);
  let poolUsed = 0;
  const copyOf = (section: Section, own: boolean): Section => {
    if (own) return section.slice();
    poolUsed = align8(poolUsed);
    const Type = section.constructor as new (buffer: ArrayBuffer, offset: number, length: number) => Section;
    const copy = new Type(pool, poolUsed, section.length);
    copy.set(section as never);
    poolUsed += section.byteLength;
    return copy;
  };
  const stored = JSON.parse(header.description, (key, value: unknown) => {
    if (value && typeof value === 'object' && '$section' in value) {
      const section = sections[(value as { $section: number }).$section];
      if (!section) throw new SegmentFileError('segment file names a section it does not hold');
      return copyOf(section, key === 'codes' && (value as { $section: number }).$section === codesSection);
    }
    return value;
  }) as ReturnType<typeof storedPart> & Omit<SegmentIndex, 'bm25' | 'vocabulary'> & {
    bm25: Omit<SegmentIndex['bm25'], 'docIds'>;
    words: StringTable;
    counts: Uint32Array;
    terms: StringTable;
    malayRoots: StringTable;
  };
  const { bm25, words, counts, terms, malayRoots, codes, ...rest } = stored;
  const rows = header.rows;
  const generationRows = rest.generationRows;
  const agrees =
    bm25.docCount === rows &&
    bm25.textLengths.length === rows &&
    rest.chunkIndexes.length === rows &&
    codes.length === rows * header.dimensions &&
    generationRows.length === header.generations.length + 1 &&
    generationRows[0] === 0 &&
    header.generations.reduce((sum, generation) => sum + generation.rows, 0) === rows &&
    header.generations.every((generation, g) => generationRows[g + 1] - generationRows[g] === generation.rows);
  if (!agrees) throw new SegmentFileError('segment file index disagrees with its header');
  const docIds = new Int32Array(rows);
  for (let row = 0; row < rows; row++) docIds[row] = firstOrdinal + row;
  return {
    header,
    index: {
      ...rest,
      bm25: Object.freeze({ ...bm25, docIds }),
      codes,
      vocabulary: vocabularyOf(words, counts, { terms, malayRoots }),
    },
  };
}
