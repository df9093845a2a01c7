// One page of Debian's chromium driven by playwright-core, as the browser suites open it (CHROMIUM_PATH overrides
// where the browser is), and the folder under test-results/ their screenshots go to.

import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** test-results/<name>/, made when missing, with its trailing slash. */
export function screenshotFolder(name: string): string {
  const folder = fileURLToPath(new URL(`../../test-results/${name}/`, import.meta.url));
  mkdirSync(folder, { recursive: true });
  return folder;
}

/** A browser and one page of 1280 x 900 whose waits last `stepMs`; the page's uncaught errors go to `pageErrors`. */
export async function openBrowserPage(stepMs: number, pageErrors: string[]): Promise<{ browser: Browser; page: Page }> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(stepMs);
  page.on('pageerror', (error) => pageErrors.push(error.message));
  return { browser, page };
}
