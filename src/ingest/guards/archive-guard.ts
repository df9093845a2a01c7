// Decompression guard for ZIP containers: screens the entry table before anything is inflated, then meters real inflation.
// It never trusts declared sizes alone and never inflates an entry past a limit; every refusal is an `archive_rejected` IngestError.

import { archiveRejected } from '../errors.ts';

/** Entries accepted in one archive (a large deck has a few thousand parts). */
export const MAX_ARCHIVE_ENTRIES = 10_000;
/** Sum of declared uncompressed sizes over all entries, read or not. */
export const MAX_ARCHIVE_DECLARED_BYTES = 1024 * 1024 * 1024;
/** Bytes actually inflated over all parts read from one archive. */
export const MAX_ARCHIVE_INFLATED_BYTES = 256 * 1024 * 1024;
/** Bytes actually inflated from one part (poi_bug65649.docx's 12.6 MB document.xml passes with room to spare). */
export const MAX_PART_INFLATED_BYTES = 128 * 1024 * 1024;
/**
 * Inflated/compressed ratio allowed for a part we read. Deflate tops out near 1032:1 (bombs sit there); real XML parts
 * run 4-40:1 and the corpus's worst media entry is 130:1.
 */
export const MAX_ENTRY_COMPRESSION_RATIO = 200;
/** Parts smaller than this are exempt from the ratio check: a tiny part cannot hurt, whatever its ratio. */
export const COMPRESSION_RATIO_GRACE_BYTES = 1024 * 1024;
/** Archives inside an archive are never expanded (documents' embedded packages are skipped, not opened). */
export const MAX_NESTED_ARCHIVE_DEPTH = 0;

/** Fixed part of a ZIP local file header, before the name and extra field. */
const LOCAL_HEADER_FIXED_BYTES = 30;
const ARCHIVE_NAME = /\.(zip|jar|7z|rar|gz|tgz|tar|bz2|xz|docx|docm|xlsx|xlsm|pptx|pptm|odt|ods|odp|epub)$/iu;

export interface ArchiveEntryInfo {
  fileName: string;
  fileNameLength: number;
  compressedSize: number;
  uncompressedSize: number;
  relativeOffsetOfLocalHeader: number;
}

export function checkEntryCount(count: number): void {
  if (count > MAX_ARCHIVE_ENTRIES) throw archiveRejected(`more than ${MAX_ARCHIVE_ENTRIES} entries`);
}

/**
 * Entries whose local records overlap share compressed data: the construction of non-recursive zip bombs
 * (zbsm.zip), where one kernel is referenced by hundreds of entries. Legitimate archives never overlap.
 */
export function checkNoOverlap(entries: readonly ArchiveEntryInfo[]): void {
  const sorted = [...entries].sort((a, b) => a.relativeOffsetOfLocalHeader - b.relativeOffsetOfLocalHeader);
  for (let i = 1; i < sorted.length; i++) {
    const previous = sorted[i - 1]!;
    const end = previous.relativeOffsetOfLocalHeader + LOCAL_HEADER_FIXED_BYTES + previous.fileNameLength + previous.compressedSize;
    if (sorted[i]!.relativeOffsetOfLocalHeader < end) throw archiveRejected('entries overlap each other (a zip-bomb construction)');
  }
}

export function checkDeclaredTotal(entries: readonly ArchiveEntryInfo[]): void {
  let total = 0;
  for (const entry of entries) total += entry.uncompressedSize;
  if (total > MAX_ARCHIVE_DECLARED_BYTES) {
    throw archiveRejected(`declared uncompressed size ${total} bytes exceeds ${MAX_ARCHIVE_DECLARED_BYTES} bytes`);
  }
}

/** Screens the whole entry table; cheap, and runs before any byte is inflated. */
export function checkEntryTable(entries: readonly ArchiveEntryInfo[]): void {
  checkEntryCount(entries.length);
  checkNoOverlap(entries);
  checkDeclaredTotal(entries);
}

export function checkNotNested(entries: readonly ArchiveEntryInfo[]): void {
  const nested = entries.find((entry) => ARCHIVE_NAME.test(entry.fileName));
  if (nested && MAX_NESTED_ARCHIVE_DEPTH === 0) {
    throw archiveRejected(`it contains another archive (${nested.fileName.split('/').pop()}); nested archives are never expanded`);
  }
}

function ratioExceeded(inflated: number, compressed: number): boolean {
  return inflated > COMPRESSION_RATIO_GRACE_BYTES && inflated > Math.max(compressed, 1) * MAX_ENTRY_COMPRESSION_RATIO;
}

/** Checks an entry's declared sizes before it is read. */
export function checkDeclaredEntry(entry: ArchiveEntryInfo): void {
  if (entry.uncompressedSize > MAX_PART_INFLATED_BYTES) {
    throw archiveRejected(`part ${entry.fileName} declares ${entry.uncompressedSize} bytes, over the ${MAX_PART_INFLATED_BYTES}-byte part limit`);
  }
  if (ratioExceeded(entry.uncompressedSize, entry.compressedSize)) {
    throw archiveRejected(`part ${entry.fileName} declares a compression ratio over ${MAX_ENTRY_COMPRESSION_RATIO}:1`);
  }
}

/** Counts bytes really inflated, per part and per archive, and refuses as soon as a limit is crossed. */
export interface InflationMeter {
  totalInflated: number;
}

export function createInflationMeter(): InflationMeter {
  return { totalInflated: 0 };
}

/** Records `bytes` more inflated from `entry` (which has produced `partInflated` bytes including them). */
export function meterInflation(meter: InflationMeter, entry: ArchiveEntryInfo, partInflated: number, bytes: number): void {
  meter.totalInflated += bytes;
  if (meter.totalInflated > MAX_ARCHIVE_INFLATED_BYTES) {
    throw archiveRejected(`more than ${MAX_ARCHIVE_INFLATED_BYTES} bytes inflated in total`);
  }
  if (partInflated > MAX_PART_INFLATED_BYTES) {
    throw archiveRejected(`part ${entry.fileName} inflates past the ${MAX_PART_INFLATED_BYTES}-byte part limit`);
  }
  if (ratioExceeded(partInflated, entry.compressedSize)) {
    throw archiveRejected(`part ${entry.fileName} inflates at a ratio over ${MAX_ENTRY_COMPRESSION_RATIO}:1`);
  }
}
