// Finds bank account numbers: IBANs (checked against each country's IBAN length), labelled numbers
// ("Account No.: 1234-5678-90", "No. Akaun 1234-5678-9012") and masked numbers ("XXXX-XXXX-1234").
// It never reports an unlabelled plain number: phone, identity-card and invoice numbers look the same.

import { wordStartMatches } from './boundary.ts';
import { MAX_ACCOUNT_NUMBER_CHARS, MIN_ACCOUNT_NUMBER_DIGITS } from './limits.ts';

/** IBAN length per country (ISO 13616 registry, the countries most likely to appear here). */
export const IBAN_LENGTHS: Readonly<Record<string, number>> = {
  AD: 24, AE: 23, AT: 20, BE: 16, BG: 22, BH: 22, CH: 21, CY: 28, CZ: 24, DE: 22, DK: 18, EE: 20, EG: 29,
  ES: 24, FI: 18, FR: 27, GB: 22, GR: 27, HR: 21, HU: 28, IE: 22, IL: 23, IS: 26, IT: 27, JO: 30, KW: 30,
  LI: 21, LT: 20, LU: 20, LV: 21, MC: 27, MT: 31, MU: 30, NL: 18, NO: 15, PK: 24, PL: 28, PT: 25, QA: 29,
  RO: 24, SA: 24, SE: 24, SI: 19, SK: 24, SM: 27, TR: 26, UA: 29,
};

const AFTER = '(?![\\p{L}\\p{N}])';

const IBAN = new RegExp(`[A-Z]{2}\\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?${AFTER}`, 'gu');

// Each step eats one character, and a separator must be followed by a digit or mask: no nested ambiguity.
const ACCOUNT_VALUE = '[\\dXx*•](?:[\\dXx*•]|[ -](?=[\\dXx*•])){3,60}';
const ACCOUNT_LABEL =
  '(?:bank[ \\t]+)?(?:account|acct\\.?|a/c)(?:[ \\t]+(?:no\\.?|number|num\\.?|#))?' +
  '|(?:no\\.?|nombor|nom\\.?)[ \\t]+akaun(?:[ \\t]+bank)?' +
  '|akaun[ \\t]+(?:no\\.?|nombor)' +
  // only payment cards: "Identity Card No." and Malay "No. Kad Pengenalan" label identity numbers
  '|(?:credit|debit|atm|bank)[ \\t]+card[ \\t]+(?:no\\.?|number)|no\\.?[ \\t]+kad[ \\t]+(?:kredit|debit)';
const LABELLED = new RegExp(
  `(?:${ACCOUNT_LABEL})[ \\t]*[:#.\\-]?[ \\t]*(?:\\r?\\n[ \\t]*)?(${ACCOUNT_VALUE})${AFTER}`,
  'giu',
);

const MASKED = /(?:(?:[Xx*•]{2,}[ -]?){1,4}\d{3,6}|\d{4,6}[Xx*•]{4,}\d{3,4})(?![\p{L}\p{N}*•])/gu;
/** What every masked number holds: most texts have no two mask characters in a row and skip that scan. */
const MASK_PAIR = /[Xx*•]{2}/;

const countDigitsOrMasks = (value: string): number => (value.match(/[\dXx*•]/g) ?? []).length;
const countDigits = (value: string): number => (value.match(/\d/g) ?? []).length;

export function isPlausibleIban(candidate: string): boolean {
  const compact = candidate.replace(/ /g, '');
  return IBAN_LENGTHS[compact.slice(0, 2)] === compact.length;
}

function plausibleAccountNumber(value: string): boolean {
  return (
    value.length <= MAX_ACCOUNT_NUMBER_CHARS &&
    countDigitsOrMasks(value) >= MIN_ACCOUNT_NUMBER_DIGITS &&
    countDigits(value) >= MIN_ACCOUNT_NUMBER_DIGITS / 2
  );
}

export function findAccountNumbers(text: string, emit: (value: string) => boolean): void {
  for (const m of wordStartMatches(text, IBAN)) if (isPlausibleIban(m[0]) && !emit(m[0])) return;
  for (const m of wordStartMatches(text, LABELLED)) {
    const value = m[1].trim();
    if (plausibleAccountNumber(value) && !emit(value)) return;
  }
  if (!MASK_PAIR.test(text)) return;
  for (const m of wordStartMatches(text, MASKED, '*•')) if (plausibleAccountNumber(m[0]) && !emit(m[0])) return;
}
