// The catalogue of parse failures: one code and one user-facing message per kind of failure (SPEC.md GET /status "failed").
// Messages never echo document content or file paths; technical detail goes into `cause` for logs only.

import { IngestError } from './parsed-document.ts';

/** Every code a parser or the isolation layer can throw. */
export const INGEST_ERROR_CODES = [
  'archive_rejected',
  'malformed_xml',
  'xml_node_too_large',
  'xml_dtd_forbidden',
  'encrypted',
  'unsupported_format',
  'format_mismatch',
  'empty_file',
  'no_text',
  'unreadable',
  'ocr_failed',
  'temp_unavailable',
  'parse_timeout',
  'parse_out_of_memory',
  'parse_crashed',
] as const;

export type IngestErrorCode = (typeof INGEST_ERROR_CODES)[number];

/** The one message for every input that is unreadable for a reason without its own category. */
export const GENERIC_UNREADABLE_MESSAGE = 'The file could not be read: it is damaged, truncated or not a supported document.';

export function ingestError(code: IngestErrorCode, message: string, options: { transient?: boolean; cause?: unknown } = {}): IngestError {
  return new IngestError(code, message, options);
}

export function archiveRejected(reason: string): IngestError {
  return ingestError('archive_rejected', `Archive rejected by the decompression guard: ${reason}.`);
}

export function malformedXml(part: string, cause?: unknown): IngestError {
  return ingestError('malformed_xml', `Malformed XML inside the document (part ${part}); the file is damaged.`, { cause });
}

export function xmlNodeTooLarge(part: string, limit: number): IngestError {
  return ingestError(
    'xml_node_too_large',
    `XML node size limit exceeded inside the document (part ${part}): a single text or attribute value is longer than ${limit} characters.`,
  );
}

export function xmlDtdForbidden(part: string): IngestError {
  return ingestError(
    'xml_dtd_forbidden',
    `XML inside the document (part ${part}) declares a DTD; entity declarations are refused and never expanded or fetched.`,
  );
}

export function encrypted(what: string): IngestError {
  return ingestError('encrypted', `The document is encrypted or password-protected (${what}); remove the protection and upload it again.`);
}

export function unsupportedFormat(what: string): IngestError {
  return ingestError('unsupported_format', `Unsupported file format: ${what}.`);
}

export function formatMismatch(namedAs: string, content: string): IngestError {
  return ingestError('format_mismatch', `The file content does not match its name: it is named .${namedAs} but contains ${content}.`);
}

export function emptyFile(): IngestError {
  return ingestError('empty_file', 'The file is empty.');
}

export function noText(reason: string): IngestError {
  return ingestError('no_text', `No extractable text: ${reason}.`);
}

export function unreadable(cause?: unknown): IngestError {
  return ingestError('unreadable', GENERIC_UNREADABLE_MESSAGE, { cause });
}

export function ocrFailed(cause?: unknown): IngestError {
  return ingestError('ocr_failed', 'Text recognition (OCR) failed on this file; the upload may be retried.', { transient: true, cause });
}

export function isIngestError(value: unknown): value is IngestError {
  return value instanceof IngestError;
}

export function tempUnavailable(cause?: unknown): IngestError {
  return ingestError('temp_unavailable', 'Temporary storage for parsing is unavailable; the upload may be retried.', { transient: true, cause });
}

export function parseTimeout(timeoutMs: number): IngestError {
  return ingestError('parse_timeout', `Parsing took longer than ${Math.round(timeoutMs / 1000)} s and was stopped.`);
}

export function parseOutOfMemory(): IngestError {
  return ingestError('parse_out_of_memory', 'Parsing exceeded its memory limit and was stopped; the file is too large or hostile.');
}

export function parseCrashed(cause?: unknown): IngestError {
  return ingestError('parse_crashed', 'The parser stopped unexpectedly on this file; it is damaged or hostile.', { cause });
}
