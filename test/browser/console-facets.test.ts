// The console's facets and sort choice, in a real browser (Debian's chromium driven by playwright-core) against the
// real service: corpus notices are uploaded through the API with a custom team; a search shows the facets beside
// the results with the counts POST /search gives for the same request, a click on a value adds its filter and
// searches again, and the sort choice orders the hits as the API orders them. Screenshots under
// test-results/console/ (CHROMIUM_PATH overrides the browser).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { useTestServer, api, KEYS, uploadText, waitForJob } from '../helpers/server.ts';
import { openBrowserPage, screenshotFolder } from '../helpers/browser.ts';

const NOTICES = '../shared/corpus/txt/msd_bnm_public_notice_english.csv';
const TEAMS = ['ops', 'finance', 'audit'];
const QUERY = 'bank negara malaysia';
const FACETS = 'metadata.custom.team, source.extension, created_at:month';

const notices = readFileSync(NOTICES, 'utf8')
  .split(/\n\s*\n/)
  .map((part) => part.replace(/\s+/g, ' ').trim())
  .filter((part) => part.length > 200)
  .slice(0, 9);

const server = useTestServer({}, async (started) => {
  for (const [i, text] of notices.entries()) {
    const accepted = await uploadText(started.url, KEYS.alpha, { document_id: `notice-${i}`, text: text.slice(0, 1200), metadata: { team: TEAMS[i % 3] } });
    assert.equal(accepted.status, 202, accepted.text);
    assert.equal((await waitForJob(started.url, KEYS.alpha, accepted.json.job_id)).status, 'completed');
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

const shot = (name: string) => page.screenshot({ path: `${SHOTS}${name}.png`, fullPage: true });
const apiSearch = async (body: Record<string, unknown>) => {
  const answer = await api(server.url, '/search', { method: 'POST', key: KEYS.alpha, body: { query: QUERY, scope: 'content', limit: 10, ...body } });
  assert.equal(answer.status, 200, answer.text);
  return answer.json;
};

/** The facet panel of one path as shown: [value, count] per row. */
async function shownFacet(path: string): Promise<[string, string][]> {
  const rows = page.locator(`#search-facets section[data-facet="${path}"] li`);
  const texts: [string, string][] = [];
  for (const row of await rows.all()) texts.push([(await row.locator('.facet-value').textContent()) ?? '', (await row.locator('.count').textContent()) ?? '']);
  return texts;
}

const shownHits = () => page.locator('#search-results li.hit').evaluateAll((hits) => hits.map((hit) => hit.getAttribute('data-document-id')));

test('facets beside the results count as the API does, a click filters by the value, the sort choice orders the hits', async () => {
  await page.goto(`${server.url}/console`);
  await page.getByLabel('API key').fill(KEYS.alpha);
  await page.getByRole('button', { name: 'Connect' }).click();
  await page.locator('#message', { hasText: 'Connected' }).waitFor();

  await page.locator('details.options summary').click();
  await page.locator('#search-facets-paths').fill(FACETS);
  await page.getByLabel('Query').fill(QUERY);
  await page.getByLabel('Query').press('Enter');
  await page.locator('#search-facets section[data-facet="metadata.custom.team"] li').first().waitFor();
  // What the console sends for FACETS.
  const facets = ['metadata.custom.team', 'source.extension', { field: 'created_at', interval: 'month' }];
  const expected = await apiSearch({ facets });
  for (const path of ['metadata.custom.team', 'source.extension', 'created_at']) {
    const counts = expected.meta.facets[path];
    assert.ok(counts.values.length > 0, path);
    assert.deepEqual(await shownFacet(path), counts.values.map((entry: any) => [String(entry.value), String(entry.count)]), `facet ${path} as shown`);
  }
  assert.deepEqual(await shownHits(), expected.results.map((row: any) => row.document_version.document_id));
  await shot('facets-01-search');

  // The sort choice: oldest first, as the API orders the same search.
  const sort = [{ field: 'created_at', order: 'asc' }];
  const sorted = await apiSearch({ facets, sort });
  const oldest = sorted.results.map((row: any) => row.document_version.document_id);
  assert.notDeepEqual(oldest, expected.results.map((row: any) => row.document_version.document_id), 'oldest first is another order than relevance here');
  await page.getByLabel('Sort').selectOption('created_at:asc');
  await page.waitForFunction((ids) => [...(globalThis as any).document.querySelectorAll('#search-results li.hit')].map((hit: any) => hit.getAttribute('data-document-id')).join() === ids.join(), oldest);
  assert.deepEqual(await shownHits(), oldest);
  assert.deepEqual(await shownFacet('metadata.custom.team'), sorted.meta.facets['metadata.custom.team'].values.map((entry: any) => [String(entry.value), String(entry.count)]), 'a sort changes no count');
  await shot('facets-02-oldest-first');

  // A date bucket is no exact value: shown as text, not as a filter button.
  assert.equal(await page.locator('#search-facets section[data-facet="created_at"] button').count(), 0);
  const finance = page.locator('#search-facets section[data-facet="metadata.custom.team"] button', { hasText: 'finance' });
  await finance.click();
  // The search again under the filter: the team facet is left with its one value.
  await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('#search-facets section[data-facet="metadata.custom.team"] li').length === 1);
  assert.match(await page.getByLabel(/^Filters/).inputValue(), /^metadata\.custom\.team=finance$/m);
  const filtered = await apiSearch({ facets, sort, filters: { 'metadata.custom.team': 'finance' } });
  assert.ok(filtered.meta.total > 0 && filtered.meta.total < expected.meta.total);
  assert.deepEqual(await shownFacet('metadata.custom.team'), [['finance', String(filtered.meta.total)]]);
  assert.deepEqual(await shownHits(), filtered.results.map((row: any) => row.document_version.document_id));
  await shot('facets-03-filtered');
  assert.deepEqual(pageErrors, []);
});
