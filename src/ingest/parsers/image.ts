// Image uploads (PNG, JPEG, TIFF incl. multi-page, GIF, BMP, WebP): all their text comes from OCR, one page per frame.
// It never decodes pixels in this process; tesseract does that in a memory-limited child.

import type { ParsedDocument } from '../parsed-document.ts';
import type { Parser } from '../parse-options.ts';
import { recognizeImage } from './ocr-pages.ts';

export const parseImage: Parser = async (bytes, context): Promise<ParsedDocument> => {
  const pages = await recognizeImage(bytes, context);
  return {
    mimeType: context.format.mimeType,
    extension: context.format.extension,
    pages,
    pageCount: pages.length,
    textExtraction: 'ocr',
    ocrUsed: context.ocr.recognisedPages > 0,
    warnings: context.warnings,
    properties: { title: null, author: null, createdAt: null },
  };
};
