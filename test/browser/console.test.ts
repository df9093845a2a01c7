// The web console in a real browser (Debian's chromium driven by playwright-core) against the real service:
// a wrong key is refused with its 401; then upload a corpus file with metadata and watch its job complete,
// search with a filter and see the matched words marked, soft-delete the document and restore it, edit its
// metadata, and read health. Every control is reachable by its label. Screenshots of each step are saved under
// test-results/console/ (CHROMIUM_PATH overrides where the browser is).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import { useTestServer, KEYS } from '../helpers/server.ts';

const server = useTestServer();
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = fileURLToPath(new URL('../../test-results/console/', import.meta.url));
const DOCX = fileURLToPath(new URL('../../../shared/corpus/docx/mammoth_tables.docx', import.meta.url));
/** How long one step may wait for the page (a job completing included) before the test fails. */
const STEP_MS = 30_000;

let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(STEP_MS);
  page.on('pageerror', (error) => pageErrors.push(error.message));
});

after(async () => {
  await browser?.close();
});

const shot = (name: string) => page.screenshot({ path: `${SHOTS}${name}.png`, fullPage: true });
const message = () => page.locator('#message');

test('the console refuses a wrong key with its 401, and connects with a right one', async () => {
  const response = await page.goto(`${server.url}/console`);
  assert.equal(response?.status(), 200);
  assert.equal(new URL(page.url()).pathname, '/console/');
  assert.match(response?.headers()['content-security-policy'] ?? '', /script-src 'self'/);
  await page.getByLabel('API key').fill('not-a-key');
  await page.getByLabel('API key').press('Enter');
  await message().filter({ hasText: '401 auth_failed' }).waitFor();
  assert.equal(await page.locator('#tabs').isVisible(), false, 'nothing opens without a valid key');
  await shot('01-wrong-key');
  await page.getByLabel('API key').fill(KEYS.alpha);
  await page.getByRole('button', { name: 'Connect' }).click();
  await message().filter({ hasText: 'Connected' }).waitFor();
  assert.equal(await page.getByLabel('Query').isVisible(), true);
  // Every form control has a label a screen reader reads (and getByLabel finds).
  // (The callback runs in the page; this file is typed without the DOM library.)
  const unlabelled = await page.evaluate(() => {
    const controls: any[] = [...(globalThis as any).document.querySelectorAll('input, select, textarea')];
    return controls.filter((control) => (control.labels?.length ?? 0) === 0 && !control.getAttribute('aria-label')).map((control) => String(control.id));
  });
  assert.deepEqual(unlabelled, []);
});

test('upload a file with metadata and watch its job complete', async () => {
  await page.getByRole('button', { name: 'Upload' }).click();
  await page.getByLabel('Files').setInputFiles([{ name: 'mammoth_tables.docx', mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', buffer: readFileSync(DOCX) }, { name: 'memo.txt', mimeType: 'text/plain', buffer: Buffer.from('Memo on the Kuching branch audit of petty cash and treasury hedging.') }]);
  await page.getByLabel(/Custom metadata/).fill('branch=Kuching\nyear=2024');
  await page.getByRole('button', { name: 'Upload', exact: true }).last().click();
  const rows = page.locator('#upload-jobs tbody tr');
  for (const file of ['mammoth_tables.docx', 'memo.txt']) await rows.filter({ hasText: file }).locator('td.status', { hasText: 'completed' }).waitFor();
  assert.equal(await rows.count(), 2);
  assert.equal(await rows.filter({ hasText: 'memo.txt' }).locator('progress').evaluate((bar: any) => bar.value === bar.max && bar.max > 0), true, 'the upload progress reached its end');
  await shot('02-upload-completed');
});

test('search with a filter shows ranked rows with the matched words marked', async () => {
  await page.getByRole('button', { name: 'Search', exact: true }).first().click();
  await page.getByLabel('Query').fill('petty cash audit');
  await page.getByLabel(/Filters/).fill('metadata.custom.branch=Kuching');
  await page.getByLabel('Query').press('Enter');
  const hits = page.locator('#search-results li.hit');
  await hits.first().waitFor();
  assert.equal(await hits.first().getAttribute('data-document-id'), 'memo.txt');
  const marked = await hits.first().locator('mark').allTextContents();
  assert.ok(marked.some((text) => /petty|cash|audit/i.test(text)), `marked: ${marked.join(', ')}`);
  await shot('03-search');
  await page.getByLabel(/Filters/).fill('metadata.custom.branch=Miri');
  await page.getByLabel('Query').press('Enter');
  await page.locator('#search-summary', { hasText: 'Nothing found' }).waitFor();
});

test('soft delete, restore and metadata edit from the documents list', async () => {
  await page.getByRole('button', { name: 'Documents' }).click();
  const memo = page.locator('#documents-table tbody tr[data-document-id="memo.txt"]');
  await memo.waitFor();
  await page.getByRole('button', { name: 'Delete memo.txt' }).click();
  await message().filter({ hasText: 'Deleted memo.txt' }).waitFor();
  await memo.waitFor({ state: 'detached' });
  await page.locator('#tab-documents').getByLabel('Include deleted').check();
  await page.getByRole('button', { name: 'List' }).click();
  await memo.filter({ hasText: 'deleted' }).waitFor();
  await shot('04-deleted');
  await page.getByRole('button', { name: 'Restore memo.txt' }).click();
  await message().filter({ hasText: 'Restored memo.txt' }).waitFor();
  await page.getByRole('button', { name: 'Delete memo.txt' }).waitFor();

  await page.getByRole('button', { name: 'Edit metadata of memo.txt' }).click();
  const patch = page.getByLabel(/JSON Merge Patch/);
  assert.deepEqual(JSON.parse(await patch.inputValue()), { branch: 'Kuching', year: 2024 });
  await patch.fill('{"branch": "Sibu", "year": null}');
  await page.getByRole('button', { name: 'Save' }).click();
  await message().filter({ hasText: 'Metadata of memo.txt updated' }).waitFor();
  await memo.filter({ hasText: '{"branch":"Sibu"}' }).waitFor();
  await shot('05-metadata-edited');
});

test('health and readiness are shown', async () => {
  await page.getByRole('button', { name: 'Health' }).click();
  await page.locator('#health-body', { hasText: 'HTTP 200' }).waitFor();
  await page.locator('#readiness-body', { hasText: 'readiness_state' }).waitFor();
  await shot('06-health');
  assert.deepEqual(pageErrors, [], 'no script error on the page');
});

test('the console files need no key, and the page holds no key in its address', () => {
  assert.ok(!page.url().includes(KEYS.alpha));
  assert.ok(readFileSync(`${SHOTS}01-wrong-key.png`).length > 0);
});
