// What every parser returns: the text of a document split by page, plus what the file says about itself.
// Parsers never chunk, embed or store; they only turn bytes into this shape or throw an IngestError.

import type { TextExtraction } from '../domain/canonical-metadata.ts';
import type { Truncation } from '../domain/limits.ts';

export type { TextExtraction } from '../domain/canonical-metadata.ts';
/** The per-document limit that cut a document short (domain/limits.ts: the job that stages it records it too). */
export type { Truncation } from '../domain/limits.ts';

export interface ParsedPage {
  /** 1-based physical page number (a slide's or sheet's position); null for formats without pages (TXT, HTML, DOCX...). */
  pageNumber: number | null;
  /** Logical page label (PDF /PageLabels) or a sheet's name, or null. */
  pageLabel: string | null;
  /** Page text; paragraphs separated by a blank line ("\n\n"). */
  text: string;
  /**
   * Spreadsheets and CSV/TSV files only: for each line of `text` (split at "\n"), the spreadsheet row it comes from
   * (1-based, as the file numbers its rows), or null for a line that is no row (a sheet's name, headers, comments).
   * The chunker turns it into each chunk's row range; absent on every other page.
   */
  lineRows?: (number | null)[];
  /** How this page's text was obtained, when the parser knows it per page (PDF pages, images). */
  textExtraction?: TextExtraction;
  /** Mean OCR word confidence of the page (0 to 100) when its text came from OCR; a low one is also a warning. */
  ocrConfidence?: number;
}

export interface DocumentProperties {
  title: string | null;
  author: string | null;
  /** ISO 8601 timestamp, or null. */
  createdAt: string | null;
}


export interface ParsedDocument {
  mimeType: string;
  /** Extension without the dot, lower case, of the detected format (pdf, docx, txt...). */
  extension: string;
  pages: ParsedPage[];
  /** Number of pages for paged formats (PDF, multi-page TIFF, PPTX slides, XLSX sheets); null otherwise. */
  pageCount: number | null;
  textExtraction: TextExtraction;
  ocrUsed: boolean;
  warnings: string[];
  properties: DocumentProperties;
  /** Limits that cut the document short (absent or empty: the whole document was read). */
  truncations?: Truncation[];
}

/**
 * A legible, user-facing failure of one upload. `message` is shown as the job's `error`.
 * `transient` failures (a missing temp dir, a crashed OCR child) may be retried; content failures may not.
 */
export class IngestError extends Error {
  readonly code: string;
  readonly transient: boolean;
  constructor(code: string, message: string, options: { transient?: boolean; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'IngestError';
    this.code = code;
    this.transient = options.transient ?? false;
  }
}
