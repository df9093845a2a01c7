// OCR through the tesseract CLI, PDF page rasterization through pdftoppm and image conversion through netpbm, each
// a child process with a timeout and a memory ceiling. It never runs a shell command built from input, never
// inherits the service's environment, and never leaves a child running after its deadline.

import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { access, constants, mkdtemp, open, readdir, rm, writeFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { DEFAULT_CHILD_SEARCH_PATH } from './parse-options.ts';
import type { OcrOptions } from './parse-options.ts';
import { tempUnavailable } from './errors.ts';
import { readTesseractTsv, tsvPagesStarted } from './ocr-tsv.ts';
import type { RecognizedPage } from './ocr-tsv.ts';

/** Output kept from one child; more means something is wrong (a page of text is a few KiB). */
export const MAX_CHILD_OUTPUT_BYTES = 16 * 1024 * 1024;
/** Diagnostic output kept from one child. */
export const MAX_CHILD_STDERR_CHARS = 64 * 1024;
/** Time allowed for `tesseract --list-langs`. */
export const LIST_LANGS_TIMEOUT_MS = 10_000;
/** Longest raster side for a PDF page; larger pages are scaled down to it instead of rendered at full resolution. */
export const MAX_RASTER_SIDE_PIXELS = 6000;
/** Tesseract page segmentation mode 3: fully automatic layout analysis (pages, columns, rotated pages). */
export const TESSERACT_PAGE_SEGMENTATION_MODE = '3';
/** Mode 11: as much text as possible in no particular order, for images without a page layout. */
export const TESSERACT_SPARSE_TEXT_MODE = '11';
/** Mean word confidence (0 to 100) under which a page's OCR text is doubted: it gets a quality warning. */
export const LOW_OCR_CONFIDENCE = 60;


export interface ChildOutcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** True when `stopWhen` ended the child on purpose. */
  stopped: boolean;
}

interface ChildRun {
  timeoutMs: number;
  memoryLimitBytes: number;
  /** The child's standard output goes to this file instead (at most `maxFileBytes`: a child writing more is stopped). */
  stdoutFile?: { path: string; maxFileBytes: number };
  onChildProcess?: (pid: number, running: boolean) => void;
  /** Once aborted, no child is started any more (runChild throws the abort reason instead). */
  signal?: AbortSignal;
  /** Checked on every stdout chunk; returning true ends the child early (its output so far is kept). */
  stopWhen?: (stdoutSoFar: string) => boolean;
}

/**
 * Runs `binary args` under `ulimit -v` with a fixed, minimal environment. The shell only applies the limit and then
 * execs the binary with its arguments passed as positional parameters, never interpolated.
 */
export async function runChild(binary: string, args: string[], run: ChildRun): Promise<ChildOutcome> {
  run.signal?.throwIfAborted();
  const limitKb = String(Math.floor(run.memoryLimitBytes / 1024));
  // ulimit -f counts blocks of 512 bytes; unlimited when the output is piped to us (and capped as it is read).
  const fileBlocks = run.stdoutFile ? String(Math.ceil(run.stdoutFile.maxFileBytes / 512)) : 'unlimited';
  const output = run.stdoutFile ? await open(run.stdoutFile.path, 'w') : null;
  try {
    const child = spawn('/bin/sh', ['-c', 'ulimit -v "$1" 2>/dev/null; ulimit -f "$2" 2>/dev/null; shift 2; exec "$@"', 'sh', limitKb, fileBlocks, binary, ...args], {
      env: { PATH: DEFAULT_CHILD_SEARCH_PATH, OMP_THREAD_LIMIT: '1', LC_ALL: 'C' },
      stdio: ['ignore', output ? output.fd : 'pipe', 'pipe'],
    });
    // Watched before anything is awaited: a child that ends meanwhile would end unheard.
    return watchChild(child, run);
  } finally {
    await output?.close(); // the child holds its own copy of the descriptor
  }
}

function watchChild(child: ChildProcess, run: ChildRun): Promise<ChildOutcome> {
  if (child.pid !== undefined) run.onChildProcess?.(child.pid, true);
  return new Promise((resolve, reject) => {
    const outcome: ChildOutcome = { code: null, signal: null, stdout: '', stderr: '', timedOut: false, stopped: false };
    let outBytes = 0;
    const stop = (): void => {
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => {
      outcome.timedOut = true;
      stop();
    }, run.timeoutMs);
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      outBytes += Buffer.byteLength(chunk);
      if (outBytes > MAX_CHILD_OUTPUT_BYTES) return stop();
      outcome.stdout += chunk;
      if (run.stopWhen?.(outcome.stdout)) {
        outcome.stopped = true;
        stop();
      }
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      if (outcome.stderr.length < MAX_CHILD_STDERR_CHARS) outcome.stderr += chunk;
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (child.pid !== undefined) run.onChildProcess?.(child.pid, false);
      resolve({ ...outcome, code, signal });
    });
  });
}

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Absolute path of an executable given by path or bare name (searched on the children's PATH), or null when absent. */
export async function resolveBinary(nameOrPath: string): Promise<string | null> {
  if (nameOrPath.includes('/')) return (await isExecutable(nameOrPath)) && isAbsolute(nameOrPath) ? nameOrPath : null;
  for (const dir of DEFAULT_CHILD_SEARCH_PATH.split(':')) {
    const candidate = join(dir, nameOrPath);
    if (await isExecutable(candidate)) return candidate;
  }
  return null;
}

const languageCache = new Map<string, Promise<string[]>>();

/** Languages the tesseract at `binary` has installed (cached per binary). */
export function installedLanguages(binary: string, options: OcrOptions): Promise<string[]> {
  let cached = languageCache.get(binary);
  if (!cached) {
    const run = { timeoutMs: LIST_LANGS_TIMEOUT_MS, memoryLimitBytes: options.childMemoryLimitBytes, onChildProcess: options.onChildProcess, signal: options.signal };
    cached = runChild(binary, ['--list-langs'], run).then((outcome) =>
      `${outcome.stdout}\n${outcome.stderr}`
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => /^[A-Za-z0-9_]+$/u.test(line) && line !== 'osd'),
    );
    cached.catch(() => languageCache.delete(binary));
    languageCache.set(binary, cached);
  }
  return cached;
}

export interface OcrEngine {
  tesseract: string;
  pdftoppm: string | null;
  /** Languages actually used, `+`-separated. */
  languages: string;
}

/** The engine to use, or a warning saying why OCR is unavailable; missing languages are warned about and dropped. */
export async function prepareOcr(options: OcrOptions, warnings: string[]): Promise<OcrEngine | null> {
  if (!options.enabled) {
    warnings.push('OCR is disabled; image content was not recognised.');
    return null;
  }
  const tesseract = await resolveBinary(options.tesseractPath);
  if (!tesseract) {
    warnings.push(`OCR unavailable: tesseract was not found (${options.tesseractPath}); image content was not recognised.`);
    return null;
  }
  const installed = await installedLanguages(tesseract, options).catch(() => [] as string[]);
  const requested = options.languages.split('+').filter(Boolean);
  const usable = requested.filter((lang) => installed.includes(lang));
  const missing = requested.filter((lang) => !installed.includes(lang));
  if (missing.length > 0) warnings.push(`OCR languages not installed and skipped: ${missing.join(', ')}.`);
  const languages = usable.length > 0 ? usable.join('+') : installed.includes('eng') ? 'eng' : (installed[0] ?? '');
  if (!languages) {
    warnings.push('OCR unavailable: tesseract has no language data installed.');
    return null;
  }
  return { tesseract, pdftoppm: await resolveBinary(options.pdftoppmPath), languages };
}

export class OcrRunError extends Error {
  readonly reason: 'timeout' | 'unreadable_image' | 'failed';
  constructor(reason: 'timeout' | 'unreadable_image' | 'failed', message: string) {
    super(message);
    this.name = 'OcrRunError';
    this.reason = reason;
  }
}

function failureOf(tool: string, outcome: ChildOutcome): OcrRunError {
  if (outcome.timedOut) return new OcrRunError('timeout', `${tool} timed out`);
  if (/cannot be read|pixRead|Unsupported image type|Error in findFileFormat|can't open/iu.test(outcome.stderr)) {
    return new OcrRunError('unreadable_image', `${tool} could not read the image`);
  }
  return new OcrRunError('failed', `${tool} failed (exit ${outcome.code ?? outcome.signal})`);
}

/** Runs tesseract once in one page segmentation mode, reading its TSV output (text and word confidences). */
async function runTesseract(engine: OcrEngine, imagePath: string, options: OcrOptions, maxPages: number, timeoutMs: number, psm: string): Promise<RecognizedPage[]> {
  const args = [imagePath, 'stdout', '-l', engine.languages, '--psm', psm, 'tsv'];
  const outcome = await runChild(engine.tesseract, args, {
    timeoutMs,
    memoryLimitBytes: options.childMemoryLimitBytes,
    onChildProcess: options.onChildProcess,
    signal: options.signal,
    stopWhen: (out) => tsvPagesStarted(out) > maxPages,
  });
  if (!outcome.stopped && outcome.code !== 0) throw failureOf('tesseract', outcome);
  const pages = readTesseractTsv(outcome.stdout).slice(0, maxPages);
  return pages.length > 0 ? pages : [{ text: '', confidence: null, words: 0 }];
}

/** How much a reading of a page is worth: its words weighted by their confidence. */
const worth = (page: RecognizedPage): number => (page.confidence ?? 0) * page.words;

/**
 * Recognises every frame of an image file (a multi-page TIFF gives one entry per page), stopping after `maxPages`.
 * The layout decides the segmentation: full page analysis first (TESSERACT_PAGE_SEGMENTATION_MODE); when it finds
 * no text or only text it doubts on every page (a label, a logo, scattered fields), sparse-text mode reads the
 * image again within what is left of `timeoutMs`, and each page keeps the better reading.
 */
export async function recognizeImageFile(engine: OcrEngine, imagePath: string, options: OcrOptions, maxPages: number, timeoutMs: number): Promise<RecognizedPage[]> {
  const started = performance.now();
  const pages = await runTesseract(engine, imagePath, options, maxPages, timeoutMs, TESSERACT_PAGE_SEGMENTATION_MODE);
  if (pages.some((page) => page.words > 0 && (page.confidence ?? 0) >= LOW_OCR_CONFIDENCE)) return pages;
  const left = timeoutMs - (performance.now() - started);
  if (left < 1) return pages;
  try {
    const sparse = await runTesseract(engine, imagePath, options, maxPages, left, TESSERACT_SPARSE_TEXT_MODE);
    return pages.map((page, index) => (sparse[index] && worth(sparse[index]) > worth(page) ? sparse[index] : page));
  } catch {
    return pages; // the first reading stands
  }
}

/** Renders one PDF page to a grayscale PGM in `dir` (PNG encoding costs more than the OCR of small pages) and returns its path. */
export async function rasterizePdfPage(
  engine: OcrEngine,
  pdfPath: string,
  pageNumber: number,
  longSidePoints: number,
  dir: string,
  options: OcrOptions,
  timeoutMs: number,
): Promise<string> {
  if (!engine.pdftoppm) throw new OcrRunError('failed', 'pdftoppm is not installed');
  const pixels = (longSidePoints / 72) * options.pdfDpi;
  const size = pixels > MAX_RASTER_SIDE_PIXELS ? ['-scale-to', String(MAX_RASTER_SIDE_PIXELS)] : ['-r', String(options.pdfDpi)];
  const prefix = join(dir, `page${pageNumber}`);
  const args = ['-f', String(pageNumber), '-l', String(pageNumber), ...size, '-gray', pdfPath, prefix];
  const outcome = await runChild(engine.pdftoppm, args, {
    timeoutMs,
    memoryLimitBytes: options.childMemoryLimitBytes,
    onChildProcess: options.onChildProcess,
    signal: options.signal,
  });
  if (outcome.code !== 0) throw failureOf('pdftoppm', outcome);
  const produced = (await readdir(dir)).find((name) => name.startsWith(`page${pageNumber}-`) && name.endsWith('.pgm'));
  if (!produced) throw new OcrRunError('failed', 'pdftoppm produced no image');
  return join(dir, produced);
}

/** netpbm's reader of each image format it converts (WebP has none: such uploads go to tesseract as they are). */
export const NETPBM_READERS: Readonly<Record<string, string>> = { png: 'pngtopnm', jpg: 'jpegtopnm', tif: 'tifftopnm', gif: 'giftopnm', bmp: 'bmptopnm' };
/** Largest raster a conversion may write: an RGB image of MAX_RASTER_SIDE_PIXELS square (larger ones are left as they are). */
export const MAX_CONVERTED_RASTER_BYTES = MAX_RASTER_SIDE_PIXELS * MAX_RASTER_SIDE_PIXELS * 3 + 64;

/**
 * Converts an image upload to a netpbm raster in `dir` (netpbm's reader for its format, in a memory- and
 * output-limited child), so it can be straightened before OCR; null when netpbm is not installed, the format has
 * no reader, or the conversion fails (the image then goes to tesseract as it is).
 */
export async function rasterizeImage(imagePath: string, extension: string, dir: string, options: OcrOptions, timeoutMs: number): Promise<string | null> {
  const reader = NETPBM_READERS[extension];
  const binary = reader ? await resolveBinary(reader) : null;
  if (!binary) return null;
  const path = join(dir, 'image.pnm');
  const outcome = await runChild(binary, [imagePath], {
    timeoutMs,
    memoryLimitBytes: options.childMemoryLimitBytes,
    onChildProcess: options.onChildProcess,
    signal: options.signal,
    stdoutFile: { path, maxFileBytes: MAX_CONVERTED_RASTER_BYTES },
  });
  return outcome.code === 0 ? path : null;
}

/** Runs `work` with a private temporary directory that is always removed afterwards. */
export async function withTempDir<T>(parent: string, work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(parent, 'ingest-ocr-')).catch((error: unknown) => {
    throw tempUnavailable(error);
  });
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function writeTempFile(dir: string, name: string, bytes: Uint8Array): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, bytes);
  return path;
}

/** Tesseract output tidied into paragraphs: trailing spaces dropped, runs of blank lines collapsed to one. */
export function tidyOcrText(text: string): string {
  return text
    .replace(/[ \t]+$/gmu, '')
    .replace(/\n{3,}/gu, '\n\n')
    .trim();
}
