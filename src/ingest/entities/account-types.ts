// Finds kinds of bank account ("savings account", "akaun simpanan", "fixed deposit", "simpanan tetap") and
// reports each as its lower-case dictionary form. Economic "current account" (surplus, deficit) is not one.

import { wordStartMatches } from './boundary.ts';

export const ACCOUNT_TYPE_PHRASES: readonly string[] = [
  // English
  'savings account', 'saving account', 'current account', 'checking account', 'chequing account', 'cheque account',
  'fixed deposit account', 'fixed deposit', 'term deposit', 'time deposit', 'call deposit', 'deposit account',
  'investment account', 'joint account', 'foreign currency account', 'money market account', 'trust account',
  'escrow account', 'payroll account', 'salary account', 'business account', 'corporate account',
  'student account', 'retirement account', 'loan account', 'financing account', 'credit card account',
  'islamic savings account', 'mudharabah account', 'wadiah account',
  // Malay
  'akaun simpanan tetap', 'akaun deposit tetap', 'akaun simpanan', 'akaun semasa', 'simpanan tetap', 'deposit tetap',
  'akaun deposit', 'akaun pelaburan', 'akaun bersama', 'akaun mata wang asing', 'akaun gaji', 'akaun perniagaan',
  'akaun amanah', 'akaun pinjaman', 'akaun pembiayaan', 'akaun kad kredit', 'akaun wadiah', 'akaun mudharabah',
  // Dutch (MT940 statements from Dutch banks)
  'betaalrekening', 'spaarrekening', 'rekening-courant',
];

const PHRASE_ALTERNATION = [...ACCOUNT_TYPE_PHRASES]
  .sort((a, b) => b.length - a.length)
  .map((p) => p.replace(/ /g, '[ \\t\\u00a0]+'))
  .join('|');
const ACCOUNT_TYPE = new RegExp(`(${PHRASE_ALTERNATION})(?:s|-i)?(?![\\p{L}\\p{N}])`, 'giu');
/**
 * A word that every phrase above holds, with the same flags (so the same case folding): a text without one has no
 * account type, and the long alternation (several times slower) is not run over it.
 */
const PHRASE_WORD = /account|deposit|akaun|simpanan|rekening/iu;
// Balance-of-payments vocabulary: "current account surplus", "current account (goods and services)",
// "lebihan akaun semasa". Only "current account" and "akaun semasa" have this second meaning.
const MACROECONOMIC_FOLLOWER = /^[ \t\u00a0]*(?:\(|surplus|deficit|balance|transactions?|position|gap|lebihan|defisit|imbangan)/iu;
const MACROECONOMIC_PRECEDER = /(?:surplus|deficit|balance|lebihan|defisit|imbangan)[ \t\u00a0]+$/iu;
const CONTEXT_CHARS = 24;

function isMacroeconomic(text: string, start: number, end: number): boolean {
  return (
    MACROECONOMIC_FOLLOWER.test(text.slice(end, end + CONTEXT_CHARS)) ||
    MACROECONOMIC_PRECEDER.test(text.slice(Math.max(0, start - CONTEXT_CHARS), start))
  );
}

export function findAccountTypes(text: string, emit: (value: string) => boolean): void {
  if (!PHRASE_WORD.test(text)) return;
  for (const m of wordStartMatches(text, ACCOUNT_TYPE)) {
    const phrase = m[1].toLocaleLowerCase('en').replace(/\s+/g, ' ');
    const ambiguous = phrase === 'current account' || phrase === 'akaun semasa';
    if (ambiguous && isMacroeconomic(text, m.index, m.index + m[0].length)) continue;
    if (!emit(phrase)) return;
  }
}
