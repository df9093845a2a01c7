// Straightens a scanned page before OCR: a page fed a few degrees askew loses words (a 5° skew cost a third of an
// invoice's words and 12 points of confidence here). The skew is the angle whose projection of the page's dark
// pixels gives the sharpest row profile (text lines line up), searched coarse then fine on a reduced copy; the
// full page is then turned back. It works on netpbm rasters: the grayscale PGMs pdftoppm writes for scanned PDF
// pages, and what netpbm's converters make of image uploads (ocr.ts rasterizeImage).

/** Skews searched, either way (degrees); a page turned further is a layout matter tesseract handles (90° turns). */
export const MAX_DESKEW_DEGREES = 10;
/** Skews smaller than this are left alone: tesseract reads them as well, and turning costs a little sharpness. */
export const MIN_DESKEW_DEGREES = 0.4;
/** Longest side of the copy the angle is estimated on (pixels). */
const ESTIMATE_SIDE = 900;
/** Gray levels under this are ink. */
const INK = 128;
/** A page whose reduced copy is more ink than this is not dark text on a light ground. */
const MAX_INK_SHARE = 0.5;

export interface GrayImage {
  width: number;
  height: number;
  /** One byte per pixel, rows top to bottom. */
  pixels: Uint8Array;
}

/** Reads the whitespace-separated header tokens of a netpbm file (comments skipped) from `at`. */
function headerReader(bytes: Buffer): { token(): string | null; readonly at: number } {
  let at = 0;
  return {
    token() {
      for (;;) {
        while (at < bytes.length && /\s/u.test(String.fromCharCode(bytes[at]!))) at++;
        if (bytes[at] !== 0x23) break; // a comment runs to the end of its line
        while (at < bytes.length && bytes[at] !== 0x0a) at++;
      }
      const start = at;
      while (at < bytes.length && !/\s/u.test(String.fromCharCode(bytes[at]!))) at++;
      return at > start ? bytes.toString('latin1', start, at) : null;
    },
    get at() {
      return at + 1; // the single whitespace before the raster
    },
  };
}

/**
 * The first image of a binary netpbm file as gray levels: PBM (P4, bits, 1 is black), PGM (P5, 8-bit) or PPM (P6,
 * 8-bit RGB, turned to luma); null for anything else. `more` says whether another image follows (a multi-page
 * TIFF converts to several).
 */
export function readNetpbm(bytes: Buffer): { image: GrayImage; more: boolean } | null {
  const header = headerReader(bytes);
  const kind = header.token();
  if (kind !== 'P4' && kind !== 'P5' && kind !== 'P6') return null;
  const width = Number(header.token());
  const height = Number(header.token());
  const maxValue = kind === 'P4' ? 1 : Number(header.token());
  const at = header.at;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width <= 0 || height <= 0 || (kind !== 'P4' && maxValue !== 255)) return null;
  const rowBytes = kind === 'P4' ? Math.ceil(width / 8) : kind === 'P5' ? width : width * 3;
  const end = at + rowBytes * height;
  if (bytes.length < end) return null;
  const more = bytes.length > end + 1;
  if (kind === 'P5') return { image: { width, height, pixels: bytes.subarray(at, end) }, more };
  const pixels = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    const row = at + y * rowBytes;
    for (let x = 0; x < width; x++) {
      if (kind === 'P4') pixels[y * width + x] = (bytes[row + (x >> 3)]! >> (7 - (x & 7))) & 1 ? 0 : 255;
      else pixels[y * width + x] = Math.round(0.299 * bytes[row + 3 * x]! + 0.587 * bytes[row + 3 * x + 1]! + 0.114 * bytes[row + 3 * x + 2]!);
    }
  }
  return { image: { width, height, pixels }, more };
}

/** A binary PGM (P5, 8-bit); null for anything else. */
export function readPgm(bytes: Buffer): GrayImage | null {
  const read = bytes.subarray(0, 2).toString('latin1') === 'P5' ? readNetpbm(bytes) : null;
  return read?.image ?? null;
}

export function writePgm(image: GrayImage): Buffer {
  return Buffer.concat([Buffer.from(`P5\n${image.width} ${image.height}\n255\n`, 'latin1'), image.pixels]);
}

/** Ink pixels of a reduced copy, as coordinates around its centre, and how many pixels it sampled. */
function inkPoints(image: GrayImage): { xs: Float64Array; ys: Float64Array; sampled: number } {
  const step = Math.max(1, Math.ceil(Math.max(image.width, image.height) / ESTIMATE_SIDE));
  const xs: number[] = [];
  const ys: number[] = [];
  let sampled = 0;
  for (let y = 0; y < image.height; y += step) {
    for (let x = 0; x < image.width; x += step) {
      sampled++;
      if (image.pixels[y * image.width + x]! < INK) {
        xs.push((x - image.width / 2) / step);
        ys.push((y - image.height / 2) / step);
      }
    }
  }
  return { xs: Float64Array.from(xs), ys: Float64Array.from(ys), sampled };
}

/** How sharply the ink falls into rows when the page is turned back by `degrees` (sum of squared row counts). */
function sharpness(points: { xs: Float64Array; ys: Float64Array }, degrees: number, rows: Int32Array): number {
  const angle = (degrees * Math.PI) / 180;
  const sin = Math.sin(angle);
  const cos = Math.cos(angle);
  rows.fill(0);
  const offset = rows.length >> 1;
  for (let i = 0; i < points.xs.length; i++) {
    const row = Math.round(points.ys[i]! * cos - points.xs[i]! * sin) + offset;
    if (row >= 0 && row < rows.length) rows[row]!++;
  }
  let sum = 0;
  for (const count of rows) sum += count * count;
  return sum;
}

/** The page's skew in degrees (the turn `rotate` would have given a straight page), 0 when it has too little ink. */
export function estimateSkew(image: GrayImage): number {
  const points = inkPoints(image);
  // Too little ink to tell; or mostly ink (light text on a dark ground, a photograph): not a page to straighten.
  if (points.xs.length < 100 || points.xs.length > MAX_INK_SHARE * points.sampled) return 0;
  const rows = new Int32Array(2 * ESTIMATE_SIDE + 8);
  let best = 0;
  let bestScore = -1;
  const search = (from: number, to: number, step: number) => {
    for (let degrees = from; degrees <= to + 1e-9; degrees += step) {
      const score = sharpness(points, degrees, rows);
      if (score > bestScore) {
        bestScore = score;
        best = degrees;
      }
    }
  };
  search(-MAX_DESKEW_DEGREES, MAX_DESKEW_DEGREES, 1);
  search(best - 1, best + 1, 0.1);
  return Math.round(best * 10) / 10;
}

/** The image turned by `degrees` about its centre (nearest pixel; what turns in from outside is white). */
export function rotate(image: GrayImage, degrees: number): GrayImage {
  const angle = (degrees * Math.PI) / 180;
  const sin = Math.sin(angle);
  const cos = Math.cos(angle);
  const { width, height } = image;
  const pixels = new Uint8Array(width * height).fill(255);
  const cx = width / 2;
  const cy = height / 2;
  for (let y = 0; y < height; y++) {
    const dy = y - cy;
    for (let x = 0; x < width; x++) {
      const dx = x - cx;
      const sx = Math.round(cos * dx + sin * dy + cx);
      const sy = Math.round(-sin * dx + cos * dy + cy);
      if (sx >= 0 && sy >= 0 && sx < width && sy < height) pixels[y * width + x] = image.pixels[sy * width + sx]!;
    }
  }
  return { width, height, pixels };
}

/**
 * The page straightened (a PGM), with the skew found; the bytes themselves when the page is straight enough, or
 * not a single netpbm image (a multi-page file is left to tesseract page by page).
 */
export function deskew(bytes: Buffer): { bytes: Buffer; degrees: number } {
  const read = readNetpbm(bytes);
  if (!read || read.more) return { bytes, degrees: 0 };
  const image = read.image;
  const degrees = estimateSkew(image);
  if (Math.abs(degrees) < MIN_DESKEW_DEGREES) return { bytes, degrees };
  return { bytes: writePgm(rotate(image, -degrees)), degrees };
}
