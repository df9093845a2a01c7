// Test helper: builds XLSX packages in memory, from small literal sheets or as the large spreadsheet of issue 9
// (about 1 MB zipped, a sheet part of about 60 MB of long inline cell strings that passes the decompression guard).

import { buildZip } from './zip-builder.ts';
import type { ZipEntrySpec } from './zip-builder.ts';
import { seededRandom as random } from '../helpers/seeded-random.ts';

const MAIN_NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PKG_REL_NS = 'http://schemas.openxmlformats.org/package/2006/relationships';

function contentTypes(sheets: number): string {
  const overrides = Array.from(
    { length: sheets },
    (_, i) => `<Override PartName="/xl/worksheets/sheet${i + 1}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`,
  ).join('');
  return `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>${overrides}</Types>`;
}

function packageEntries(sheetParts: (string | Buffer)[]): ZipEntrySpec[] {
  const sheets = sheetParts.map((_, i) => `<sheet name="Sheet${i + 1}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join('');
  const rels = sheetParts.map((_, i) => `<Relationship Id="rId${i + 1}" Type="${REL_NS}/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`).join('');
  return [
    { name: '[Content_Types].xml', data: contentTypes(sheetParts.length) },
    { name: '_rels/.rels', data: `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="${PKG_REL_NS}"><Relationship Id="rId1" Type="${REL_NS}/officeDocument" Target="xl/workbook.xml"/></Relationships>` },
    { name: 'xl/workbook.xml', data: `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="${MAIN_NS}" xmlns:r="${REL_NS}"><sheets>${sheets}</sheets></workbook>` },
    { name: 'xl/_rels/workbook.xml.rels', data: `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="${PKG_REL_NS}">${rels}</Relationships>` },
    ...sheetParts.map((data, i) => ({ name: `xl/worksheets/sheet${i + 1}.xml`, data })),
  ];
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** sheet XML of rows of inline-string cells. */
export function sheetXml(rows: string[][]): string {
  const body = rows
    .map((cells, r) => `<row r="${r + 1}">${cells.map((cell) => `<c t="inlineStr"><is><t>${escapeXml(cell)}</t></is></c>`).join('')}</row>`)
    .join('');
  return `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="${MAIN_NS}"><sheetData>${body}</sheetData></worksheet>`;
}

/** An XLSX with one sheet per entry of `sheets` (each a list of rows of cell strings). */
export function buildSpreadsheet(sheets: string[][][]): Buffer {
  return buildZip(packageEntries(sheets.map(sheetXml)));
}


const WORDS = (
  'account balance statement invoice payment transfer branch customer deposit withdrawal interest charge ' +
  'akaun baki penyata invois bayaran pindahan cawangan pelanggan simpanan pengeluaran faedah caj ' +
  'total amount due date reference number period opening closing credit debit ringgit kuala lumpur penang'
).split(' ');

export interface LargeSpreadsheet {
  bytes: Buffer;
  /** Characters of the sheet part (its XML). */
  sheetXmlChars: number;
  /** Characters of cell text in the sheet. */
  cellChars: number;
  cells: number;
}

/**
 * The spreadsheet of issue 9: one sheet whose XML is about `targetXmlBytes` (default 60 MB) of rows of long
 * inline cell strings (`cellChars` each). Cells repeat a base paragraph with a few row-specific words, so the
 * part deflates to about 1 MB: a ratio near 60:1, within the guard's per-part ratio (a legitimate file).
 */
/**
 * Long cell texts that deflate about 60:1 (like real repetitive exports): each repeats a base paragraph of random
 * words with every 80th word replaced by a word of its own, so no two are alike and the guard's ratio limit holds.
 */
export function longTexts(cellLength: number, seed = 9): () => string {
  const next = random(seed);
  const word = () => WORDS[Math.floor(next() * WORDS.length)]!;
  const baseWords: string[] = [];
  for (let length = 0; length < cellLength; ) {
    const w = word();
    baseWords.push(w);
    length += w.length + 1;
  }
  let n = 0;
  return () => {
    n++;
    return baseWords.map((w, i) => (i % 80 === n % 80 ? `${word()}${Math.floor(next() * 100)}` : w)).join(' ').slice(0, cellLength);
  };
}

export function buildLargeSpreadsheet(options: { targetXmlBytes?: number; cellChars?: number; cellsPerRow?: number; seed?: number } = {}): LargeSpreadsheet {
  const target = options.targetXmlBytes ?? 60 * 1000 * 1000;
  const cellsPerRow = options.cellsPerRow ?? 4;
  const nextText = longTexts(options.cellChars ?? 4000, options.seed ?? 9);
  const parts: string[] = [`<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="${MAIN_NS}"><sheetData>`];
  let size = parts[0]!.length;
  let cellChars = 0;
  let cells = 0;
  for (let r = 1; size < target; r++) {
    let row = `<row r="${r}">`;
    for (let c = 0; c < cellsPerRow; c++) {
      const text = nextText();
      cellChars += text.length;
      cells++;
      row += `<c t="inlineStr"><is><t>${text}</t></is></c>`;
    }
    row += '</row>';
    parts.push(row);
    size += row.length;
  }
  parts.push('</sheetData></worksheet>');
  const xml = parts.join('');
  return { bytes: buildZip(packageEntries([xml])), sheetXmlChars: xml.length, cellChars, cells };
}
