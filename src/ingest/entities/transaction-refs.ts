// Finds transaction references: labelled ones ("Ref: TRX-88231", "Invoice Number: 42183017", "No. Rujukan:
// BNM/2020/15") and self-describing codes ("INV-2024-0001", "TXN20240101"). A value without a digit never counts.

import { wordStartMatches } from './boundary.ts';
import { MAX_REFERENCE_CHARS, MIN_REFERENCE_CHARS, MIN_UNSEPARATED_REFERENCE_CHARS } from './limits.ts';

const AFTER = '(?![\\p{L}\\p{N}])';
const H = '[ \\t]';

// A label that names a numbered thing ("No.", "ID", "#") is explicit even without a colon.
const NUMBERED = `(?:${H}*(?:no\\.?|number|num\\.?|nombor|id|#))`;
const REFERENCE_LABEL =
  `(?:transaction|txn|trans\\.?|payment|our|your|bank|customer|end-to-end)${H}+(?:ref(?:erence)?\\.?|id)${NUMBERED}?` +
  `|ref(?:erence)?\\.?${NUMBERED}?` +
  `|(?:no\\.?|nombor)${H}+(?:rujukan|ruj\\.?|invois|resit|pesanan|transaksi|cek|bil)` +
  `|ruj(?:ukan)?\\.?(?:${H}+(?:kami|tuan|anda|puan))?` +
  `|(?:invoice|invois|order|booking|receipt|resit|cheque|check|confirmation|tracking|purchase${H}+order|po|bill)${NUMBERED}`;
const LABELLED = new RegExp(
  `(${REFERENCE_LABEL})(?!\\p{L})${H}*([:#.\\-]?)${H}*(?:\\r?\\n${H}*)?([A-Z0-9][A-Z0-9/_.\\-]*)`,
  'giu',
);
const EXPLICIT_LABEL = new RegExp(`${NUMBERED}$|^(?:no|nombor)`, 'iu');

// Upper-case document-code prefixes followed by digits; the prefixes are the usual ones on invoices and slips.
const CODED = new RegExp(`(?:INV|PO|ORD|TXN|TRX|TRN|REF|RCPT|RCT|PAY)(?:[-/#]\\d[A-Z0-9/-]{2,}|\\d{4,}[A-Z0-9/-]*)${AFTER}`, 'gu');

const TRAILING_PUNCTUATION = /[./_-]+$/;

function acceptable(value: string, explicit: boolean): boolean {
  const minimum = explicit ? MIN_REFERENCE_CHARS : MIN_UNSEPARATED_REFERENCE_CHARS;
  return /\d/.test(value) && value.length >= minimum && value.length <= MAX_REFERENCE_CHARS;
}

export function findTransactionRefs(text: string, emit: (value: string) => boolean): void {
  for (const m of wordStartMatches(text, LABELLED)) {
    const value = m[3].replace(TRAILING_PUNCTUATION, '');
    const explicit = m[2] !== '' || EXPLICIT_LABEL.test(m[1]);
    if (acceptable(value, explicit) && !emit(value)) return;
  }
  for (const m of wordStartMatches(text, CODED)) if (!emit(m[0].replace(TRAILING_PUNCTUATION, ''))) return;
}
