// The console within a Client's rate-limit budget at the service's defaults (30 requests a minute, searches
// included): four uploads followed to the end, then twenty searches and the documents list. That is more than
// the minute allows, so the service refuses some requests with 429 and a Retry-After of up to 60 s; the console
// must wait each one out, say that it is waiting, and end with every file completed, every search answered and
// nothing shown as refused or as an error. Screenshots: test-results/console/budget-*.png.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { openBrowserPage, screenshotFolder } from '../helpers/browser.ts';
import { useTestServer, KEYS } from '../helpers/server.ts';
import { RATE_LIMIT_PER_MINUTE } from '../../src/spec-limits.ts';

const server = useTestServer({ RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT_PER_MINUTE), SEARCH_RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT_PER_MINUTE) });
const SHOTS = screenshotFolder('console');
const corpus = (path: string) => fileURLToPath(new URL(`../../../shared/corpus/${path}`, import.meta.url));
const FILES = ['docx/mammoth_tables.docx', 'pdf/tika_testPageNumber.pdf', 'pdf/inv_oyo.pdf', 'txt/tika_testMARKDOWN.md'];
const SEARCHES = 20;
/** A step may sit out a whole rate-limit window (60 s) and then some. */
const STEP_MS = 150_000;

let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

before(async () => {
  ({ browser, page } = await openBrowserPage(STEP_MS, pageErrors));
});

after(async () => {
  await browser?.close();
});

test(`four uploads, ${SEARCHES} searches and the documents list at ${RATE_LIMIT_PER_MINUTE} requests a minute: waits shown, nothing refused`, { timeout: 6 * STEP_MS }, async () => {
  await page.goto(`${server.url}/console/`);
  // Everything the wait notice and the message region ever said, recorded in the page as it happens.
  await page.evaluate(() => {
    const seen: string[] = ((globalThis as any).__said = []);
    const watch = (id: string) =>
      new (globalThis as any).MutationObserver(() => {
        const element = (globalThis as any).document.getElementById(id);
        if (!element.hidden && element.textContent) seen.push(`${id}|${element.className}|${element.textContent}`);
      }).observe((globalThis as any).document.getElementById(id), { childList: true, subtree: true, characterData: true, attributes: true });
    watch('wait');
    watch('message');
  });
  // A picture of the first wait, whenever it comes.
  const waitShot = page.locator('#wait').waitFor({ state: 'visible', timeout: 5 * STEP_MS }).then(() => page.screenshot({ path: `${SHOTS}budget-waiting.png`, fullPage: true }));
  await page.getByLabel('API key').fill(KEYS.alpha);
  await page.getByLabel('API key').press('Enter');
  await page.locator('#tabs').waitFor();

  await page.locator('#tabs').getByRole('button', { name: 'Upload' }).click();
  await page.getByLabel('Files').setInputFiles(FILES.map((path) => ({ name: path.split('/').pop()!, mimeType: 'application/octet-stream', buffer: readFileSync(corpus(path)) })));
  await page.locator('#upload-form').getByRole('button', { name: 'Upload' }).click();
  const rows = page.locator('#jobs-table tbody tr');
  for (const path of FILES) await rows.filter({ hasText: path.split('/').pop()! }).locator('td.status', { hasText: 'completed' }).waitFor();

  await page.locator('#tabs').getByRole('button', { name: 'Search' }).click();
  const queries = ['page one', 'payment receipt', 'table', 'markdown', 'guest name'];
  for (let index = 0; index < SEARCHES; index++) {
    await page.getByLabel('Query').fill(`${queries[index % queries.length]} ${index}`);
    await page.getByLabel('Query').press('Enter');
    await page.locator('#search-summary', { hasText: /found/i }).or(page.locator('#message.error')).waitFor();
    assert.equal(await page.locator('#message.error').count(), 0, `search ${index + 1} answered, not refused: ${await page.locator('#message').innerText()}`);
    if (index === SEARCHES - 1) await page.screenshot({ path: `${SHOTS}budget-search.png`, fullPage: true });
  }
  await page.locator('#tabs').getByRole('button', { name: 'Documents' }).click();
  await page.locator('#documents-summary', { hasText: '4 versions' }).waitFor();
  await page.locator('#tabs').getByRole('button', { name: 'Jobs' }).click();
  await page.screenshot({ path: `${SHOTS}budget-jobs.png`, fullPage: true });

  await waitShot;
  const said: string[] = await page.evaluate(() => (globalThis as any).__said);
  const waits = said.filter((entry) => entry.startsWith('wait|'));
  assert.ok(waits.some((entry) => /Waiting \d+ s for the rate limit/.test(entry)), `the console said it was waiting: ${said.join(' / ')}`);
  assert.deepEqual(said.filter((entry) => entry.startsWith('message|error')), [], 'no error shown');
  assert.equal(await rows.locator('td.status', { hasText: 'completed' }).count(), FILES.length);
  assert.equal(await page.locator('#jobs-table', { hasText: 'refused' }).count(), 0);
  // The last answers may have told no room left, and a request made then (the jobs list) waits for a slot: the
  // notice must go once that wait is over, within one rate-limit window.
  await page.locator('#wait').waitFor({ state: 'hidden', timeout: 65_000 });
  assert.deepEqual(pageErrors, []);
});
