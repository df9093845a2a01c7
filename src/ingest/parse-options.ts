// Settings of one parse and the context every parser receives; defaults are exported constants.
// Nothing here reads the environment: the composition root passes settings in (src/config.ts).

import { tmpdir } from 'node:os';
import type { ParsedDocument } from './parsed-document.ts';

/** Upper bound on extracted characters per document; text beyond it is dropped with a warning. */
export const MAX_DOCUMENT_TEXT_CHARS = 64 * 1024 * 1024;
/** OCR languages asked of tesseract; those not installed are dropped with a warning. */
export const DEFAULT_OCR_LANGUAGES = 'eng+msa';
export const DEFAULT_TESSERACT_PATH = 'tesseract';
export const DEFAULT_PDFTOPPM_PATH = 'pdftoppm';
/** Pages (image frames or image-only PDF pages) OCR'd per document; the rest are skipped with a warning. */
export const MAX_OCR_PAGES = 20;
/** Wall-clock limit for one tesseract or pdftoppm run on one page. */
export const OCR_PAGE_TIMEOUT_MS = 30_000;
/** Wall-clock budget for all OCR of one document; pages left when it runs out are skipped with a warning. */
export const OCR_TOTAL_TIMEOUT_MS = 90_000;
/** Rasterization resolution for image-only PDF pages. */
export const OCR_PDF_DPI = 300;
/** Virtual-memory ceiling (ulimit -v) of every OCR child, so a decompression bomb kills the child, not the host. */
export const OCR_CHILD_MEMORY_LIMIT_BYTES = 1024 * 1024 * 1024;
/** Search path for bare binary names; children get this PATH instead of the service's environment. */
export const DEFAULT_CHILD_SEARCH_PATH = '/usr/local/bin:/usr/bin:/bin';

export interface OcrOptions {
  enabled: boolean;
  tesseractPath: string;
  pdftoppmPath: string;
  /** Tesseract language list, `+`-separated (eng+msa). */
  languages: string;
  maxPages: number;
  pageTimeoutMs: number;
  totalTimeoutMs: number;
  pdfDpi: number;
  childMemoryLimitBytes: number;
  tempDir: string;
  /** Told about every OCR child started and ended, so an isolating parent can kill orphans by pid. */
  onChildProcess?: (pid: number, running: boolean) => void;
}

export interface ParseOptions {
  ocr?: Partial<OcrOptions>;
  maxTextChars?: number;
}

export interface ResolvedParseOptions {
  ocr: OcrOptions;
  maxTextChars: number;
}

export function resolveParseOptions(options: ParseOptions = {}): ResolvedParseOptions {
  return {
    ocr: {
      enabled: true,
      tesseractPath: DEFAULT_TESSERACT_PATH,
      pdftoppmPath: DEFAULT_PDFTOPPM_PATH,
      languages: DEFAULT_OCR_LANGUAGES,
      maxPages: MAX_OCR_PAGES,
      pageTimeoutMs: OCR_PAGE_TIMEOUT_MS,
      totalTimeoutMs: OCR_TOTAL_TIMEOUT_MS,
      pdfDpi: OCR_PDF_DPI,
      childMemoryLimitBytes: OCR_CHILD_MEMORY_LIMIT_BYTES,
      tempDir: tmpdir(),
      ...options.ocr,
    },
    maxTextChars: options.maxTextChars ?? MAX_DOCUMENT_TEXT_CHARS,
  };
}

/** Characters still allowed for this document; shared by every part a parser reads. */
export interface TextBudget {
  remaining: number;
  truncated: boolean;
}

/** What happened to OCR during one parse, so an empty result can be explained legibly. */
export interface OcrState {
  /** OCR was needed but disabled or not installed. */
  unavailable: boolean;
  /** Pages whose OCR run failed (crash, timeout, unreadable image). */
  failedPages: number;
  /** Pages whose text came from OCR. */
  recognisedPages: number;
}

export interface ParserContext {
  /** The upload's name, used only as a hint (content decides the format). */
  filename: string;
  /** Format found by content detection. */
  format: { extension: string; mimeType: string };
  ocr: OcrState;
  options: ResolvedParseOptions;
  budget: TextBudget;
  /** Parsers add legible, non-fatal notes here; they end up in ParsedDocument.warnings. */
  warnings: string[];
}

export type Parser = (bytes: Buffer, context: ParserContext) => Promise<ParsedDocument>;

export function createContext(filename: string, format: ParserContext['format'], options: ResolvedParseOptions): ParserContext {
  return {
    filename,
    format,
    ocr: { unavailable: false, failedPages: 0, recognisedPages: 0 },
    options,
    budget: { remaining: options.maxTextChars, truncated: false },
    warnings: [],
  };
}

/** Takes as much of `text` as the budget allows; parsers stop reading once `budget.remaining` is 0. */
export function spendText(budget: TextBudget, text: string): string {
  if (text.length <= budget.remaining) {
    budget.remaining -= text.length;
    return text;
  }
  const kept = text.slice(0, budget.remaining);
  budget.remaining = 0;
  budget.truncated = true;
  return kept;
}
