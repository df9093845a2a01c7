// Image uploads (PNG, JPEG, TIFF incl. multi-page, GIF, BMP, WebP): all their text comes from OCR, one page per frame.
// It never decodes image formats in this process: tesseract does, and netpbm's readers turn a single-frame image into
// a raster to straighten first (ocr-pages.ts), each in a memory-limited child.

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
