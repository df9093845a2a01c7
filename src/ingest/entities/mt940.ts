// Reads the tagged fields of SWIFT MT940 statements (":25:" account, ":60F:" balances, ":61:" entries) for
// accounts, dates, amounts and references. Only text that carries MT940 tags is read; prose never is.

import type { EntityType } from '../../domain/entities.ts';

const MT940_TAG = /^:(?:25|28C|60[FM]|61|62[FM]):/m;
const FIELD = /^:(20|21|25|60[FM]|61|62[FM]|64|65):([^\r\n]*)/gm;
// [C|D]YYMMDD currency amount, as in ":60F:C200101EUR444,29".
const BALANCE = /^([CD])(\d{6})([A-Z]{3})(\d+,\d*)/;
// Value date, optional entry date MMDD, (reversal) credit/debit, funds code, amount, type code, references.
const STATEMENT_LINE = /^(\d{6})(\d{4})?(R?[CD])([A-Z])?(\d+,\d*)([NSF][A-Z0-9]{3})([^/]*)(?:\/\/(.*))?$/;
const NO_REFERENCE = 'NONREF';
const BIC_PREFIX = /^[A-Z0-9]{8}(?:[A-Z0-9]{3})?\//;
/** SWIFT years are two digits; 80-99 are read as 1980-1999. */
const CENTURY_PIVOT = 80;

export type EmitEntity = (type: EntityType, value: string) => void;

export function looksLikeMt940(text: string): boolean {
  return MT940_TAG.test(text);
}

/** YYMMDD as an ISO date, or null when the month or day is impossible. */
export function swiftDate(yymmdd: string): string | null {
  const yy = Number(yymmdd.slice(0, 2));
  const month = Number(yymmdd.slice(2, 4));
  const day = Number(yymmdd.slice(4, 6));
  if (month < 1 || month > 12 || day < 1 || day > 31) return null;
  const year = yy >= CENTURY_PIVOT ? 1900 + yy : 2000 + yy;
  return `${year}-${yymmdd.slice(2, 4)}-${yymmdd.slice(4, 6)}`;
}

function emitReference(raw: string | undefined, emit: EmitEntity): void {
  const value = (raw ?? '').trim();
  if (value !== '' && value !== NO_REFERENCE) emit('transaction_refs', value);
}

function emitDate(yymmdd: string, emit: EmitEntity): void {
  const iso = swiftDate(yymmdd);
  if (iso !== null) emit('dates', iso);
}

export function findMt940Entities(text: string, emit: EmitEntity): void {
  if (!looksLikeMt940(text)) return;
  let currency: string | null = null; // a ":61:" amount has no currency of its own: it is the statement's
  for (const m of text.matchAll(FIELD)) {
    const [, tag, value] = m;
    if (tag === '20' || tag === '21') emitReference(value, emit);
    else if (tag === '25') emit('account_numbers', value.trim().replace(BIC_PREFIX, ''));
    else if (tag === '61') {
      const line = STATEMENT_LINE.exec(value.trim());
      if (line === null) continue;
      emitDate(line[1], emit);
      if (currency !== null) emit('monetary_amounts', `${currency} ${line[5]}`);
      emitReference(line[7], emit);
      emitReference(line[8], emit);
    } else {
      const balance = BALANCE.exec(value.trim());
      if (balance === null) continue;
      currency = balance[3];
      emitDate(balance[2], emit);
      emit('monetary_amounts', `${currency} ${balance[4]}`);
    }
  }
}
