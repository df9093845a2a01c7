// Finds monetary amounts with a currency: "RM15.3 juta", "RM 1,234.56", "USD 12.00", "EUR444,29", "$4.11",
// "Rs. 1,250", "1.5 bilion ringgit", "10 million dollars". A bare number is never reported as money.

import { wordStartMatches } from './boundary.ts';

const SPACE = '[ \\t\\u00a0]';
const AFTER = '(?![\\p{L}\\p{N}])';
// Digits with "," or "." groups; separators must be followed by digits, so no trailing punctuation and no backtracking blow-up.
const NUMBER = '\\d+(?:[.,]\\d+)*';
const SCALE =
  '[Jj]uta|JUTA|[Bb]ilion|BILION|[Bb]illion|BILLION|[Mm]illion|MILLION|[Tt]rillion|[Tt]rilion|[Rr]ibu|[Tt]housand|' +
  'bn|mn|mil|k|m';
const CURRENCY_BEFORE = 'RM|MYR|USD|US\\$|EUR|GBP|SGD|S\\$|AUD|A\\$|NZD|CAD|CHF|JPY|CNY|RMB|HKD|IDR|THB|PHP|INR|Rs\\.?|Rp\\.?|[$€£¥₹]';
const CURRENCY_AFTER = '[Rr]inggit|RINGGIT|[Dd]ollars?|[Ee]uros?|USD|EUR|MYR|SGD|GBP|INR|[Rr]upees?|[Yy]en|[Pp]ounds? sterling';

const PREFIXED = new RegExp(`(?:${CURRENCY_BEFORE})${SPACE}?${NUMBER}(?:${SPACE}?(?:${SCALE}))?${AFTER}`, 'gu');
// Starts only at the first digit of a number, so "1,2,3,..." is not rescanned from each digit (quadratic).
const SUFFIXED = new RegExp(`(?<![\\p{L}\\p{N}.,])${NUMBER}(?:${SPACE}?(?:${SCALE}))?${SPACE}+(?:${CURRENCY_AFTER})${AFTER}`, 'gu');

export function findMonetaryAmounts(text: string, emit: (value: string) => boolean): void {
  for (const m of wordStartMatches(text, PREFIXED)) if (!emit(m[0])) return;
  for (const m of text.matchAll(SUFFIXED)) if (!emit(m[0])) return;
}
