// Decides the format of an upload from its bytes (magic numbers), using the filename only to refine text kinds.
// It never trusts the extension over the content, and never parses beyond the few header bytes it needs.
//
// Mismatch policy (DESIGN.md: content whose magic bytes disagree with the extension fails the job legibly):
// - a recognised binary signature under a name that promises another format fails with `format_mismatch`
//   (a DOCX named .xlsx, a PNG named .jpg, a PDF named .txt); a name that promises no format (no extension,
//   .bin, a date after the last dot) leaves the format to the content;
// - a PDF behind junk (print-ticket %%EDF header, up to MAX_PDF_HEADER_OFFSET) is sliced at its header, provided the
//   file also ends with %%EOF; an AppleSingle container is unwrapped to its data fork once;
// - text under a binary name (a text file named .pdf) fails with `format_mismatch`: what arrived is not what the
//   name promises (often a saved error page), and indexing it silently would hide that; renamed .txt it parses;
// - an OLE2 compound file is told apart by its streams (its directory is read): an EncryptedPackage is encrypted
//   OOXML (`encrypted`); WordDocument, Workbook or PowerPoint Document a legacy .doc, .xls or .ppt, whose name is
//   judged like any other.

import { decodeBytes, looksLikeText, bomEncoding, utf16ByNulParity } from './parsers/charset.ts';
import { looksLikeEbcdic } from './parsers/ebcdic.ts';
import { emptyFile, formatMismatch, unsupportedFormat } from './errors.ts';
import { LEGACY_EXTENSIONS, LEGACY_MIME_TYPES, LEGACY_NAMES, openLegacyContainer } from './parsers/legacy/container.ts';

/** How far into the file a PDF header may sit behind junk (print-ticket headers, mail wrappers). */
export const MAX_PDF_HEADER_OFFSET = 64 * 1024;
/** Bytes examined when telling text from binary and sniffing HTML. */
export const TEXT_SNIFF_BYTES = 8 * 1024;
/** Wrappers (AppleSingle) unwrapped before giving up; a wrapper inside a wrapper is refused. */
export const MAX_WRAPPER_DEPTH = 1;

export type FormatKind = 'pdf' | 'zip' | 'html' | 'text' | 'image' | 'legacy';

export interface Detection {
  kind: FormatKind;
  /** Detected extension (pdf, zip, html, txt, md, csv, png, jpg, tif...). */
  extension: string;
  mimeType: string;
  /** The bytes to parse: a PDF starts at its header, a wrapped file is unwrapped. */
  bytes: Buffer;
  warnings: string[];
}

const OLE2_MAGIC = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
const APPLE_SINGLE_MAGIC = 0x00051600;
const APPLE_DOUBLE_MAGIC = 0x00051607;
const APPLE_DATA_FORK_ID = 1;

/** `names`: the extensions a name of such an image may carry. */
const IMAGE_SIGNATURES: { magic: number[]; at?: number; extension: string; names: string[]; mimeType: string }[] = [
  { magic: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], extension: 'png', names: ['png'], mimeType: 'image/png' },
  { magic: [0xff, 0xd8, 0xff], extension: 'jpg', names: ['jpg', 'jpeg'], mimeType: 'image/jpeg' },
  { magic: [0x49, 0x49, 0x2a, 0x00], extension: 'tif', names: ['tif', 'tiff'], mimeType: 'image/tiff' },
  { magic: [0x4d, 0x4d, 0x00, 0x2a], extension: 'tif', names: ['tif', 'tiff'], mimeType: 'image/tiff' },
  { magic: [0x47, 0x49, 0x46, 0x38], extension: 'gif', names: ['gif'], mimeType: 'image/gif' },
  { magic: [0x57, 0x45, 0x42, 0x50], at: 8, extension: 'webp', names: ['webp'], mimeType: 'image/webp' },
  { magic: [0x42, 0x4d], extension: 'bmp', names: ['bmp'], mimeType: 'image/bmp' },
];

/** Binary formats named in a legible refusal rather than "unrecognised" (checked once the bytes proved not textual). */
const KNOWN_UNSUPPORTED: { magic: number[]; name: string }[] = [
  { magic: [0x1f, 0x8b], name: 'gzip archive' },
  { magic: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], name: '7-Zip archive' },
  { magic: [0x52, 0x61, 0x72, 0x21], name: 'RAR archive' },
  { magic: [0x7f, 0x45, 0x4c, 0x46], name: 'executable (ELF)' },
  { magic: [0x4d, 0x5a], name: 'executable (Windows)' },
];
/** RTF is text on the wire, but its control words are not document text. */
const RTF_MAGIC = [0x7b, 0x5c, 0x72, 0x74, 0x66];
/** A PDF header found behind junk is only trusted when the file also ends like a PDF. */
export const PDF_TRAILER_SEARCH_BYTES = 4 * 1024;
/** BITMAPINFOHEADER sizes a real BMP declares at offset 14 (the two-byte "BM" magic alone is too weak). */
const BMP_DIB_HEADER_SIZES = new Set([12, 40, 52, 56, 64, 108, 124]);

/** Names that promise a binary container; text content under such a name is a mismatch. */
const BINARY_EXTENSIONS = new Set([
  'pdf', 'docx', 'docm', 'dotx', 'dotm', 'xlsx', 'xlsm', 'xltx', 'xltm', 'pptx', 'pptm', 'potx', 'potm', 'ppsx', 'ppsm',
  'doc', 'dot', 'xls', 'xlt', 'xla', 'ppt', 'pps', 'pot', 'png', 'jpg', 'jpeg', 'tif', 'tiff', 'gif', 'bmp', 'webp', 'zip',
]);
const HTML_EXTENSIONS = new Set(['html', 'htm', 'xhtml', 'shtml']);
const TEXT_KINDS: Record<string, { extension: string; mimeType: string }> = {
  md: { extension: 'md', mimeType: 'text/markdown' },
  markdown: { extension: 'md', mimeType: 'text/markdown' },
  csv: { extension: 'csv', mimeType: 'text/csv' },
  tsv: { extension: 'tsv', mimeType: 'text/tab-separated-values' },
};

/** Every name that promises a format: a supported format's extension. */
const FORMAT_EXTENSIONS: ReadonlySet<string> = new Set([...BINARY_EXTENSIONS, ...HTML_EXTENSIONS, ...Object.keys(TEXT_KINDS), 'txt', 'text']);

/**
 * Fails with `format_mismatch` when the name promises a format other than the content's: `names` are the
 * extensions the content may be named with, `content` says what it is ("a PDF document").
 */
export function requireNameAgrees(named: string, names: readonly string[], content: string): void {
  if (FORMAT_EXTENSIONS.has(named) && !names.includes(named)) throw formatMismatch(named, content);
}

export function extensionOf(filename: string): string {
  const base = filename.split(/[\\/]/).pop() ?? '';
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : '';
}

function startsWith(bytes: Buffer, magic: number[], at = 0): boolean {
  if (bytes.length < at + magic.length) return false;
  return magic.every((b, i) => bytes[at + i] === b);
}

/** Offset of the PDF header, or -1; a header behind junk counts only if an %%EOF marker ends the file. */
function pdfHeaderOffset(bytes: Buffer): number {
  const at = bytes.subarray(0, MAX_PDF_HEADER_OFFSET + 5).indexOf('%PDF-');
  if (at <= 0) return at;
  return bytes.subarray(Math.max(0, bytes.length - PDF_TRAILER_SEARCH_BYTES)).indexOf('%%EOF') >= 0 ? at : -1;
}

function isPlausibleImage(bytes: Buffer, extension: string): boolean {
  if (extension !== 'bmp') return true;
  return bytes.length >= 18 && bytes.readUInt32LE(6) === 0 && BMP_DIB_HEADER_SIZES.has(bytes.readUInt32LE(14));
}

function isZip(bytes: Buffer): boolean {
  return bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && [3, 5, 7].includes(bytes[2]!) && bytes[3] === bytes[2]! + 1;
}

/** The data fork of an AppleSingle file, or null when it has none or its entry table is out of bounds. */
export function appleSingleDataFork(bytes: Buffer): Buffer | null {
  if (bytes.length < 26) return null;
  const entries = bytes.readUInt16BE(24);
  for (let i = 0; i < entries && 26 + (i + 1) * 12 <= bytes.length; i++) {
    const at = 26 + i * 12;
    if (bytes.readUInt32BE(at) !== APPLE_DATA_FORK_ID) continue;
    const offset = bytes.readUInt32BE(at + 4);
    const length = bytes.readUInt32BE(at + 8);
    return offset + length <= bytes.length ? bytes.subarray(offset, offset + length) : null;
  }
  return null;
}

/** A legacy Office document, by the stream its compound file carries; its name must not promise another format. */
function detectLegacy(bytes: Buffer, named: string, warnings: string[]): Detection {
  const { kind } = openLegacyContainer(bytes);
  requireNameAgrees(named, LEGACY_EXTENSIONS[kind], LEGACY_NAMES[kind]);
  return { kind: 'legacy', extension: kind, mimeType: LEGACY_MIME_TYPES[kind], bytes, warnings };
}

function sniffsHtml(head: string): boolean {
  const start = head.replace(/^(\s|<!--[\s\S]*?-->|<\?xml[^>]*>)*/u, '').slice(0, 512).toLowerCase();
  return /^<(!doctype\s+html|html|head|body|title|meta)[\s>]/u.test(start) || /<html[\s>]/u.test(head.slice(0, 2048).toLowerCase());
}

function looksTextual(bytes: Buffer): boolean {
  const sample = bytes.subarray(0, TEXT_SNIFF_BYTES);
  if (bomEncoding(sample) || utf16ByNulParity(sample) || looksLikeEbcdic(sample)) return true;
  return looksLikeText(decodeBytes(sample).text);
}

function detectText(bytes: Buffer, named: string, warnings: string[]): Detection {
  if (BINARY_EXTENSIONS.has(named)) throw formatMismatch(named, 'plain text');
  const html = HTML_EXTENSIONS.has(named) || (!TEXT_KINDS[named] && named !== 'txt' && sniffsHtml(decodeBytes(bytes.subarray(0, TEXT_SNIFF_BYTES)).text));
  if (html) return { kind: 'html', extension: 'html', mimeType: 'text/html', bytes, warnings };
  const kind = TEXT_KINDS[named] ?? { extension: 'txt', mimeType: 'text/plain' };
  return { kind: 'text', ...kind, bytes, warnings };
}

function detectBinary(bytes: Buffer, named: string, warnings: string[], depth: number): Detection | null {
  const magic32 = bytes.length >= 4 ? bytes.readUInt32BE(0) : -1;
  if (magic32 === APPLE_SINGLE_MAGIC) return unwrapAppleSingle(bytes, named, warnings, depth);
  if (magic32 === APPLE_DOUBLE_MAGIC) throw unsupportedFormat('AppleDouble resource file (it carries no document content)');
  const pdfAt = pdfHeaderOffset(bytes);
  if (pdfAt >= 0) {
    requireNameAgrees(named, ['pdf'], 'a PDF document');
    if (pdfAt > 0) warnings.push(`Skipped ${pdfAt} bytes of non-PDF data before the PDF header.`);
    return { kind: 'pdf', extension: 'pdf', mimeType: 'application/pdf', bytes: bytes.subarray(pdfAt), warnings };
  }
  if (isZip(bytes)) return { kind: 'zip', extension: 'zip', mimeType: 'application/zip', bytes, warnings };
  if (startsWith(bytes, [...OLE2_MAGIC])) return detectLegacy(bytes, named, warnings);
  for (const sig of IMAGE_SIGNATURES) {
    if (!startsWith(bytes, sig.magic, sig.at) || !isPlausibleImage(bytes, sig.extension)) continue;
    requireNameAgrees(named, sig.names, `a ${sig.mimeType.slice('image/'.length).toUpperCase()} image`);
    return { kind: 'image', extension: sig.extension, mimeType: sig.mimeType, bytes, warnings };
  }
  if (startsWith(bytes, RTF_MAGIC)) throw unsupportedFormat('RTF document; save it as .docx or .pdf');
  return null;
}

function unwrapAppleSingle(bytes: Buffer, named: string, warnings: string[], depth: number): Detection {
  const fork = appleSingleDataFork(bytes);
  if (!fork || depth >= MAX_WRAPPER_DEPTH) throw unsupportedFormat('AppleSingle container without a readable data fork');
  warnings.push('Unwrapped an AppleSingle container and parsed its data fork.');
  return detectFrom(fork, named, warnings, depth + 1);
}

function detectFrom(bytes: Buffer, named: string, warnings: string[], depth: number): Detection {
  if (bytes.length === 0) throw emptyFile();
  const binary = detectBinary(bytes, named, warnings, depth);
  if (binary) return binary;
  if (looksTextual(bytes)) return detectText(bytes, named, warnings);
  const known = KNOWN_UNSUPPORTED.find((sig) => startsWith(bytes, sig.magic));
  throw unsupportedFormat(known ? known.name : 'unrecognised binary content');
}

/** Detects the format of `bytes`; throws an IngestError for empty, encrypted, unsupported or mismatched files. */
export function detectFormat(bytes: Buffer, filename: string): Detection {
  return detectFrom(bytes, extensionOf(filename), [], 0);
}
