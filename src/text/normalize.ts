// Lossless text normalization shared by both lanes: Unicode NFKC, case folding, invisible-character
// removal and whitespace collapse. It must never expand, correct, stem or drop words.

/** Format characters that render as nothing (zero-width space/joiners, word joiner, BOM, soft hyphen). */
const INVISIBLE_CHARACTERS = /[\u00AD\u200B-\u200D\u2060\uFEFF]/gu;
const WHITESPACE_RUN = /\s+/gu;
const ASCII_ONLY = /^[\x00-\x7F]*$/;

/**
 * Case folding close to Unicode full folding: the lower-upper-lower round trip sends ß and ẞ to "ss"
 * and every sigma to one form, which plain toLowerCase leaves apart; NFKC recomposes what folding split.
 */
export function caseFold(s: string): string {
  if (ASCII_ONLY.test(s)) return s.toLowerCase();
  return s.toLowerCase().toUpperCase().toLowerCase().normalize('NFKC');
}

/** NFKC + case fold of a single word or token: no whitespace handling, keeps length roughly stable. */
export function normalizeToken(s: string): string {
  if (ASCII_ONLY.test(s)) return s.toLowerCase();
  return caseFold(s.normalize('NFKC')).replace(INVISIBLE_CHARACTERS, '');
}

/** NFKC + case fold + whitespace collapse (trimmed, single spaces). Idempotent. */
export function normalizeText(s: string): string {
  return normalizeToken(s).replace(WHITESPACE_RUN, ' ').trim();
}
