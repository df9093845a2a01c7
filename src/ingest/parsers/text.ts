// Plain text, Markdown and CSV: decode with encoding detection, normalise line ends, keep the text as written.
// It never interprets markup (Markdown stays Markdown) and never splits CSV into cells; a CSV or TSV file's lines
// are numbered by the record they belong to (csv-records.ts), the rows a hit names.

import type { ParsedDocument } from '../parsed-document.ts';
import type { Parser } from '../parse-options.ts';
import { spendText } from '../parse-options.ts';
import { decodeBytes } from './charset.ts';
import { csvLineRecords, hasRecords } from './csv-records.ts';


/** Line ends to \n, NULs and other C0 controls (except tab, newline, form feed) removed. */
export function normaliseText(text: string): string {
  return text.replace(/\r\n?/gu, '\n').replace(/[\u0000-\u0008\u000b\u000e-\u001f\u007f]/gu, '');
}

export function markdownTitle(text: string): string | null {
  const heading = /^#\s+(.+?)\s*#*\s*$/mu.exec(text);
  return heading?.[1]?.trim() || null;
}

export const parseText: Parser = async (bytes, context): Promise<ParsedDocument> => {
  const { extension, mimeType } = context.format;
  const { text: decoded } = decodeBytes(bytes);
  const text = spendText(context.budget, normaliseText(decoded));
  const lineRows = hasRecords(extension) ? csvLineRecords(text, extension) : null;
  return {
    mimeType,
    extension,
    pages: [{ pageNumber: null, pageLabel: null, text, ...(lineRows ? { lineRows } : {}) }],
    pageCount: null,
    textExtraction: 'native',
    ocrUsed: false,
    warnings: context.warnings,
    properties: { title: extension === 'md' ? markdownTitle(text) : null, author: null, createdAt: null },
  };
};
