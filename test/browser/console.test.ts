// The web console in a real browser (Debian's chromium driven by playwright-core) against the real service:
// a wrong key is refused with its 401; then upload corpus files with metadata and follow their jobs under Jobs,
// search and read cropped, marked passages with their page, open a document (its text by page, metadata table,
// versions), delete after a confirmation and restore, edit metadata (a bad patch keeps the dialog and its text),
// errors with their details that clear what an earlier answer showed, and health. Then every view at 390, 1280 and
// 1920 px, light and dark, must fit its window without a horizontal scroll bar. Screenshots of each step and view
// are saved under test-results/console/ (CHROMIUM_PATH overrides where the browser is).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { openBrowserPage, screenshotFolder } from '../helpers/browser.ts';
import { api, useTestServer, KEYS, uploadText, waitForJob } from '../helpers/server.ts';

const server = useTestServer();
const SHOTS = screenshotFolder('console');
const corpus = (path: string) => fileURLToPath(new URL(`../../../shared/corpus/${path}`, import.meta.url));
/** How long one step may wait for the page (a job completing included) before the test fails. */
const STEP_MS = 60_000;
const WIDTHS = [390, 1280, 1920] as const;
const SCHEMES = ['light', 'dark'] as const;

let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

before(async () => {
  ({ browser, page } = await openBrowserPage(STEP_MS, pageErrors));
});

after(async () => {
  await browser?.close();
});

const shot = (name: string) => page.screenshot({ path: `${SHOTS}${name}.png`, fullPage: true });
const message = () => page.locator('#message');
const tab = (name: string) => page.locator('#tabs').getByRole('button', { name, exact: false }).first();
/** How far the page is wider than its window, in CSS pixels (0 when nothing overflows). */
const overflow = () => page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth - (globalThis as any).innerWidth);

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

test('uploads are followed under Jobs to completed, with their chunks counted in the right plural', async () => {
  await tab('Upload').click();
  await page.getByLabel('Files').setInputFiles([
    { name: 'mammoth_tables.docx', mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', buffer: readFileSync(corpus('docx/mammoth_tables.docx')) },
    { name: 'memo.txt', mimeType: 'text/plain', buffer: Buffer.from('Memo on the Kuching branch audit of petty cash and treasury hedging.') },
    { name: 'pages.pdf', mimeType: 'application/pdf', buffer: readFileSync(corpus('pdf/tika_testPageNumber.pdf')) },
    { name: 'receipt.pdf', mimeType: 'application/pdf', buffer: readFileSync(corpus('pdf/inv_oyo.pdf')) },
  ]);
  await page.getByLabel(/Custom metadata/).fill('branch=Kuching\nyear=2024');
  await page.locator('#upload-form').getByRole('button', { name: 'Upload' }).click();
  // The console moves to Jobs, where each upload is a row followed to its end.
  await page.locator('#tab-jobs').waitFor();
  const rows = page.locator('#jobs-table tbody tr');
  for (const file of ['mammoth_tables.docx', 'memo.txt', 'pages.pdf', 'receipt.pdf']) await rows.filter({ hasText: file }).locator('td.status', { hasText: 'completed' }).waitFor();
  assert.equal(await rows.count(), 4);
  assert.equal(await rows.filter({ hasText: 'memo.txt' }).locator('progress').evaluate((bar: any) => bar.value === bar.max && bar.max > 0), true, 'the upload progress reached its end');
  assert.match(await rows.filter({ hasText: 'memo.txt' }).locator('td.detail').innerText(), /^1 chunk\b(?!s)/);
  await page.locator('#jobs-summary', { hasText: 'all finished' }).waitFor();
  assert.equal(await page.locator('#jobs-count').isVisible(), false, 'no job counted as running once all finished');
  await shot('02-jobs-completed');
});

test('search shows cards with cropped passages, the matched words marked and the page they are on', async () => {
  await tab('Search').click();
  await page.getByLabel('Query').fill('petty cash audit');
  await page.locator('#search-form details').evaluate((details: any) => (details.open = true));
  await page.getByLabel(/Filters/).fill('metadata.custom.branch=Kuching');
  await page.getByLabel('Query').press('Enter');
  const hits = page.locator('#search-results li.hit');
  await hits.first().waitFor();
  assert.equal(await hits.first().getAttribute('data-document-id'), 'memo.txt');
  const marked = await hits.first().locator('mark').allTextContents();
  assert.ok(marked.some((text) => /petty|cash|audit/i.test(text)), `marked: ${marked.join(', ')}`);
  assert.equal(await hits.first().locator('details table.pairs th', { hasText: 'custom.branch' }).count(), 1, 'the metadata is a table, not JSON');
  const shown = await hits.count();
  assert.match(await page.locator('#search-summary').innerText(), new RegExp(`found; ${shown} ${shown === 1 ? 'row' : 'rows'} from 1 `));

  await page.getByLabel('Query').fill('page one');
  await page.getByLabel(/Filters/).fill('');
  await page.getByLabel('Query').press('Enter');
  const pdf = hits.filter({ has: page.locator('button.link', { hasText: 'pages.pdf' }) });
  await pdf.first().waitFor();
  assert.match(await pdf.first().locator('.where').first().innerText(), /^page \d+$/i);
  const passages = await pdf.first().locator('.passage').allInnerTexts();
  assert.ok(passages.length > 0 && passages.every((text) => text.length <= 480), `passages cut around the matches: ${passages.map((text) => text.length).join(', ')}`);
  await shot('03-search');

  // A long chunk is cut to the passage around its match, marked, with an ellipsis where text was left out.
  await page.getByLabel('Query').fill('Goods Services Tax');
  await page.getByLabel('Query').press('Enter');
  const receipt = hits.filter({ has: page.locator('button.link', { hasText: 'receipt.pdf' }) }).first();
  await receipt.waitFor();
  const chunk = (await (await fetch(`${server.url}/document/receipt.pdf/text`, { headers: { 'X-API-Key': KEYS.alpha } })).json()) as { chunks: { text: string }[] };
  const longest = Math.max(...chunk.chunks.map((entry) => entry.text.length));
  const passage = await receipt.locator('.passage').first().innerText();
  assert.ok(passage.length < longest / 2, `a passage of ${passage.length} characters from a chunk of ${longest}`);
  assert.match(passage, /…/);
  assert.ok((await receipt.locator('.passage mark').allTextContents()).some((text) => /goods|services|tax/i.test(text)));
  await shot('03b-search-passage');

  // "Similar" on a card lists the documents most like it, never the document itself, and without a pager; with
  // nothing like it, the summary says so. The near-copy is hard-deleted after, so the later steps see what they did.
  await receipt.getByRole('button', { name: 'Documents similar to receipt.pdf' }).click();
  await page.locator('#search-summary', { hasText: 'Nothing like receipt.pdf.' }).waitFor();
  const copy = await uploadText(server.url, KEYS.alpha, { document_id: 'memo-copy.txt', text: 'Memo on the Kuching branch audit of petty cash, and of treasury hedging.' });
  await waitForJob(server.url, KEYS.alpha, copy.json.job_id);
  await page.getByLabel('Query').fill('petty cash audit');
  await page.getByLabel('Query').press('Enter');
  const memo = hits.filter({ has: page.locator('button.link', { hasText: /^memo\.txt$/ }) }).first();
  await memo.getByRole('button', { name: 'Documents similar to memo.txt' }).click();
  await page.locator('#search-summary', { hasText: 'like memo.txt' }).waitFor();
  assert.equal(await hits.first().getAttribute('data-document-id'), 'memo-copy.txt', 'the near-copy first');
  assert.equal(await hits.filter({ has: page.locator('button.link', { hasText: /^memo\.txt$/ }) }).count(), 0, 'the source is left out');
  assert.equal(await page.locator('#search-next').isDisabled(), true);
  assert.equal(await page.locator('#search-prev').isDisabled(), true);
  await shot('03c-similar');
  assert.equal((await api(server.url, '/document/memo-copy.txt?mode=hard', { method: 'DELETE', key: KEYS.alpha })).status, 200);
});

test('an error shows the details of its envelope and clears the answer before it', async () => {
  // The form refuses more than 100 rows itself; without that check the service's refusal and its details show.
  await page.getByLabel('Rows').evaluate((input: any) => input.removeAttribute('max'));
  await page.getByLabel('Rows').fill('500');
  await page.getByLabel('Query').press('Enter');
  await page.getByLabel('Rows').fill('10');
  await message().locator('.error-block').waitFor();
  const text = await message().innerText();
  assert.match(text, /^422 validation_error/);
  assert.match(text, /body\.limit: .*100/, 'the details say which field and why');
  assert.ok((await message().locator('.details li').count()) > 0, `details listed: ${text}`);
  assert.equal(await page.locator('#search-results li.hit').count(), 0, 'no card of the earlier answer stays under the error');
  assert.equal(await page.locator('#search-summary').innerText(), '');
  await shot('04-search-error');
  // Switching tabs leaves the error behind.
  await tab('Health').click();
  await page.locator('#health-status', { hasText: 'HTTP 200' }).waitFor();
  assert.equal(await message().innerText(), '');
  await tab('Search').click();
});

test('a document opens from its card: its text by page, its metadata as a table, its versions', async () => {
  await page.getByLabel('Query').fill('page one');
  await page.getByLabel('Query').press('Enter');
  await page.locator('#search-results button.link', { hasText: 'pages.pdf' }).first().click();
  await page.locator('#document-heading', { hasText: 'pages.pdf' }).waitFor();
  const sections = page.locator('#document-text section.page-text');
  await sections.first().waitFor();
  const labels = await sections.locator('h4').allInnerTexts();
  assert.ok(labels.length >= 1 && labels.every((label) => /^page \d+$/i.test(label)), `page labels: ${labels.join(', ')}`);
  await page.locator('#document-text', { hasText: 'This is page one.' }).waitFor();
  await page.locator('#document-metadata th', { hasText: 'custom.branch' }).waitFor();
  assert.equal(await page.locator('#document-metadata tr', { hasText: 'custom.branch' }).locator('td').innerText(), 'Kuching');
  await page.locator('#document-versions tbody tr', { hasText: 'active' }).waitFor();
  await page.locator('#document-state', { hasText: 'Active: 1 version' }).waitFor();
  await shot('05-document');
  await page.getByRole('button', { name: '← Back' }).click();
  await page.locator('#tab-search').waitFor();
});

test('delete asks first; a deleted document is shown as such and restored', async () => {
  await tab('Documents').click();
  const memo = page.locator('#documents-table tbody tr[data-document-id="memo.txt"]');
  await memo.waitFor();
  assert.match(await memo.locator('td[data-label="Chunks"]').innerText(), /^1 chunk$/);
  await page.getByRole('button', { name: 'Delete memo.txt' }).click();
  const confirm = page.locator('#confirm-dialog');
  await confirm.waitFor();
  await shot('06-confirm-delete');
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await confirm.waitFor({ state: 'hidden' });
  assert.equal(await memo.count(), 1, 'cancelled: nothing deleted');
  await page.getByRole('button', { name: 'Delete memo.txt' }).click();
  await confirm.getByRole('button', { name: 'Delete' }).click();
  await message().filter({ hasText: 'Deleted memo.txt' }).waitFor();
  await memo.waitFor({ state: 'detached' });
  await page.locator('#tab-documents').getByLabel('Include deleted').check();
  await page.getByRole('button', { name: 'List' }).click();
  await memo.locator('.pill', { hasText: 'deleted' }).waitFor();
  await shot('07-deleted');
  await memo.getByRole('button', { name: 'memo.txt', exact: true }).click();
  await page.locator('#document-state', { hasText: 'Deleted' }).waitFor();
  await page.locator('#document-versions .pill', { hasText: 'deleted' }).waitFor();
  await page.getByRole('button', { name: '← Back' }).click();
  await page.getByRole('button', { name: 'Restore memo.txt' }).click();
  await message().filter({ hasText: 'Restored memo.txt' }).waitFor();
  await page.getByRole('button', { name: 'Delete memo.txt' }).waitFor();
});

test('a bad patch keeps the edit dialog open with its text; a good one updates the metadata through a job', async () => {
  const memo = page.locator('#documents-table tbody tr[data-document-id="memo.txt"]');
  await page.getByRole('button', { name: 'Edit metadata of memo.txt' }).click();
  const patch = page.getByLabel(/JSON Merge Patch/);
  assert.deepEqual(JSON.parse(await patch.inputValue()), { branch: 'Kuching', year: 2024 });
  await patch.fill('{"branch": "Sibu", "year": nul}');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.locator('#edit-error', { hasText: 'not JSON' }).waitFor();
  assert.equal(await page.locator('#edit-dialog').isVisible(), true);
  assert.equal(await patch.inputValue(), '{"branch": "Sibu", "year": nul}', 'the text as typed stays');
  await shot('08-edit-error');
  // The service's refusal stays in the dialog too: a key the metadata contract reserves.
  await patch.fill('{"a": {"b": {"c": {"d": {"e": {"f": {"g": {"h": {"i": 1}}}}}}}}}');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.locator('#edit-error .error-block', { hasText: /^4\d\d / }).waitFor();
  assert.doesNotMatch(await page.locator('#edit-error').innerText(), /not JSON/, 'the earlier error went');
  assert.equal(await page.locator('#edit-dialog').isVisible(), true);
  await patch.fill('{"branch": "Sibu", "year": null}');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.locator('#edit-dialog').waitFor({ state: 'hidden' });
  await message().filter({ hasText: 'Metadata of memo.txt updated' }).waitFor();
  await memo.locator('.chip', { hasText: 'branch: Sibu' }).waitFor();
  assert.equal(await memo.locator('.chip').count(), 1, 'year removed');
  await shot('09-metadata-edited');
  await tab('Jobs').click();
  await page.locator('#jobs-table tbody tr[data-kind="update"]', { hasText: 'memo.txt' }).locator('td.status', { hasText: 'completed' }).waitFor();
});

test('health and readiness are tables with their state as a badge', async () => {
  await tab('Health').click();
  await page.locator('#health-status', { hasText: 'HTTP 200' }).waitFor();
  await page.locator('#readiness-table th', { hasText: 'readiness_state' }).waitFor();
  assert.equal(await page.locator('#tab-health pre').count(), 0, 'no raw JSON');
  await shot('10-health');
  assert.deepEqual(pageErrors, [], 'no script error on the page');
});

test('every view fits its window from 390 to 1,920 px, light and dark', async () => {
  const views: [string, () => Promise<void>][] = [
    ['search', async () => {
      await tab('Search').click();
      await page.getByLabel('Query').fill('petty cash audit');
      await page.getByLabel('Query').press('Enter');
      await page.locator('#search-results:not([aria-busy]) li.hit').first().waitFor();
    }],
    ['upload', async () => {
      await tab('Upload').click();
    }],
    ['documents', async () => {
      await tab('Documents').click();
      await page.locator('#documents-summary', { hasText: 'versions' }).waitFor();
    }],
    ['document', async () => {
      await page.locator('#documents-table tbody tr[data-document-id="mammoth_tables.docx"] button.link').click();
      await page.locator('#document-text section.page-text').first().waitFor();
    }],
    ['jobs', async () => {
      await tab('Jobs').click();
      await page.locator('#jobs-table tbody tr').first().waitFor();
    }],
    ['health', async () => {
      await tab('Health').click();
      await page.locator('#health-table tbody tr').first().waitFor();
    }],
  ];
  const wide: string[] = [];
  for (const scheme of SCHEMES) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      for (const [name, open] of views) {
        await open();
        const extra = await overflow();
        if (extra > 0) wide.push(`${name} at ${width} px (${scheme}): ${extra} px too wide`);
        await shot(`view-${name}-${width}-${scheme}`);
      }
    }
  }
  assert.deepEqual(wide, []);
  // In dark mode a highlight keeps dark text on its light background (not white on yellow).
  const [text, background] = await page.evaluate(() => {
    const mark = (globalThis as any).document.createElement('mark');
    (globalThis as any).document.body.append(mark);
    const style = (globalThis as any).getComputedStyle(mark);
    const colours = [style.color, style.backgroundColor];
    mark.remove();
    return colours as string[];
  });
  const luminance = (rgb: string) => {
    const [r, g, b] = rgb.match(/\d+/g)!.slice(0, 3).map(Number).map((channel) => {
      const c = channel / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const [light, dark] = [luminance(text), luminance(background)].sort((a, b) => b - a);
  assert.ok((light + 0.05) / (dark + 0.05) >= 4.5, `highlight contrast in dark mode: ${text} on ${background}`);
  assert.deepEqual(pageErrors, [], 'no script error on the page');
});

test('the page holds no key in its address', () => {
  assert.ok(!page.url().includes(KEYS.alpha));
  assert.ok(readFileSync(`${SHOTS}01-wrong-key.png`).length > 0);
});
