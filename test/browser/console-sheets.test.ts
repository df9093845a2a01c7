// The console names a spreadsheet hit's sheet, in a real browser (Debian's chromium driven by playwright-core)
// against the real service: two corpus workbooks are uploaded through the API, a search shows "Sheet: <name> · rows
// N–M" on the hit card (the sheet from canonical_metadata.location, the rows from the evidence item), and the document
// opened from it heads each sheet's text with its name (the text route's page_label) and each chunk with its rows. Screenshots under test-results/console/ (CHROMIUM_PATH overrides the browser).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { useTestServer, KEYS, uploadFile, waitForJob } from '../helpers/server.ts';
import { openBrowserPage, screenshotFolder } from '../helpers/browser.ts';

const WORKBOOKS = [
  { id: 'kyc-layout.xlsx', path: 'xlsx/tika_CVLKRA-KYC_Download_File_Structure_V3.1.xlsx' },
  { id: 'multi-sheet.xlsx', path: 'xlsx/poi_55906-MultiSheetRefs.xlsx' },
];
const corpus = (path: string) => fileURLToPath(new URL(`../../../shared/corpus/${path}`, import.meta.url));

const server = useTestServer({}, async (started) => {
  for (const workbook of WORKBOOKS) {
    const upload = await uploadFile(started.url, KEYS.alpha, { document_id: workbook.id }, { name: workbook.path.split('/').pop()!, bytes: readFileSync(corpus(workbook.path)) });
    assert.equal(upload.status, 202, JSON.stringify(upload.json));
    assert.equal((await waitForJob(started.url, KEYS.alpha, upload.json.job_id)).status, 'completed');
  }
});
const SHOTS = screenshotFolder('console');
const STEP_MS = 60_000;

let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

before(async () => {
  ({ browser, page } = await openBrowserPage(STEP_MS, pageErrors));
});

after(async () => {
  await browser?.close();
});

// The place badges are set in capitals by the style sheet: the text is read as written (textContent), not as shown.
const shot = (name: string) => page.screenshot({ path: `${SHOTS}${name}.png`, fullPage: true });

async function search(query: string): Promise<void> {
  await page.getByLabel('Query').fill(query);
  await page.getByLabel('Query').press('Enter');
}

test('a hit on a workbook shows the sheet it is on; the document opened from it heads that sheet by name', async () => {
  await page.goto(`${server.url}/console`);
  await page.getByLabel('API key').fill(KEYS.alpha);
  await page.getByRole('button', { name: 'Connect' }).click();
  await page.locator('#message', { hasText: 'Connected' }).waitFor();

  await search('Income Slab');
  const kyc = page.locator('#search-results li.hit', { has: page.locator('button.link', { hasText: 'kyc-layout.xlsx' }) }).first();
  await kyc.waitFor();
  assert.match((await kyc.locator('.where').first().textContent())!, /^Sheet: Income Slab · rows? \d+(–\d+)?$/);
  assert.ok((await kyc.locator('.passage').first().innerText()).includes('Income'));
  await shot('sheets-01-search');

  await search('Middle');
  const multi = page.locator('#search-results li.hit', { has: page.locator('button.link', { hasText: 'multi-sheet.xlsx' }) }).first();
  await multi.waitFor();
  assert.equal(await multi.locator('.where').first().textContent(), 'Sheet: Sheet2 · row 1');
  await multi.locator('button.document-link').click();
  await page.locator('#document-heading', { hasText: 'multi-sheet.xlsx' }).waitFor();
  await page.locator('#document-text section.page-text h4', { hasText: 'Sheet: Sheet3' }).waitFor();
  // The text route names each chunk's page (page_label): every sheet is headed by its name, not only the hit's.
  assert.deepEqual(await page.locator('#document-text section.page-text h4').allTextContents(), ['Sheet: Sheet1', 'Sheet: Sheet2', 'Sheet: Sheet3']);
  assert.match(await page.locator('#document-text section.page-text', { hasText: 'Sheet: Sheet2' }).innerText(), /Middle!/);
  // Sheet1 has text in rows 1 and 3-6 (row 2 is empty): its chunk holds rows 1 to 6.
  assert.deepEqual(await page.locator('#document-text .chunk-rows').allTextContents(), ['rows 1–6', 'row 1', 'row 1']);
  await shot('sheets-02-document');
  assert.deepEqual(pageErrors, []);
});
