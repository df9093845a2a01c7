// Layout of a PDF page's text items into lines and paragraphs, and PDF date strings into ISO timestamps.
// Pure functions over pdf.js output; they never touch the document itself.

/** A vertical jump larger than this many line heights starts a new paragraph. */
export const PARAGRAPH_GAP_LINE_HEIGHTS = 1.6;
/** Vertical writing: the next glyph of a column sits at most this many glyph heights below the previous one. */
export const VERTICAL_STEP_LINE_HEIGHTS = 2;
/** Vertical writing: punctuation glyphs sit up to this many glyph heights right of the column axis. */
export const VERTICAL_AXIS_TOLERANCE = 0.6;
/** Vertical writing: columns further apart than this many glyph heights start a new paragraph. */
export const VERTICAL_PARAGRAPH_GAP_LINE_HEIGHTS = 3;
/** pdf.js splits vertical writing into runs of a few glyphs; longer runs are horizontal lines. */
const MAX_VERTICAL_RUN_CHARS = 3;

export interface TextItemLike {
  str: string;
  hasEOL?: boolean;
  transform?: number[];
  height?: number;
}

interface Line {
  text: string;
  x: number | null;
  y: number | null;
  /** Position of the last glyph, which a vertical column continues from. */
  lastY: number | null;
  height: number;
  vertical: boolean;
}

/** CJK characters and the punctuation (incl. vertical presentation forms) that vertical writing stacks in columns. */
const CJK_ONLY = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{P}\u3000-\u303f\ufe10-\ufe4f\uff00-\uffef\u30fc]+$/u;

function newLine(): Line {
  return { text: '', x: null, y: null, lastY: null, height: 0, vertical: false };
}

function splitLines(items: readonly TextItemLike[]): Line[] {
  const lines: Line[] = [];
  let current = newLine();
  for (const item of items) {
    if (item.str) {
      current.x ??= item.transform?.[4] ?? null;
      current.y ??= item.transform?.[5] ?? null;
      current.lastY = item.transform?.[5] ?? null;
      current.height = Math.max(current.height, Math.abs(item.height ?? item.transform?.[3] ?? 0));
      current.text += item.str;
    }
    if (item.hasEOL) {
      lines.push(current);
      current = newLine();
    }
  }
  lines.push(current);
  return lines.filter((line) => line.text.trim() !== '');
}

/** True when `next` continues the vertical column `line` (same axis, a glyph or two lower, short CJK runs). */
function continuesColumn(line: Line, next: Line): boolean {
  if (line.x === null || next.x === null || line.lastY === null || next.y === null) return false;
  if ([...next.text].length > MAX_VERTICAL_RUN_CHARS || (!line.vertical && [...line.text].length > MAX_VERTICAL_RUN_CHARS)) return false;
  const height = Math.max(line.height, next.height, 1);
  const step = line.lastY - next.y;
  return Math.abs(line.x - next.x) <= VERTICAL_AXIS_TOLERANCE * height && step > 0 && step <= VERTICAL_STEP_LINE_HEIGHTS * height
    && CJK_ONLY.test(line.text) && CJK_ONLY.test(next.text);
}

/** pdf.js reports each glyph of vertical CJK writing as its own line; columns are joined back into lines. */
function mergeVerticalColumns(lines: Line[]): Line[] {
  const merged: Line[] = [];
  for (const line of lines) {
    const previous = merged[merged.length - 1];
    if (previous && continuesColumn(previous, line)) {
      previous.text += line.text;
      previous.lastY = line.lastY;
      previous.vertical = true;
    } else {
      merged.push({ ...line });
    }
  }
  return merged;
}

function startsParagraph(previous: Line, line: Line): boolean {
  if (previous.y === null || line.y === null) return false;
  const height = Math.max(previous.height, line.height, 1);
  if (previous.vertical || line.vertical) return previous.x !== null && line.x !== null && Math.abs(previous.x - line.x) > VERTICAL_PARAGRAPH_GAP_LINE_HEIGHTS * height;
  const gap = previous.y - line.y;
  return gap < -height || gap > PARAGRAPH_GAP_LINE_HEIGHTS * height;
}

/**
 * XFA pages come without positions or line ends: each item is a text run of the form, so runs are lines unless
 * whitespace at their edge shows they continue one another.
 */
function layoutPositionless(items: readonly TextItemLike[]): string {
  let text = '';
  let previous = '';
  for (const { str } of items) {
    if (!str) continue;
    const joins = previous === '' || /\s$/u.test(previous) || /^\s/u.test(str);
    text += joins ? str : `\n${str}`;
    previous = str;
  }
  return text.replace(/[ \t]+\n/gu, '\n').replace(/[ \t]{2,}/gu, ' ').trim();
}

/** Page text with lines joined by \n and paragraphs (large vertical gaps, column jumps) by a blank line. */
export function layoutPageText(items: readonly TextItemLike[]): string {
  if (items.length > 0 && items.every((item) => item.transform === undefined)) return layoutPositionless(items);
  const lines = mergeVerticalColumns(splitLines(items));
  let text = '';
  for (const [index, line] of lines.entries()) {
    if (index > 0) text += startsParagraph(lines[index - 1]!, line) ? '\n\n' : '\n';
    text += line.text.replace(/\s+$/u, '');
  }
  return text.trim();
}

/** ISO 8601 form of a PDF date ("D:20090401163925-07'00'"), or null when it does not parse. */
export function pdfDateToIso(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const m = /^(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?\s*([Zz+-])?(\d{2})?'?(\d{2})?'?/u.exec(value.trim());
  if (!m) return null;
  const [, y, mo = '01', d = '01', h = '00', mi = '00', s = '00', sign, oh = '00', om = '00'] = m;
  const offset = sign === '+' || sign === '-' ? `${sign}${oh}:${om}` : 'Z';
  const time = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s}${offset}`);
  return Number.isNaN(time) ? null : new Date(time).toISOString();
}
