// Turns a matched piece of text into the entity value users see and filter on: trimmed, one space
// between words, no dangling punctuation. It must never rewrite the words themselves (no translation).

import { MAX_ENTITY_CHARS } from './limits.ts';

const WHITESPACE_RUN = /\s+/g;
const SPACE_BEFORE_COMMA = / ,/g;
const LEADING_JUNK = /^[\s,;:.\-–—(]+/;
// A trailing period stays when it closes an abbreviation ("Sdn. Bhd.", "Inc.", "Jln."), see below.
const TRAILING_JUNK = /[\s,;:\-–—]+$/;
const TRAILING_ABBREVIATION = /(?:^|[\s.,])(?:\p{Lu}|Bhd|Sdn|Inc|Ltd|Corp|Co|Jln|Lrg|Tmn|Pte|Pty|Jr|Sr|St|Ave|Rd|Bros|[BNS]\.[VA])\.$/u;

function balanceParentheses(value: string): string {
  const opens = value.split('(').length - 1;
  const closes = value.split(')').length - 1;
  if (closes > opens && value.endsWith(')')) return value.slice(0, -1).trimEnd();
  if (opens > closes && value.startsWith('(')) return value.slice(1).trimStart();
  return value;
}

/** The display form of an entity value, or '' when nothing usable remains or it exceeds MAX_ENTITY_CHARS. */
export function normalizeEntityValue(raw: string): string {
  let value = raw.replace(WHITESPACE_RUN, ' ').replace(SPACE_BEFORE_COMMA, ',').replace(LEADING_JUNK, '').replace(TRAILING_JUNK, '');
  if (value.endsWith('.') && !TRAILING_ABBREVIATION.test(value)) value = value.slice(0, -1).trimEnd();
  value = balanceParentheses(value);
  return value.length > MAX_ENTITY_CHARS ? '' : value;
}

/** Two values that differ only in letter case are one entity ("BANK NEGARA MALAYSIA" = "Bank Negara Malaysia"). */
export function entityKey(value: string): string {
  return value.toLocaleLowerCase('en');
}
