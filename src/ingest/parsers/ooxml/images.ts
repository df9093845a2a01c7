// Pictures inside a DOCX, XLSX or PPTX part are read by OCR when tesseract is present: each is parsed as an image
// file (embedded-objects.ts, the image parser), in the order the part shows them (embedded.ts walks the part), and
// its text joins the part's.
// The whole upload OCRs at most as many pictures as an image file has pages, within one OCR time budget. Vector
// previews (EMF, WMF) and icons too small to hold a line of text are left alone; without tesseract a warning says
// that pictures were not read.

import { posix } from 'node:path';
import type { ParserContext } from '../../parse-options.ts';
import { embeddedText, warnOnce } from '../../embedded-objects.ts';
import { findPart, readPartBytes, relatedParts } from './package.ts';
import type { OoxmlPackage, Relationship } from './package.ts';

/** Raster formats tesseract reads. */
const OCR_IMAGE_EXTENSIONS = new Set(['png', 'jpg', 'jpeg', 'gif', 'tif', 'tiff', 'bmp', 'webp']);
/** Pictures smaller than this are icons and bullets: no line of text fits in them. */
export const MIN_OCR_IMAGE_BYTES = 2048;

/** Pictures already read in a package (one picture shown on several slides is read once). */
const seen = new WeakMap<OoxmlPackage, Set<string>>();

/**
 * Text OCR found in one picture of the package (null when it is not read: a vector preview, an icon, a picture read
 * already, or past the limits).
 */
export async function pictureText(pkg: OoxmlPackage, rel: Relationship, context: ParserContext): Promise<string | null> {
  if (!context.options.ocr.enabled) return null;
  const read = seen.get(pkg) ?? new Set<string>();
  seen.set(pkg, read);
  const tree = context.embedding.tree;
  const extension = posix.extname(rel.target).slice(1).toLowerCase();
  const entry = findPart(pkg, rel.target);
  if (!entry || read.has(rel.target) || !OCR_IMAGE_EXTENSIONS.has(extension) || entry.uncompressedSize < MIN_OCR_IMAGE_BYTES) return null;
  read.add(rel.target);
  if (context.ocr.unavailable) {
    warnOnce(context, 'Pictures inside the document were not read: OCR is unavailable (disabled or tesseract not installed).');
    return null;
  }
  if (tree.imagesRemaining <= 0) {
    warnOnce(context, `OCR stopped after ${context.options.ocr.maxPages} pictures inside the document (limit); the rest were skipped.`);
    return null;
  }
  if (performance.now() >= tree.imagesDeadline) {
    warnOnce(context, `The OCR time budget of ${context.options.ocr.totalTimeoutMs} ms ran out; later pictures inside the document were skipped.`);
    return null;
  }
  tree.imagesRemaining--;
  const name = posix.basename(rel.target);
  return embeddedText(context, name, entry.uncompressedSize, async () => ({ bytes: (await readPartBytes(pkg, rel.target))!, name }));
}

/** The drawing parts of a worksheet (its pictures hang from them). */
export function sheetDrawings(pkg: OoxmlPackage, sheetPart: string): Promise<string[]> {
  return relatedParts(pkg, sheetPart, 'drawing');
}
