// Finds calendar dates written in English or Malay ("31 December 2010", "31 Disember 2010", "Dec 31, 2010",
// "Mei 2018", "31/12/2010", "2010-12-31"). Values keep their written form; impossible days are rejected.

import { wordStartMatches } from './boundary.ts';

const MONTH_NAMES: readonly string[] = [
  // English
  'January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November',
  'December', 'Jan', 'Feb', 'Mar', 'Apr', 'Jun', 'Jul', 'Aug', 'Sept', 'Sep', 'Oct', 'Nov', 'Dec',
  // Malay
  'Januari', 'Februari', 'Mac', 'Mei', 'Julai', 'Ogos', 'Oktober', 'Disember', 'Ogo', 'Okt', 'Dis',
];

// Longest first so "Disember" is not read as "Dis" + "ember".
const MONTH = [...new Set(MONTH_NAMES)].sort((a, b) => b.length - a.length).join('|');
const SPACE = '[ \\t\\u00a0]';
const YEAR = '(?:19|20)\\d{2}';
const ORDINAL = '(?:st|nd|rd|th|hb\\.?|haribulan)?';
const AFTER = '(?![\\p{L}\\p{N}])';

// Day-month-year, month-day-year and month-year in one pass; `i` because letters and notices shout in capitals.
const WORDY_DATE = new RegExp(
  '(?:' +
    `(\\d{1,2})${ORDINAL}(?:${SPACE}+|${SPACE}*[-/]${SPACE}*)(?:${MONTH})\\.?(?:${SPACE}*,?${SPACE}*|${SPACE}*[-/]${SPACE}*)${YEAR}` +
    `|(?:${MONTH})\\.?${SPACE}+(\\d{1,2})(?:st|nd|rd|th)?${SPACE}*,?${SPACE}*${YEAR}` +
    `|(?:${MONTH})\\.?,?${SPACE}+${YEAR}` +
    `)${AFTER}`,
  'giu',
);

const NUMERIC_DMY = /(?<![\p{L}\p{N}./-])(\d{1,2})([/.-])(\d{1,2})\2((?:19|20)\d{2})(?![\p{L}\p{N}]|[./-]\d)/gu;
const NUMERIC_YMD = /(?<![\p{L}\p{N}./-])((?:19|20)\d{2})([/.-])(\d{1,2})\2(\d{1,2})(?![\p{L}\p{N}]|[./-]\d)/gu;

/** Every date above holds a year of this form: a text without one has no date, and the scans are not run over it. */
const ANY_YEAR = new RegExp(YEAR);

const MAX_DAY = 31;
const MAX_MONTH = 12;

const validDay = (day: number): boolean => day >= 1 && day <= MAX_DAY;

/** dd/mm/yyyy or mm/dd/yyyy: both parts must be plausible and at least one must be a month. */
function plausibleDayMonth(a: number, b: number): boolean {
  return validDay(a) && validDay(b) && (a <= MAX_MONTH || b <= MAX_MONTH);
}

export function findDates(text: string, emit: (value: string) => boolean): void {
  if (!ANY_YEAR.test(text)) return;
  for (const m of wordStartMatches(text, WORDY_DATE)) {
    const day = m[1] ?? m[2];
    if (day !== undefined && !validDay(Number(day))) continue;
    if (!emit(m[0])) return;
  }
  for (const m of text.matchAll(NUMERIC_DMY)) {
    if (plausibleDayMonth(Number(m[1]), Number(m[3])) && !emit(m[0])) return;
  }
  for (const m of text.matchAll(NUMERIC_YMD)) {
    const month = Number(m[3]);
    if (month >= 1 && month <= MAX_MONTH && validDay(Number(m[4])) && !emit(m[0])) return;
  }
}
