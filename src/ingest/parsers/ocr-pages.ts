// Applies OCR to the pages that need it: image-only PDF pages and image uploads, within the page and time limits.
// A failed or timed-out page becomes a warning, never a crash; only an unreadable image fails the whole upload.

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ParsedPage } from '../parsed-document.ts';
import type { ParserContext } from '../parse-options.ts';
import { spendText } from '../parse-options.ts';
import { unreadable } from '../errors.ts';
import { LOW_OCR_CONFIDENCE, OcrRunError, prepareOcr, rasterizeImage, rasterizePdfPage, recognizeImageFile, tidyOcrText, withTempDir, writeTempFile } from '../ocr.ts';
import type { RecognizedPage } from '../ocr-tsv.ts';
import type { OcrEngine } from '../ocr.ts';
import { deskew } from '../deskew.ts';

export interface OcrCandidate {
  pageNumber: number;
  longSidePoints: number;
}

function recordFailure(context: ParserContext, where: string, error: unknown): void {
  if (error instanceof OcrRunError && error.reason === 'unreadable_image') throw unreadable(error);
  context.ocr.failedPages++;
  context.warnings.push(`OCR failed on ${where}: ${error instanceof Error ? error.message : String(error)}.`);
}

/** Takes a page's OCR reading: its text, its confidence, and a warning when the confidence is low. */
function acceptText(context: ParserContext, page: ParsedPage, reading: RecognizedPage, where: string): void {
  const text = tidyOcrText(reading.text);
  if (!text || context.budget.remaining === 0) return;
  page.text = spendText(context.budget, text);
  page.textExtraction = 'ocr';
  if (reading.confidence !== null) {
    page.ocrConfidence = Math.round(reading.confidence);
    if (reading.confidence < LOW_OCR_CONFIDENCE) context.warnings.push(`OCR confidence is low on ${where} (${page.ocrConfidence} of 100): its text may hold misread words.`);
  }
  context.ocr.recognisedPages++;
}

function limitPages<T>(items: T[], context: ParserContext, what: string): T[] {
  const max = context.options.ocr.maxPages;
  if (items.length > max) context.warnings.push(`OCR stopped after ${max} ${what} (limit); the rest were skipped.`);
  return items.slice(0, max);
}

async function engineFor(context: ParserContext): Promise<OcrEngine | null> {
  const engine = await prepareOcr(context.options.ocr, context.warnings);
  if (!engine) context.ocr.unavailable = true;
  return engine;
}

/** Straightens the netpbm raster at `from` into `to` (deskew.ts); false, writing nothing, when it is straight enough. */
async function straightenRaster(from: string, to: string): Promise<boolean> {
  const raster = await readFile(from);
  const straightened = deskew(raster);
  if (straightened.bytes === raster) return false;
  await writeFile(to, straightened.bytes);
  return true;
}

/** Rasterizes and recognises one page within `timeoutMs` per step; failures become warnings. */
async function recognizePdfPage(engine: OcrEngine, pdfPath: string, dir: string, candidate: OcrCandidate, page: ParsedPage, context: ParserContext, deadline: number): Promise<void> {
  const options = context.options.ocr;
  const stepTimeout = (): number => Math.max(1, Math.min(options.pageTimeoutMs, deadline - performance.now()));
  try {
    const image = await rasterizePdfPage(engine, pdfPath, candidate.pageNumber, candidate.longSidePoints, dir, options, stepTimeout());
    // A scan fed askew loses words: the raster is straightened first (deskew.ts).
    await straightenRaster(image, image);
    const [reading] = await recognizeImageFile(engine, image, options, 1, stepTimeout());
    acceptText(context, page, reading!, `page ${candidate.pageNumber}`);
  } catch (error) {
    recordFailure(context, `page ${candidate.pageNumber}`, error);
  }
}

/** Rasterizes and recognises each candidate page of a PDF, writing OCR text into `pages`, within the OCR time budget. */
export async function recognizePdfPages(pdf: Buffer, candidates: OcrCandidate[], pages: ParsedPage[], context: ParserContext): Promise<void> {
  const engine = await engineFor(context);
  if (!engine) return;
  const options = context.options.ocr;
  if (!engine.pdftoppm) {
    context.ocr.unavailable = true;
    context.warnings.push(`OCR unavailable for PDF pages: pdftoppm was not found (${options.pdftoppmPath}).`);
    return;
  }
  const deadline = performance.now() + options.totalTimeoutMs;
  await withTempDir(options.tempDir, async (dir) => {
    const pdfPath = await writeTempFile(dir, 'document.pdf', pdf);
    for (const candidate of limitPages(candidates, context, 'image-only pages')) {
      if (performance.now() >= deadline) {
        context.warnings.push(`OCR time budget of ${options.totalTimeoutMs} ms ran out at page ${candidate.pageNumber}; later pages were skipped.`);
        break;
      }
      await recognizePdfPage(engine, pdfPath, dir, candidate, pages[candidate.pageNumber - 1]!, context, deadline);
    }
  });
}

/**
 * A single-frame image upload straightened before OCR, as scanned PDF pages are (deskew.ts), written as a PGM in
 * `dir`; null when it is straight enough, has several frames, or cannot be converted (then the upload is read as
 * it is). The conversion gets at most the OCR page timeout.
 */
async function straightenedImage(path: string, extension: string, dir: string, context: ParserContext, timeoutMs: number): Promise<string | null> {
  const options = context.options.ocr;
  const raster = await rasterizeImage(path, extension, dir, options, Math.min(options.pageTimeoutMs, timeoutMs));
  if (!raster) return null;
  const straight = join(dir, 'straightened.pgm');
  return (await straightenRaster(raster, straight)) ? straight : null;
}

/** Recognises an image upload; a multi-page TIFF gives one page per frame (up to the OCR page limit). */
export async function recognizeImage(bytes: Buffer, context: ParserContext): Promise<ParsedPage[]> {
  const engine = await engineFor(context);
  if (!engine) return [{ pageNumber: 1, pageLabel: null, text: '' }];
  const options = context.options.ocr;
  return withTempDir(options.tempDir, async (dir) => {
    const uploaded = await writeTempFile(dir, `image.${context.format.extension}`, bytes);
    let frames: RecognizedPage[] = [{ text: '', confidence: null, words: 0 }];
    try {
      const timeoutMs = Math.min(options.pageTimeoutMs * (options.maxPages + 1), options.totalTimeoutMs);
      const started = performance.now();
      const path = (await straightenedImage(uploaded, context.format.extension, dir, context, timeoutMs)) ?? uploaded;
      frames = await recognizeImageFile(engine, path, options, options.maxPages + 1, Math.max(1, timeoutMs - (performance.now() - started)));
    } catch (error) {
      recordFailure(context, 'the image', error);
    }
    const pages = limitPages(frames, context, 'image pages').map((_, i): ParsedPage => ({ pageNumber: i + 1, pageLabel: null, text: '' }));
    pages.forEach((page, i) => acceptText(context, page, frames[i]!, frames.length > 1 ? `image page ${i + 1}` : 'the image'));
    return pages;
  });
}
