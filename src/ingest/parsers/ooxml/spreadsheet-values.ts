// Cell-value rendering for SpreadsheetML: which number formats are dates, and how a serial date becomes ISO text.
// Pure functions over strings; it never evaluates formulas or applies number formats other than dates.

/** Built-in number format ids that render as dates or times (ECMA-376 Part 1, 18.8.30, plus the CJK date ids). */
const BUILTIN_DATE_FORMATS = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 45, 46, 47, 50, 51, 52, 53, 54, 55, 56, 57, 58]);
const MS_PER_DAY = 86_400_000;
/** Day zero of the 1900 date system as Excel counts it (it keeps Lotus's phantom 1900-02-29, hence 30 December). */
const EPOCH_1900 = Date.UTC(1899, 11, 30);
const EPOCH_1904 = Date.UTC(1904, 0, 1);
/** Serials outside this range are not rendered as dates (Excel's own limits: 1900-01-01 to 9999-12-31). */
const MAX_DATE_SERIAL = 2_958_465;

export function isDateFormatCode(code: string): boolean {
  const stripped = code
    .replace(/"[^"]*"/gu, '')
    .replace(/\\./gu, '')
    .replace(/\[[^\]]*\]/gu, '')
    .replace(/_.|\*./gu, '');
  return /[dmyhs]/iu.test(stripped) && !/^general$/iu.test(stripped.trim());
}

export function isDateFormat(numFmtId: number, customCodes: ReadonlyMap<number, string>): boolean {
  const custom = customCodes.get(numFmtId);
  return custom !== undefined ? isDateFormatCode(custom) : BUILTIN_DATE_FORMATS.has(numFmtId);
}

/** ISO rendering of an Excel serial date: date only when there is no time part, time only below one day. */
export function serialToIso(serial: number, date1904: boolean): string | null {
  if (!Number.isFinite(serial) || serial < 0 || serial > MAX_DATE_SERIAL) return null;
  const ms = Math.round((date1904 ? EPOCH_1904 : EPOCH_1900) + serial * MS_PER_DAY);
  const iso = new Date(ms).toISOString();
  const hasTime = Math.abs(serial - Math.floor(serial)) > 1e-9;
  if (serial < 1 && !date1904) return iso.slice(11, 19);
  return hasTime ? iso.slice(0, 19) : iso.slice(0, 10);
}

/** Strips the &-codes of a header/footer string (&L, &C, &R, &P, &"Font,Bold", &12, &K00FF00) and keeps its text. */
export function headerFooterText(raw: string): string {
  return raw
    .replace(/&&/gu, '\u0000')
    .replace(/&"[^"]*"/gu, ' ')
    .replace(/&K[0-9A-Fa-f]{6}/gu, '')
    .replace(/&\d+/gu, '')
    .replace(/&[LCRPNDTZFAGBIUSEXY]/gu, ' ')
    .replace(/\u0000/gu, '&')
    .replace(/\s+/gu, ' ')
    .trim();
}
