// Straightens a scanned page before OCR: a page fed a few degrees askew loses words (a 5° skew cost a third of an
// invoice's words and 12 points of confidence here). The skew is the angle whose projection of the page's dark
// pixels gives the sharpest row profile (text lines line up), searched coarse then fine on a reduced copy; the
// full page is then turned back. It works on the grayscale PGM rasters pdftoppm writes for scanned PDF pages.

/** Skews searched, either way (degrees); a page turned further is a layout matter tesseract handles (90° turns). */
export const MAX_DESKEW_DEGREES = 10;
/** Skews smaller than this are left alone: tesseract reads them as well, and turning costs a little sharpness. */
export const MIN_DESKEW_DEGREES = 0.4;
/** Longest side of the copy the angle is estimated on (pixels). */
const ESTIMATE_SIDE = 900;
/** Gray levels under this are ink. */
const INK = 128;

export interface GrayImage {
  width: number;
  height: number;
  /** One byte per pixel, rows top to bottom. */
  pixels: Uint8Array;
}

/** A binary PGM (P5, 8-bit); null for anything else. */
export function readPgm(bytes: Buffer): GrayImage | null {
  let at = 0;
  const token = (): string | null => {
    for (;;) {
      while (at < bytes.length && /\s/u.test(String.fromCharCode(bytes[at]!))) at++;
      if (bytes[at] !== 0x23) break; // a comment runs to the end of its line
      while (at < bytes.length && bytes[at] !== 0x0a) at++;
    }
    const start = at;
    while (at < bytes.length && !/\s/u.test(String.fromCharCode(bytes[at]!))) at++;
    return at > start ? bytes.toString('latin1', start, at) : null;
  };
  if (token() !== 'P5') return null;
  const width = Number(token());
  const height = Number(token());
  const maxValue = Number(token());
  at++; // the single whitespace before the raster
  if (!Number.isInteger(width) || !Number.isInteger(height) || width <= 0 || height <= 0 || maxValue !== 255 || bytes.length - at < width * height) return null;
  return { width, height, pixels: bytes.subarray(at, at + width * height) };
}

export function writePgm(image: GrayImage): Buffer {
  return Buffer.concat([Buffer.from(`P5\n${image.width} ${image.height}\n255\n`, 'latin1'), image.pixels]);
}

/** Ink pixels of a reduced copy, as coordinates around its centre. */
function inkPoints(image: GrayImage): { xs: Float64Array; ys: Float64Array } {
  const step = Math.max(1, Math.ceil(Math.max(image.width, image.height) / ESTIMATE_SIDE));
  const xs: number[] = [];
  const ys: number[] = [];
  for (let y = 0; y < image.height; y += step) {
    for (let x = 0; x < image.width; x += step) {
      if (image.pixels[y * image.width + x]! < INK) {
        xs.push((x - image.width / 2) / step);
        ys.push((y - image.height / 2) / step);
      }
    }
  }
  return { xs: Float64Array.from(xs), ys: Float64Array.from(ys) };
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
  if (points.xs.length < 100) return 0;
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

/** The page straightened, with the skew found; the page itself when it is straight enough or not a PGM. */
export function deskew(bytes: Buffer): { bytes: Buffer; degrees: number } {
  const image = readPgm(bytes);
  if (!image) return { bytes, degrees: 0 };
  const degrees = estimateSkew(image);
  if (Math.abs(degrees) < MIN_DESKEW_DEGREES) return { bytes, degrees };
  return { bytes: writePgm(rotate(image, -degrees)), degrees };
}
