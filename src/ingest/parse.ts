// Entry point of document parsing in this thread: detect the format by content, run its parser, enforce "some text".
// It never chunks or stores, and every failure leaves as an IngestError with a legible message.
//
// "Some text" policy: a document whose pages are all empty fails with `no_text` instead of succeeding empty, so an
// upload never looks indexed while nothing is searchable. The message says why: OCR unavailable (disabled or tesseract
// missing), OCR found nothing, or no text at all. If OCR runs failed and nothing was recognised, the failure is
// `ocr_failed` (transient). Mixed documents (some text, some image-only pages) complete, with warnings for what OCR
// could not do. textExtraction is 'ocr' only when all text came from OCR; ocrUsed is true whenever OCR produced text.

import type { ParsedDocument } from './parsed-document.ts';
import { IngestError } from './parsed-document.ts';
import { detectFormat } from './detect.ts';
import type { FormatKind } from './detect.ts';
import { createContext, noteLimit, resolveParseOptions } from './parse-options.ts';
import type { ParseOptions, Parser, ParserContext, ResolvedParseOptions } from './parse-options.ts';
import { noText, ocrFailed, unreadable } from './errors.ts';

/** Parser per detected kind, loaded on first use so a worker only pays for the parser it needs (pdf.js is heavy). */
export const PARSERS: Record<FormatKind, () => Promise<Parser>> = {
  pdf: async () => (await import('./parsers/pdf.ts')).parsePdf,
  zip: async () => (await import('./parsers/ooxml/index.ts')).parseOoxml,
  html: async () => (await import('./parsers/html.ts')).parseHtml,
  text: async () => (await import('./parsers/text.ts')).parseText,
  image: async () => (await import('./parsers/image.ts')).parseImage,
  legacy: async () => (await import('./parsers/legacy/index.ts')).parseLegacyOffice,
};

function hasText(doc: ParsedDocument): boolean {
  return doc.pages.some((page) => page.text.trim() !== '');
}

/** Why a document produced no text, in the user's terms. */
function explainNoText(doc: ParsedDocument, context: ParserContext): IngestError {
  const image = doc.mimeType.startsWith('image/');
  if (context.ocr.unavailable) {
    return noText(`the ${image ? 'image' : 'document'} has no text layer and OCR is unavailable (disabled or tesseract not installed)`);
  }
  if (context.ocr.failedPages > 0) return ocrFailed();
  if (image) return noText('OCR found no text in the image');
  if (doc.extension === 'pdf') return noText('the PDF has no text layer and OCR found no text on its pages');
  return noText('the document contains no text');
}

/**
 * Parsers spend the budget on paragraphs and rows, not on the separators that join them: the last characters over the
 * limit are cut here, so a document's text never exceeds DOCUMENT_MAX_CHARS.
 */
function capText(doc: ParsedDocument, max: number, context: ParserContext): void {
  let total = 0;
  for (const page of doc.pages) {
    if (total + page.text.length > max) {
      page.text = page.text.slice(0, Math.max(0, max - total));
      context.budget.truncated = true;
    }
    total += page.text.length;
  }
}

function asIngestError(error: unknown): IngestError {
  return error instanceof IngestError ? error : unreadable(error);
}

/** Detects and parses one document (the upload, or an object embedded in `parent`), without the "some text" rule. */
async function parseOne(bytes: Buffer, filename: string, resolved: ResolvedParseOptions, parent: ParserContext | null): Promise<{ doc: ParsedDocument; context: ParserContext }> {
  const detection = detectFormat(bytes, filename);
  const context = createContext(filename, { extension: detection.extension, mimeType: detection.mimeType }, resolved, parent);
  context.warnings.push(...detection.warnings);
  context.openEmbedded = async (inner, name) => (await parseOne(inner, name, resolved, context)).doc;
  try {
    const parser = await PARSERS[detection.kind]();
    return { doc: await parser(detection.bytes, context), context };
  } catch (error) {
    throw asIngestError(error);
  }
}

/**
 * Parses one upload in the calling thread. Hostile input can still exhaust this thread's memory or stack;
 * services should call parseDocumentIsolated instead.
 */
export async function parseDocument(bytes: Buffer, filename: string, options: ParseOptions = {}): Promise<ParsedDocument> {
  const resolved = resolveParseOptions(options);
  const { doc, context } = await parseOne(bytes, filename, resolved, null);
  capText(doc, resolved.maxTextChars, context);
  // Readers stop as soon as the budget is spent, before they could see whether more text followed: a spent budget
  // counts as a cut (only a document of exactly the limit's length is reported cut without being so).
  if (context.budget.remaining === 0) context.budget.truncated = true;
  if (context.budget.truncated) {
    noteLimit(context, 'characters', resolved.maxTextChars, `Text beyond ${resolved.maxTextChars} characters was dropped (limit); only the beginning of the document is indexed.`);
  }
  if (!hasText(doc)) throw explainNoText(doc, context);
  // Parsers return context.warnings itself or a copy taken before the last notes: keep every note exactly once.
  for (const warning of context.warnings) if (!doc.warnings.includes(warning)) doc.warnings.push(warning);
  doc.truncations = context.truncations;
  return doc;
}

export { parseDocumentIsolated } from './parse-isolated.ts';
export type { IsolatedParseOptions } from './parse-isolated.ts';
