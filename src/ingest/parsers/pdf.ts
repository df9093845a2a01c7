// PDF through pdf.js: text layer per page (with form-field values), page labels, document info; image-only pages go to OCR.
// It never evaluates PDF JavaScript or font code, never loads anything over the network, and never asks for passwords.
// Dynamic XFA forms are laid out by pdf.js (its own entity-free XML parser) so their pages carry the real form text.

import { fileURLToPath } from 'node:url';
import * as pdfjs from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { DocumentProperties, ParsedDocument, ParsedPage } from '../parsed-document.ts';
import type { Parser, ParserContext } from '../parse-options.ts';
import { noteLimit, spendText } from '../parse-options.ts';
import { embeddedText, mayOpenEmbedded } from '../embedded-objects.ts';
import { encrypted, unreadable } from '../errors.ts';
import { layoutPageText, pdfDateToIso } from './pdf-text.ts';
import type { TextItemLike } from './pdf-text.ts';
import { MAX_PROPERTY_CHARS } from './ooxml/core-properties.ts';
import { recognizePdfPages } from './ocr-pages.ts';
import type { OcrCandidate } from './ocr-pages.ts';

/** Images above this many pixels are dropped by pdf.js before decoding (defuses JBIG2/JPX decompression bombs). */
export const PDF_MAX_IMAGE_PIXELS = 64 * 1024 * 1024;
/** A page whose text layer has fewer non-space characters than this counts as image-only when it paints images. */
export const OCR_MIN_NATIVE_CHARS = 1;

const PDFJS_ROOT = new URL('./', import.meta.resolve('pdfjs-dist/package.json'));
const asDirectory = (sub: string): string => fileURLToPath(new URL(sub, PDFJS_ROOT));

/** Local data directories only: pdf.js reads CMaps, standard fonts, ICC profiles and wasm decoders from disk. */
const PDFJS_OPTIONS = {
  cMapUrl: asDirectory('cmaps/'),
  cMapPacked: true,
  standardFontDataUrl: asDirectory('standard_fonts/'),
  wasmUrl: asDirectory('wasm/'),
  iccUrl: asDirectory('iccs/'),
  isEvalSupported: false,
  disableFontFace: true,
  useSystemFonts: false,
  enableXfa: true,
  disableAutoFetch: true,
  disableStream: true,
  stopAtErrors: false,
  isOffscreenCanvasSupported: false,
  isImageDecoderSupported: false,
  maxImageSize: PDF_MAX_IMAGE_PIXELS,
  verbosity: 0,
};

const IMAGE_OPS = new Set([
  pdfjs.OPS.paintImageXObject,
  pdfjs.OPS.paintInlineImageXObject,
  pdfjs.OPS.paintInlineImageXObjectGroup,
  pdfjs.OPS.paintImageXObjectRepeat,
  pdfjs.OPS.paintImageMaskXObject,
  pdfjs.OPS.paintImageMaskXObjectGroup,
  pdfjs.OPS.paintImageMaskXObjectRepeat,
]);

/** A PDF 2.0 "unencrypted wrapper" whose real content is an encrypted embedded payload (Microsoft IRM and the like). */
function isEncryptedPayloadWrapper(bytes: Buffer): boolean {
  return bytes.indexOf('/EncryptedPayload') >= 0;
}

async function openPdf(bytes: Buffer): Promise<PDFDocumentProxy> {
  const task = pdfjs.getDocument({ ...PDFJS_OPTIONS, data: new Uint8Array(bytes) });
  try {
    return await task.promise;
  } catch (error) {
    await task.destroy().catch(() => undefined);
    if ((error as { name?: string }).name === 'PasswordException') throw encrypted('the PDF requires a password to open');
    throw unreadable(error);
  }
}

/** A trimmed property value, or null when it is empty or has no letter or digit (titles like "()" or "-"). */
function clip(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const text = value.replace(/\s+/gu, ' ').trim().slice(0, MAX_PROPERTY_CHARS);
  return /[\p{L}\p{N}]/u.test(text) ? text : null;
}

async function readProperties(doc: PDFDocumentProxy): Promise<DocumentProperties> {
  const { info, metadata } = await doc.getMetadata().catch(() => ({ info: {}, metadata: null }));
  const fields = info as Record<string, unknown>;
  return {
    title: clip(fields.Title) ?? clip(metadata?.get('dc:title')),
    author: clip(fields.Author) ?? clip(metadata?.get('dc:creator')),
    createdAt: pdfDateToIso(fields.CreationDate) ?? pdfDateToIso(metadata?.get('xmp:createdate')),
  };
}

/** Values typed into text and choice form fields, which are not part of the text layer. */
async function formFieldValues(page: PDFPageProxy): Promise<string> {
  const annotations = (await page.getAnnotations().catch(() => [])) as { fieldType?: string; fieldValue?: unknown }[];
  const values: string[] = [];
  for (const annotation of annotations) {
    if (annotation.fieldType !== 'Tx' && annotation.fieldType !== 'Ch') continue;
    const value = Array.isArray(annotation.fieldValue) ? annotation.fieldValue.join(', ') : annotation.fieldValue;
    if (typeof value === 'string' && value.trim()) values.push(value.trim());
  }
  return values.join('\n');
}

async function paintsImages(page: PDFPageProxy): Promise<boolean> {
  const operators = await page.getOperatorList().catch(() => null);
  return operators?.fnArray.some((op) => IMAGE_OPS.has(op)) ?? false;
}

async function pageText(page: PDFPageProxy): Promise<string> {
  const content = await page.getTextContent().catch(() => ({ items: [] }));
  const layer = layoutPageText(content.items as TextItemLike[]);
  const fields = await formFieldValues(page);
  return [layer, fields].filter(Boolean).join('\n\n');
}

interface PageScan {
  pages: ParsedPage[];
  candidates: OcrCandidate[];
}

async function scanPages(doc: PDFDocumentProxy, labels: string[] | null, context: ParserContext): Promise<PageScan> {
  const scan: PageScan = { pages: [], candidates: [] };
  const maxPages = context.options.maxPages;
  if (doc.numPages > maxPages) {
    noteLimit(context, 'pages', maxPages, `Only the first ${maxPages} of the PDF's ${doc.numPages} pages were read (limit); only the beginning of the document is indexed.`);
  }
  for (let pageNumber = 1; pageNumber <= Math.min(doc.numPages, maxPages); pageNumber++) {
    const page = await doc.getPage(pageNumber);
    const text = context.budget.remaining > 0 ? spendText(context.budget, await pageText(page)) : '';
    if (text.replace(/\s/gu, '').length < OCR_MIN_NATIVE_CHARS && (await paintsImages(page))) {
      const [x0, y0, x1, y1] = page.view as [number, number, number, number];
      scan.candidates.push({ pageNumber, longSidePoints: Math.max(Math.abs(x1 - x0), Math.abs(y1 - y0)) });
    }
    scan.pages.push({ pageNumber, pageLabel: labels?.[pageNumber - 1] ?? null, text, textExtraction: 'native' });
    page.cleanup();
  }
  return scan;
}

/**
 * Text of the files attached to the PDF (its EmbeddedFiles), each opened as an embedded object; they belong to no
 * page, so they follow the pages on a page of their own.
 */
async function attachmentsText(doc: PDFDocumentProxy, context: ParserContext): Promise<string> {
  if (!mayOpenEmbedded(context)) return '';
  const attachments = ((await doc.getAttachments().catch(() => null)) ?? {}) as Record<string, { filename?: string; content?: Uint8Array }>;
  const texts: string[] = [];
  for (const [key, attachment] of Object.entries(attachments)) {
    if (!(attachment?.content instanceof Uint8Array)) continue;
    const name = (attachment.filename ?? key).split(/[\\/]/).pop() ?? '';
    const text = await embeddedText(context, name, attachment.content.byteLength, async () => ({ bytes: Buffer.from(attachment.content!), name }));
    if (text !== null) texts.push(text);
    if (context.budget.remaining === 0) break;
  }
  return texts.join('\n\n');
}

function summarise(pages: ParsedPage[], pageCount: number, context: ParserContext, properties: DocumentProperties): ParsedDocument {
  const nativeText = pages.some((p) => p.textExtraction === 'native' && p.text.trim() !== '');
  return {
    mimeType: 'application/pdf',
    extension: 'pdf',
    pages,
    pageCount,
    textExtraction: context.ocr.recognisedPages > 0 && !nativeText ? 'ocr' : 'native',
    ocrUsed: context.ocr.recognisedPages > 0,
    warnings: context.warnings,
    properties,
  };
}

export const parsePdf: Parser = async (bytes, context): Promise<ParsedDocument> => {
  if (isEncryptedPayloadWrapper(bytes)) throw encrypted('the PDF only wraps an encrypted payload (rights-management protection)');
  const doc = await openPdf(bytes);
  try {
    const labels = await doc.getPageLabels().catch(() => null);
    const { pages, candidates } = await scanPages(doc, labels, context);
    if (candidates.length > 0) await recognizePdfPages(bytes, candidates, pages, context);
    const attached = await attachmentsText(doc, context);
    if (attached) pages.push({ pageNumber: null, pageLabel: null, text: attached, textExtraction: 'native' });
    return summarise(pages, doc.numPages, context, await readProperties(doc));
  } finally {
    await doc.destroy().catch(() => undefined);
  }
};
