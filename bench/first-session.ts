// A person's first session at the defaults, as issue 46 describes it: the real service (`npm start`'s supervisor)
// at SPEC.md's rate limits (30 requests a minute per Client, searches too) on a temporary DATA_DIR; a folder of
// FOLDER_FILES corpus files uploaded with the CLI (`node src/cli.ts ingest DIR`); then CONSOLE_FILES files through
// the console in Chromium; then SEARCHES searches and the documents list through the console. It prints each
// step's wall time, the 429s the service answered during it (http_requests_total by status, from /metrics with an
// operator key: a scrape spends no Client's budget), and whether every job completed and nothing on screen said
// "refused" or showed an error. A bench, not a test: at 30 requests a minute it takes minutes.
//
// Usage: npm run bench:first-session   (CHROMIUM_PATH overrides /usr/bin/chromium)

import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openBrowserPage } from '../test/helpers/browser.ts';
import { RATE_LIMIT_PER_MINUTE } from '../src/spec-limits.ts';
import { spawnSupervisor } from './bench-service.ts';

const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));
const CORPUS = fileURLToPath(new URL('../../shared/corpus/', import.meta.url));
const KEY = 'first-session-key';
const OPERATOR_KEY = 'first-session-operator';

/**
 * The folder: FOLDER_FILES corpus files that parse to text (the corpus's expectations, test/helpers/corpus-expectations.ts),
 * of the formats a business folder holds, none needing OCR of a scan.
 */
const FOLDER = [
  'docx/mammoth_comments.docx', 'docx/mammoth_tables.docx', 'docx/mammoth_text-box.docx', 'docx/mammoth_utf8-bom.docx',
  'docx/msd_malay_Farish_A_Noor_Rekonstruksi_Semula_Sejarah.docx', 'docx/poi_bib-chernigovka_17459.docx', 'docx/poi_bug65649.docx',
  'docx/poi_checkboxes.docx', 'docx/pydocx_having-images.docx', 'docx/tika_testWORD_embedded_pdf.docx', 'docx/tika_testWORD_phonetic.docx',
  'docx/tika_testWORD_various.docx',
  'html/msd_MYMP.html', 'html/tika_big-preamble.html', 'html/tika_testArabicMisleadingCharset.html', 'html/tika_testHTML.html',
  'html/tika_testHTMLNoisyMetaEncoding_1.html', 'html/tika_testHTML_embedded_img.html',
  'txt/mt940_ASNB_0708271685_09022020_164516.940.txt', 'txt/tika_english.cp500.txt', 'txt/tika_multi-language.txt', 'txt/tika_russian.cp866.txt',
  'txt/tika_test-columnar.csv', 'txt/tika_testMARKDOWN.md',
  'pdf/inv_AmazonWebServices.pdf', 'pdf/inv_FlipkartInvoice.pdf', 'pdf/pdfjs_helloworld-bad.pdf', 'pdf/pdfjs_xref_command_missing.pdf',
  'pdf/tika_testPDF_incrementalUpdates.pdf', 'pdf/pdfjs_vertical.pdf',
];
const FOLDER_FILES = 30;
/** Files the console uploads: none of the folder's, so each is a document of its own. */
const CONSOLE_UPLOADS = ['pdf/tika_testPageNumber.pdf', 'pdf/inv_oyo.pdf', 'pptx/pypptx_prs-notes.pptx', 'pptx/tika_testPPT_various.pptx'];
const SEARCHES = 20;
const QUERIES = ['page one', 'payment receipt', 'invoice total', 'sejarah', 'checkbox', 'notes', 'table', 'markdown', 'guest name', 'text box'];
/** A console step may sit out whole rate-limit windows. */
const STEP_MS = 300_000;

interface Step {
  name: string;
  seconds: number;
  refusals: number;
  ok: boolean;
  note: string;
}

/** The 429s the service has answered so far, over every route and process. */
async function refusalsSoFar(url: string): Promise<number> {
  const response = await fetch(`${url}/metrics`, { headers: { 'X-API-Key': OPERATOR_KEY } });
  if (!response.ok) throw new Error(`/metrics answered ${response.status}`);
  let total = 0;
  for (const line of (await response.text()).split('\n')) {
    if (line.startsWith('http_requests_total{') && line.includes('status="429"')) total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}

/** Runs the CLI to the end: its exit code and what it printed. */
function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['src/cli.ts', ...args], { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

async function main(): Promise<void> {
  if (FOLDER.length !== FOLDER_FILES) throw new Error(`the folder lists ${FOLDER.length} files, not ${FOLDER_FILES}`);
  const work = mkdtempSync(join(tmpdir(), 'hds-first-session-'));
  const dataDir = join(work, 'data');
  const folder = join(work, 'statements');
  mkdirSync(folder);
  // The person's folder is a copy outside the checkout; the corpus itself is only read.
  for (const path of FOLDER) copyFileSync(join(CORPUS, path), join(folder, basename(path)));
  const env = {
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    API_KEY_CLIENTS: JSON.stringify({ [KEY]: 'first-session' }),
    OPERATOR_API_KEYS: JSON.stringify([OPERATOR_KEY]),
    // SPEC.md's defaults, whatever this shell sets.
    RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT_PER_MINUTE),
    SEARCH_RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT_PER_MINUTE),
  };
  const steps: Step[] = [];
  const started = Date.now();
  const service = await spawnSupervisor(env, { onAbort: () => rmSync(work, { recursive: true, force: true }) });
  steps.push({ name: 'service ready', seconds: (Date.now() - started) / 1000, refusals: 0, ok: true, note: service.url });
  const pageErrors: string[] = [];
  let browser: Awaited<ReturnType<typeof openBrowserPage>>['browser'] | null = null;
  try {
    const measure = async (name: string, run: () => Promise<{ ok: boolean; note: string }>) => {
      const before = await refusalsSoFar(service.url);
      const at = Date.now();
      const { ok, note } = await run();
      steps.push({ name, seconds: (Date.now() - at) / 1000, refusals: (await refusalsSoFar(service.url)) - before, ok, note });
      console.log(`${name}: ${((Date.now() - at) / 1000).toFixed(1)} s${ok ? '' : ' (NOT OK)'} ${note}`);
    };

    await measure(`CLI ingest of ${FOLDER_FILES} files`, async () => {
      const result = await runCli(['ingest', folder, '--json'], { HDS_URL: service.url, HDS_API_KEY: KEY });
      if (result.code !== 0 && result.stdout.trim() === '') return { ok: false, note: `exit ${result.code}: ${result.stderr.trim()}` };
      const report = JSON.parse(result.stdout) as { outcomes: { file: string; status: string; error: string }[]; requests: number; rate_limit_wait_ms: number; rate_limit_refusals: number };
      const notCompleted = report.outcomes.filter((outcome) => outcome.status !== 'completed');
      const waitNotices = result.stderr.split('\n').filter((line) => /waiting \d+ s for the rate limit/.test(line)).length;
      return {
        ok: result.code === 0 && notCompleted.length === 0 && report.outcomes.length === FOLDER_FILES,
        note: `exit ${result.code}; ${report.outcomes.length - notCompleted.length}/${report.outcomes.length} completed; ${report.requests} requests; waited ${(report.rate_limit_wait_ms / 1000).toFixed(1)} s for the rate limit (${waitNotices} wait notices); the CLI met ${report.rate_limit_refusals} 429s${notCompleted.length > 0 ? `; not completed: ${notCompleted.map((outcome) => `${outcome.file} ${outcome.status} ${outcome.error}`).join(', ')}` : ''}`,
      };
    });

    const opened = await openBrowserPage(STEP_MS, pageErrors);
    browser = opened.browser;
    const { page } = opened;
    await page.goto(`${service.url}/console/`);
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
    await page.getByLabel('API key').fill(KEY);
    await page.getByLabel('API key').press('Enter');
    await page.locator('#tabs').waitFor();

    const rows = page.locator('#jobs-table tbody tr');
    await measure(`console upload of ${CONSOLE_UPLOADS.length} files`, async () => {
      await page.locator('#tabs').getByRole('button', { name: 'Upload' }).click();
      await page.getByLabel('Files').setInputFiles(CONSOLE_UPLOADS.map((path) => ({ name: basename(path), mimeType: 'application/octet-stream', buffer: readFileSync(join(CORPUS, path)) })));
      await page.locator('#upload-form').getByRole('button', { name: 'Upload' }).click();
      // Each row ends completed, or in another terminal state, or refused: whichever comes is the row's outcome.
      for (const path of CONSOLE_UPLOADS) await rows.filter({ hasText: basename(path) }).locator('td.status', { hasText: /completed|failed|superseded|refused/ }).waitFor();
      const completed = await rows.locator('td.status', { hasText: 'completed' }).count();
      return { ok: completed === CONSOLE_UPLOADS.length, note: `${completed}/${CONSOLE_UPLOADS.length} completed` };
    });

    await measure(`${SEARCHES} console searches`, async () => {
      await page.locator('#tabs').getByRole('button', { name: 'Search' }).click();
      let answered = 0;
      for (let index = 0; index < SEARCHES; index++) {
        await page.getByLabel('Query').fill(`${QUERIES[index % QUERIES.length]}`);
        await page.getByLabel('Query').press('Enter');
        await page.locator('#search-summary', { hasText: /found/i }).or(page.locator('#message.error')).waitFor();
        if ((await page.locator('#message.error').count()) === 0) answered++;
      }
      return { ok: answered === SEARCHES, note: `${answered}/${SEARCHES} answered` };
    });

    await measure('console documents list', async () => {
      await page.locator('#tabs').getByRole('button', { name: 'Documents' }).click();
      const expected = FOLDER_FILES + CONSOLE_UPLOADS.length;
      await page.locator('#documents-summary', { hasText: `${expected} versions` }).or(page.locator('#message.error')).waitFor();
      const listed = await page.locator('#documents-summary', { hasText: `${expected} versions` }).count();
      return { ok: listed === 1, note: listed === 1 ? `${expected} versions listed` : await page.locator('#message').innerText() };
    });

    await page.locator('#tabs').getByRole('button', { name: 'Jobs' }).click();
    const said: string[] = await page.evaluate(() => (globalThis as any).__said);
    const refusedRows = await page.locator('#jobs-table', { hasText: 'refused' }).count();
    const errorsShown = said.filter((entry) => entry.startsWith('message|error'));
    const waitsShown = said.filter((entry) => entry.startsWith('wait|') && /Waiting \d+ s/.test(entry)).length;
    const total = await refusalsSoFar(service.url);
    console.log('');
    console.log(`first session at ${RATE_LIMIT_PER_MINUTE} requests a minute (searches too), ${FOLDER_FILES} files by the CLI, ${CONSOLE_UPLOADS.length} by the console, ${SEARCHES} searches and the list:`);
    for (const step of steps) console.log(`  ${step.name.padEnd(32)} ${step.seconds.toFixed(1).padStart(7)} s  429s ${String(step.refusals).padStart(3)}  ${step.ok ? 'ok' : 'NOT OK'}  ${step.note}`);
    console.log(`  total wall time ${((Date.now() - started) / 1000).toFixed(1)} s; 429s answered by the service ${total}`);
    console.log(`  every job completed: ${steps.every((step) => step.ok) ? 'yes' : 'no'}; "refused" on screen: ${refusedRows > 0 ? 'yes' : 'no'}; errors shown: ${errorsShown.length === 0 ? 'none' : errorsShown.join(' / ')}; console wait notices: ${waitsShown}; page errors: ${pageErrors.length === 0 ? 'none' : pageErrors.join(' / ')}`);
    if (!steps.every((step) => step.ok) || refusedRows > 0 || errorsShown.length > 0) process.exitCode = 1;
  } finally {
    await browser?.close();
    await service.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
