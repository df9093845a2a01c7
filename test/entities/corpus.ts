// Test helper: reads shared-corpus files in place (never copied into the project) and splits the BNM
// notice CSVs into rows. Not a test file itself.

import { readFileSync } from 'node:fs';

export const CORPUS = new URL('../../../shared/corpus/', import.meta.url);
export const MT940_FILE = 'txt/mt940_ASNB_0708271685_09022020_164516.940.txt';
export const BNM_ENGLISH_FILE = 'txt/msd_bnm_public_notice_english.csv';
export const BNM_MALAY_FILE = 'txt/msd_bnm_public_notice_malay.csv';

export function readCorpusText(relativePath: string): string {
  return readFileSync(new URL(relativePath, CORPUS), 'utf8');
}

/** RFC 4180 rows: quoted fields may hold commas, doubled quotes and newlines. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c !== '"') field += c;
      else if (text[i + 1] === '"') {
        field += '"';
        i++;
      } else quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n') {
      rows.push([...row, field]);
      row = [];
      field = '';
    } else if (c !== '\r') field += c;
  }
  if (field !== '' || row.length > 0) rows.push([...row, field]);
  return rows;
}

export interface BnmNotice {
  date: string;
  title: string;
  content: string;
}

/** The notices of one BNM CSV (header dropped); content is the last column in both languages. */
export function bnmNotices(relativePath: string): BnmNotice[] {
  return parseCsv(readCorpusText(relativePath))
    .slice(1)
    .filter((row) => row.length >= 4)
    .map((row) => ({ date: row[0], title: row[1], content: row[row.length - 1] }));
}

/** The first notice whose content contains `needle`; fails loudly when the corpus lacks it. */
export function bnmNoticeContaining(relativePath: string, needle: string): BnmNotice {
  const notice = bnmNotices(relativePath).find((n) => n.content.includes(needle));
  if (notice === undefined) throw new Error(`no notice in ${relativePath} contains ${JSON.stringify(needle)}`);
  return notice;
}
