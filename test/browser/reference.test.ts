// The API reference page (/reference/) in a real browser (Debian's chromium driven by playwright-core) against the
// real service: its files need no key, a wrong key is refused with the envelope's words, a right one renders the
// document with its operations and components, and the page asks nothing of any other origin (its
// Content-Security-Policy would refuse it, and a refusal is reported in the console, which the test watches).
// Screenshots under test-results/reference/ (CHROMIUM_PATH overrides where the browser is).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { openBrowserPage, screenshotFolder } from '../helpers/browser.ts';
import { useTestServer, KEYS, sendRaw } from '../helpers/server.ts';
import { SCALAR_BUNDLE } from '../../src/http/routes/reference.ts';

const server = useTestServer();
const SHOTS = screenshotFolder('reference');
/** How long one step may wait for the page before the test fails. */
const STEP_MS = 30_000;

let browser: Browser;
let page: Page;
const pageErrors: string[] = [];
const consoleErrors: string[] = [];
const requested: string[] = [];

before(async () => {
  ({ browser, page } = await openBrowserPage(STEP_MS, pageErrors));
  page.on('console', (entry) => {
    if (entry.type() === 'error') consoleErrors.push(entry.text());
  });
  page.on('request', (request) => requested.push(request.url()));
});

after(async () => {
  await browser?.close();
});

const shot = (name: string) => page.screenshot({ path: `${SHOTS}${name}.png`, fullPage: false });

test("the page's files need no key, and the viewer is served from this service", async () => {
  assert.ok(existsSync(SCALAR_BUNDLE), `the viewer is installed (${SCALAR_BUNDLE}): package.json needs @scalar/api-reference, then npm install`);
  for (const path of ['/reference/', '/reference/reference.js', '/reference/reference.css', '/reference/scalar.js']) {
    const answer = await sendRaw(server.url, path, { method: 'GET', headers: {} });
    assert.equal(answer.status, 200, `${path} answers without a key`);
    assert.match(answer.headers.get('content-security-policy') ?? '', /connect-src 'self'/, `${path} keeps the page to this origin`);
  }
  const viewer = await sendRaw(server.url, '/reference/scalar.js', { method: 'GET', headers: {} });
  assert.match(viewer.headers.get('content-type') ?? '', /javascript/);
  assert.ok(viewer.text.length > 100_000, `the viewer bundle is served whole (${viewer.text.length} characters)`);
  // The document itself still answers to a key only.
  assert.equal((await sendRaw(server.url, '/openapi.json', { method: 'GET', headers: {} })).status, 401);
});

test('the reference refuses a wrong key with its envelope, then renders the document with a right one', async () => {
  const response = await page.goto(`${server.url}/reference`);
  assert.equal(response?.status(), 200);
  assert.equal(new URL(page.url()).pathname, '/reference/');
  await page.getByLabel('API key').fill('not-a-key');
  await page.getByRole('button', { name: 'Open the reference' }).click();
  await page.locator('#key-error').filter({ hasText: 'auth_failed' }).waitFor();
  assert.match(await page.locator('#key-error').innerText(), /Invalid API key \(auth_failed\)/);
  await shot('01-wrong-key');

  await page.getByLabel('API key').fill(KEYS.alpha);
  await page.getByRole('button', { name: 'Open the reference' }).click();
  // The document's title and version, its operations by their summaries (a tag opened), the shared components.
  await page.getByRole('heading', { name: 'Hybrid document search' }).waitFor();
  await page.getByText("Hybrid search over English and Malay business documents").first().waitFor();
  assert.equal(await page.locator('#key-page').isVisible(), false, 'the key page is gone once the document is read');
  await shot('02-reference');
  // The first tag (search) opens with the page.
  await page.getByText('Search document text (dense + keyword), typed metadata, or both, with filters and reranking').first().waitFor();
  await page.getByText('scope', { exact: true }).first().waitFor();
  await shot('03-search-operation');
  await page.getByText('Models', { exact: true }).first().click();
  await page.getByText('EvidenceResult', { exact: true }).first().waitFor();
  await shot('04-models');

  // A reload in the same tab keeps the key: the reference opens without asking again.
  await page.reload();
  await page.getByRole('heading', { name: 'Hybrid document search' }).waitFor();
  assert.equal(await page.locator('#key-page').isVisible(), false);

  assert.deepEqual(pageErrors, []);
  const refused = consoleErrors.filter((text) => /Content Security Policy|Refused to/i.test(text));
  assert.deepEqual(refused, [], 'the viewer asked nothing of another origin');
  const elsewhere = requested.filter((url) => /^https?:/.test(url) && !url.startsWith(server.url));
  assert.deepEqual(elsewhere, [], 'every request went to this service');
});

test('the key page and the reference fit a 390 px phone in dark mode', async () => {
  const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, colorScheme: 'dark' });
  phone.setDefaultTimeout(STEP_MS);
  const errors: string[] = [];
  phone.on('pageerror', (error) => errors.push(error.message));
  try {
    await phone.goto(`${server.url}/reference/`);
    await phone.getByLabel('API key').waitFor();
    // (The callbacks run in the page; this file is typed without the DOM library.)
    const overflow = () => phone.evaluate(() => (globalThis as any).document.documentElement.scrollWidth - (globalThis as any).document.documentElement.clientWidth);
    assert.equal(await overflow(), 0, 'the key page does not scroll sideways');
    const background = await phone.evaluate(() => (globalThis as any).getComputedStyle((globalThis as any).document.body).backgroundColor);
    assert.equal(background, 'rgb(18, 22, 28)', 'the key page follows the dark colour scheme');
    await phone.screenshot({ path: `${SHOTS}05-phone-dark-key.png` });
    await phone.getByLabel('API key').fill(KEYS.alpha);
    await phone.getByRole('button', { name: 'Open the reference' }).click();
    await phone.getByRole('heading', { name: 'Hybrid document search' }).waitFor();
    assert.equal(await overflow(), 0, 'the reference does not scroll sideways');
    await phone.screenshot({ path: `${SHOTS}06-phone-dark-reference.png` });
    assert.deepEqual(errors, []);
  } finally {
    await phone.close();
  }
});
