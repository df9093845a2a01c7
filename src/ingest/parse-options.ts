// Settings of one parse and the context every parser receives; defaults are exported constants.
// Nothing here reads the environment: the composition root passes settings in (src/config.ts).

import { tmpdir } from 'node:os';
import type { ParsedDocument, Truncation } from './parsed-document.ts';

/**
 * Upper bound on extracted characters per document (DOCUMENT_MAX_CHARS); text beyond it is dropped with a warning.
 * Twice the largest real document of the test corpus (a 1 MB CSV); 2 M characters are about 1,100 chunks.
 */
export const MAX_DOCUMENT_TEXT_CHARS = 2_000_000;
/** Pages read per document (DOCUMENT_MAX_PAGES): PDF pages and presentation slides; later ones are skipped with a warning. */
export const MAX_DOCUMENT_PAGES = 2_000;
/** Worksheets read per workbook (DOCUMENT_MAX_SHEETS). */
export const MAX_WORKBOOK_SHEETS = 256;
/** Cells read per workbook over all its sheets (DOCUMENT_MAX_CELLS); empty cells count, they cost reading too. */
export const MAX_WORKBOOK_CELLS = 1_000_000;
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
/** Levels of objects embedded in objects opened below the uploaded document (a docx in a pptx in an xlsx is 2). */
export const MAX_EMBEDDING_DEPTH = 3;
/** Embedded objects opened per uploaded document, over every level. */
export const MAX_EMBEDDED_OBJECTS = 64;
/** Bytes of embedded objects opened per uploaded document, over every level (each also passes its own guards). */
export const MAX_EMBEDDED_BYTES = 64 * 1024 * 1024;
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
  /** Aborted when an isolating parent gives up on the parse: no further child is started. */
  signal?: AbortSignal;
}

export interface ParseOptions {
  ocr?: Partial<OcrOptions>;
  maxTextChars?: number;
  maxPages?: number;
  maxSheets?: number;
  maxCells?: number;
}

export interface ResolvedParseOptions {
  ocr: OcrOptions;
  maxTextChars: number;
  maxPages: number;
  maxSheets: number;
  maxCells: number;
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
    maxPages: options.maxPages ?? MAX_DOCUMENT_PAGES,
    maxSheets: options.maxSheets ?? MAX_WORKBOOK_SHEETS,
    maxCells: options.maxCells ?? MAX_WORKBOOK_CELLS,
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

/** Objects embedded in the document: how deep this parse is, and what the whole tree may still open (shared). */
export interface EmbeddingState {
  /** 0 for the uploaded document, 1 for an object inside it, and so on. */
  depth: number;
  tree: {
    objectsRemaining: number;
    bytesRemaining: number;
    /** Images inside documents still to OCR (the OCR page limit of an image file, for the whole tree). */
    imagesRemaining: number;
    /** When OCR of images inside documents stops (performance.now() ms: the OCR time budget of one upload). */
    imagesDeadline: number;
  };
}

export interface ParserContext {
  /** The upload's name, used only as a hint (content decides the format). */
  filename: string;
  /** Format found by content detection. */
  format: { extension: string; mimeType: string };
  ocr: OcrState;
  options: ResolvedParseOptions;
  budget: TextBudget;
  /** Cells a workbook reader may still read (maxCells, shared by every sheet); below zero once one more was met. */
  cellsRemaining: number;
  /** Parsers add legible, non-fatal notes here; they end up in ParsedDocument.warnings. */
  warnings: string[];
  /** Per-document limits that cut this document short (noteLimit); each also has a warning. */
  truncations: Truncation[];
  embedding: EmbeddingState;
  /**
   * Parses an object embedded in this document (its bytes and its name, a hint as for uploads) one level down, under
   * the same text budget and OCR state; throws an IngestError like an upload would.
   */
  openEmbedded?: (bytes: Buffer, name: string) => Promise<ParsedDocument>;
}

export type Parser = (bytes: Buffer, context: ParserContext) => Promise<ParsedDocument>;

/** A context for one document; with `parent`, for an object embedded in it (sharing its text budget and OCR state). */
export function createContext(filename: string, format: ParserContext['format'], options: ResolvedParseOptions, parent: ParserContext | null = null): ParserContext {
  return {
    filename,
    format,
    ocr: parent?.ocr ?? { unavailable: false, failedPages: 0, recognisedPages: 0 },
    options,
    budget: parent?.budget ?? { remaining: options.maxTextChars, truncated: false },
    cellsRemaining: options.maxCells,
    warnings: [],
    truncations: [],
    embedding: parent
      ? { depth: parent.embedding.depth + 1, tree: parent.embedding.tree }
      : { depth: 0, tree: { objectsRemaining: MAX_EMBEDDED_OBJECTS, bytesRemaining: MAX_EMBEDDED_BYTES, imagesRemaining: options.ocr.maxPages, imagesDeadline: performance.now() + options.ocr.totalTimeoutMs } },
  };
}

/** Records, once per limit, that the document was cut short by it, with a legible warning (quality.warnings). */
export function noteLimit(context: ParserContext, limit: Truncation['limit'], max: number, warning: string): void {
  if (context.truncations.some((truncation) => truncation.limit === limit)) return;
  context.truncations.push({ limit, max });
  context.warnings.push(warning);
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
