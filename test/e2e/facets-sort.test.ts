// Facets and sorting of POST /search and GET /documents (DESIGN.md "Facets, sorting, synonyms, similar
// documents"), on the real service and store (TEST_STORE picks SQLite or PostgreSQL). Every expected count and
// order is computed here, independently, from what GET /documents (and the text route, for entities) says each
// matched version holds, over the versions the search's own pages list; the answers are compared with them.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { useTestServer, api, KEYS, uploadText, waitForJob } from '../helpers/server.ts';
import { createSearchClient } from '../../clients/typescript/src/index.ts';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { childEnv } from '../helpers/child-env.ts';

const NOTICES = '../shared/corpus/txt/msd_bnm_public_notice_english.csv';
const NEWS = '../shared/corpus/txt/msd_malay_news_fake-news.csv';
const TEAMS = ['ops', 'finance', 'audit'];
/** A query most of the notices match, and few of the Malay news items. */
const QUERY = 'bank negara malaysia';

function paragraphs(path: string): string[] {
  return readFileSync(path, 'utf8')
    .split(/\n\s*\n/)
    .map((part) => part.replace(/\s+/g, ' ').trim())
    .filter((part) => part.length > 200);
}

/**
 * Custom metadata with ties, gaps and lists: `amount` repeats (ties broken by relevance) and is missing on one in
 * four, `due` is an ISO date missing on every fifth, `tags` a list (a version counts once per value it holds).
 */
function metadataOf(i: number): Record<string, unknown> {
  const metadata: Record<string, unknown> = { team: TEAMS[i % 3], tags: i % 2 === 0 ? ['retail', 'notice'] : ['notice'] };
  if (i % 4 !== 1) metadata.amount = (i * 37) % 5;
  if (i % 5 !== 4) metadata.due = `202${5 + (i % 2)}-0${1 + (i % 3)}-${String(10 + (i % 7)).padStart(2, '0')}T08:00:00Z`;
  return metadata;
}

const DOCUMENTS = [...paragraphs(NOTICES).slice(0, 14), ...paragraphs(NEWS).slice(0, 4)].map((text, i) => ({
  id: `doc-${String(i).padStart(2, '0')}`,
  text: text.slice(0, 1500),
  metadata: metadataOf(i),
}));

const server = useTestServer({}, async (started) => {
  for (const document of DOCUMENTS) {
    const accepted = await uploadText(started.url, KEYS.alpha, { document_id: document.id, text: document.text, metadata: document.metadata });
    assert.equal(accepted.status, 202, accepted.text);
    assert.equal((await waitForJob(started.url, KEYS.alpha, accepted.json.job_id)).status, 'completed');
  }
});

const search = (body: Record<string, unknown>) => api(server.url, '/search', { method: 'POST', key: KEYS.alpha, body: { query: QUERY, scope: 'content', ...body } });

interface Listed {
  document_id: string;
  version_id: string | null;
  metadata: Record<string, any>;
  created_at: string;
  entities?: Record<string, string[]>;
}

const identity = (row: { document_id: string; version_id: string | null }) => `${row.document_id}@${row.version_id}`;

/** Every version GET /documents lists, page by page (limit 5), by identity. */
async function listedVersions(): Promise<Map<string, Listed>> {
  const byIdentity = new Map<string, Listed>();
  for (let offset = 0; ; offset += 5) {
    const page = await api(server.url, `/documents?limit=5&offset=${offset}`, { key: KEYS.alpha });
    assert.equal(page.status, 200, page.text);
    for (const row of page.json.documents) byIdentity.set(identity(row), row);
    if (!page.json.has_more) break;
  }
  for (const row of byIdentity.values()) {
    const text = await api(server.url, `/document/${row.document_id}/text?chunk_limit=1`, { key: KEYS.alpha });
    assert.equal(text.status, 200, text.text);
    row.entities = text.json.entities;
  }
  return byIdentity;
}

/** The versions a search matched, in its order, read page by page (limit 4); the total must be exact. */
async function matchedInOrder(body: Record<string, unknown>): Promise<{ order: string[]; pages: any[] }> {
  const order: string[] = [];
  const pages: any[] = [];
  for (let offset = 0; ; offset += 4) {
    const page = await search({ ...body, limit: 4, offset });
    assert.equal(page.status, 200, page.text);
    pages.push(page.json);
    page.json.results.forEach((row: any, index: number) => {
      assert.equal(row.rank, offset + index + 1, 'rank is the position across pages');
      order.push(identity(row.document_version));
    });
    if (!page.json.meta.has_more) break;
  }
  assert.equal(pages[0].meta.total_is_lower_bound, false, 'the corpus is far below the candidate cap: the total is exact');
  assert.equal(order.length, pages[0].meta.total);
  assert.equal(new Set(order).size, order.length, 'one row per Document Version');
  return { order, pages };
}

type Value = string | number | boolean;

/** Values a listed version holds at a facet path, bucketed by an interval (an ISO prefix). */
function heldValues(row: Listed, path: string, interval?: 'day' | 'month' | 'year'): Value[] {
  let values: unknown[];
  if (path === 'created_at') values = [row.created_at];
  else if (path.startsWith('metadata.custom.')) {
    const value = row.metadata.custom?.[path.slice('metadata.custom.'.length)];
    values = value === undefined || value === null ? [] : Array.isArray(value) ? value : [value];
  } else if (path === 'organizations') values = row.entities?.organizations ?? [];
  else {
    const [group, field] = path.split('.');
    const value = row.metadata[group]?.[field];
    values = value === undefined || value === null ? [] : Array.isArray(value) ? value : [value];
  }
  const length = { year: 4, month: 7, day: 10 };
  const bucketed = interval ? values.filter((value): value is string => typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value)).map((value) => value.slice(0, length[interval])) : values;
  return [...new Set(bucketed as Value[])];
}

function compareValues(a: Value, b: Value): number {
  const rank = (value: Value) => ({ number: 0, string: 1, boolean: 2 })[typeof value as 'number' | 'string' | 'boolean'];
  if (rank(a) !== rank(b)) return rank(a) - rank(b);
  return typeof a === 'number' && typeof b === 'number' ? a - b : a < b ? -1 : a > b ? 1 : 0;
}

/** The facet as the design defines it: counts over the versions, most frequent first, ties by value. */
function expectedFacet(rows: Listed[], path: string, limit: number, interval?: 'day' | 'month' | 'year') {
  const counts = new Map<string, { value: Value; count: number }>();
  for (const row of rows) {
    for (const value of heldValues(row, path, interval)) {
      const key = `${typeof value}:${value}`;
      const entry = counts.get(key) ?? { value, count: 0 };
      entry.count++;
      counts.set(key, entry);
    }
  }
  const ordered = [...counts.values()].sort((a, b) => b.count - a.count || compareValues(a.value, b.value));
  return { values: ordered.slice(0, limit), other_count: ordered.slice(limit).reduce((sum, entry) => sum + entry.count, 0), is_lower_bound: false };
}

const FACETS = ['metadata.custom.team', 'metadata.custom.tags', 'metadata.custom.amount', 'source.extension', 'classification.status', 'organizations', { field: 'created_at', interval: 'month' }];

test('facets count the matched versions, as GET /documents says they hold their values, on every page alike', async () => {
  const listed = await listedVersions();
  const { order, pages } = await matchedInOrder({ facets: FACETS });
  assert.ok(order.length >= 8 && order.length < DOCUMENTS.length, `the query matches most but not all versions (${order.length} of ${DOCUMENTS.length})`);
  const matched = order.map((key) => listed.get(key)!);
  for (const page of pages) {
    for (const facet of FACETS) {
      const path = typeof facet === 'string' ? facet : facet.field;
      const interval = typeof facet === 'string' ? undefined : (facet.interval as 'month');
      assert.deepEqual(page.meta.facets[path], expectedFacet(matched, path, 10, interval), `facet ${path} at offset ${page.meta.offset}`);
    }
  }
  // The facets hold values at all (a facet of nothing would compare equal to an empty expectation).
  assert.ok(pages[0].meta.facets['metadata.custom.team'].values.length === 3);
  assert.ok(pages[0].meta.facets['metadata.custom.amount'].values.length >= 3);
  // Without facets the answer has none; a page past the end counts nothing, as its total is 0 (SPEC.md rule 10).
  assert.equal('facets' in (await search({})).json.meta, false);
  const past = await search({ facets: ['metadata.custom.team'], offset: 150, limit: 10 });
  assert.equal(past.json.meta.total, 0);
  assert.deepEqual(past.json.meta.facets['metadata.custom.team'], { values: [], other_count: 0, is_lower_bound: false });
});

test('a filter changes no facet definition, only its counts: the filtered facet is the facet of the filtered matched set', async () => {
  const listed = await listedVersions();
  const all = await matchedInOrder({ facets: FACETS });
  const filtered = await matchedInOrder({ facets: FACETS, filters: { 'metadata.custom.team': 'finance' } });
  assert.ok(filtered.order.length > 0 && filtered.order.length < all.order.length);
  assert.ok(filtered.order.every((key) => all.order.includes(key)));
  const rows = filtered.order.map((key) => listed.get(key)!);
  for (const facet of FACETS) {
    const path = typeof facet === 'string' ? facet : facet.field;
    const interval = typeof facet === 'string' ? undefined : (facet.interval as 'month');
    assert.deepEqual(filtered.pages[0].meta.facets[path], expectedFacet(rows, path, 10, interval), `facet ${path} under the filter`);
  }
  // The team facet under its own filter: the one value left, counted over the filtered versions.
  assert.deepEqual(filtered.pages[0].meta.facets['metadata.custom.team'].values, [{ value: 'finance', count: filtered.order.length }]);
  const unfilteredFinance = all.pages[0].meta.facets['metadata.custom.team'].values.find((entry: any) => entry.value === 'finance');
  assert.equal(unfilteredFinance.count, filtered.order.length);
});

test('facet_limit keeps the most frequent values and other_count sums the rest', async () => {
  const listed = await listedVersions();
  const { order, pages } = await matchedInOrder({ facets: ['metadata.custom.amount', { field: 'metadata.custom.due', interval: 'day' }], facet_limit: 2 });
  const matched = order.map((key) => listed.get(key)!);
  const amount = pages[0].meta.facets['metadata.custom.amount'];
  assert.deepEqual(amount, expectedFacet(matched, 'metadata.custom.amount', 2));
  assert.equal(amount.values.length, 2);
  assert.ok(amount.other_count > 0);
  const withAmount = matched.filter((row) => typeof row.metadata.custom.amount === 'number').length;
  assert.equal(amount.values.reduce((sum: number, entry: any) => sum + entry.count, 0) + amount.other_count, withAmount, 'each version with an amount counted once');
  assert.deepEqual(pages[0].meta.facets['metadata.custom.due'], expectedFacet(matched, 'metadata.custom.due', 2, 'day'));
});

test('date intervals bucket by ISO prefix: year, month and day', async () => {
  const listed = await listedVersions();
  for (const interval of ['year', 'month', 'day'] as const) {
    const { order, pages } = await matchedInOrder({ facets: [{ field: 'metadata.custom.due', interval }, { field: 'created_at', interval }] });
    const matched = order.map((key) => listed.get(key)!);
    const due = pages[0].meta.facets['metadata.custom.due'];
    assert.deepEqual(due, expectedFacet(matched, 'metadata.custom.due', 10, interval));
    for (const entry of due.values) assert.equal(String(entry.value).length, { year: 4, month: 7, day: 10 }[interval]);
    assert.deepEqual(pages[0].meta.facets.created_at, expectedFacet(matched, 'created_at', 10, interval));
  }
  const years = (await search({ facets: [{ field: 'metadata.custom.due', interval: 'year' }] })).json.meta.facets['metadata.custom.due'].values.map((entry: any) => entry.value);
  assert.deepEqual([...years].sort(), ['2025', '2026']);
});

type SortSpec = { field: string; order: 'asc' | 'desc' };

function sortValue(row: Listed, field: string, order: 'asc' | 'desc'): number | string | null {
  const values = field === 'created_at' ? [row.created_at] : heldValues(row, field);
  const typed = values.map((value) => (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : value)).filter((value) => typeof value === 'number' || typeof value === 'string') as (number | string)[];
  if (typed.length === 0) return null;
  return typed.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))[order === 'asc' ? 0 : typed.length - 1];
}

/** The order the design defines: by the keys, missing values last, then the relevance order. */
function expectedOrder(relevance: string[], listed: Map<string, Listed>, keys: SortSpec[]): string[] {
  return [...relevance].sort((a, b) => {
    for (const key of keys) {
      const left = sortValue(listed.get(a)!, key.field, key.order);
      const right = sortValue(listed.get(b)!, key.field, key.order);
      if (left === null || right === null) {
        if (left !== right) return left === null ? 1 : -1;
        continue;
      }
      if (left !== right) return (left < right ? -1 : 1) * (key.order === 'asc' ? 1 : -1);
    }
    return relevance.indexOf(a) - relevance.indexOf(b);
  });
}

test('sort orders every matched version across pages: missing values last, relevance breaking ties', async () => {
  const listed = await listedVersions();
  const relevance = (await matchedInOrder({})).order;
  const cases: SortSpec[][] = [
    [{ field: 'metadata.custom.amount', order: 'desc' }],
    [{ field: 'metadata.custom.amount', order: 'asc' }],
    [{ field: 'metadata.custom.due', order: 'asc' }],
    [{ field: 'metadata.custom.team', order: 'asc' }, { field: 'metadata.custom.amount', order: 'desc' }],
    [{ field: 'created_at', order: 'desc' }],
  ];
  for (const sort of cases) {
    const { order } = await matchedInOrder({ sort });
    const expected = expectedOrder(relevance, listed, sort);
    assert.deepEqual(order, expected, JSON.stringify(sort));
    assert.notDeepEqual(expected, relevance, `${JSON.stringify(sort)} reorders the relevance order`);
  }
  // Missing values last in both orders: the versions without an amount end both lists.
  const without = relevance.filter((key) => typeof listed.get(key)!.metadata.custom.amount !== 'number');
  assert.ok(without.length > 0, JSON.stringify(relevance.map((key) => [key, listed.get(key)!.metadata.custom])));
  for (const order of ['asc', 'desc'] as const) {
    const sorted = (await matchedInOrder({ sort: [{ field: 'metadata.custom.amount', order }] })).order;
    assert.deepEqual(sorted.slice(-without.length), without);
  }
  // A sorted search is a sorted page of the same matched set: the same total, the same facets.
  const plain = await search({ facets: ['metadata.custom.team'] });
  const sorted = await search({ facets: ['metadata.custom.team'], sort: [{ field: 'metadata.custom.amount', order: 'desc' }] });
  assert.equal(sorted.json.meta.total, plain.json.meta.total);
  assert.deepEqual(sorted.json.meta.facets, plain.json.meta.facets);
});

test('GET /documents answers facets and sorts its rows, as its own pages say the versions hold', async () => {
  const listed = await listedVersions();
  const rows = [...listed.values()];
  const answer = await api(server.url, `/documents?limit=3&facets=${encodeURIComponent('metadata.custom.team,metadata.custom.tags,metadata.custom.due:year,organizations')}&facet_limit=2`, { key: KEYS.alpha });
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.json.documents.length, 3);
  assert.deepEqual(answer.json.facets['metadata.custom.team'], expectedFacet(rows, 'metadata.custom.team', 2));
  assert.deepEqual(answer.json.facets['metadata.custom.tags'], expectedFacet(rows, 'metadata.custom.tags', 2));
  assert.deepEqual(answer.json.facets['metadata.custom.due'], expectedFacet(rows, 'metadata.custom.due', 2, 'year'));
  assert.deepEqual(answer.json.facets.organizations, expectedFacet(rows, 'organizations', 2));
  const filtered = await api(server.url, `/documents?facets=metadata.custom.team&metadata_filter=${encodeURIComponent('metadata.custom.team:audit')}`, { key: KEYS.alpha });
  assert.deepEqual(filtered.json.facets['metadata.custom.team'].values, [{ value: 'audit', count: filtered.json.total }]);

  // The identity order of the list breaks the sort's ties.
  const byIdentity = rows.map(identity);
  const keys: SortSpec[] = [{ field: 'metadata.custom.amount', order: 'desc' }, { field: 'metadata.custom.due', order: 'asc' }];
  const sorted: string[] = [];
  for (let offset = 0; ; offset += 5) {
    const page = await api(server.url, `/documents?limit=5&offset=${offset}&sort=${encodeURIComponent('metadata.custom.amount:desc,metadata.custom.due:asc')}`, { key: KEYS.alpha });
    assert.equal(page.status, 200, page.text);
    sorted.push(...page.json.documents.map(identity));
    if (!page.json.has_more) break;
  }
  assert.deepEqual(sorted, expectedOrder(byIdentity, listed, keys));
});

test('bad facets and sort keys are 422 on POST /search (400 on GET /documents) and name what is wrong', async () => {
  const eleven = Array.from({ length: 11 }, (_, i) => (i % 2 === 0 ? `metadata.custom.k${i}` : 'source.extension'));
  const cases: [Record<string, unknown>, (string | number)[]][] = [
    [{ facets: eleven }, ['body', 'facets']],
    [{ facets: ['source.colour'] }, ['body', 'facets', 0]],
    [{ facets: ['client_id'] }, ['body', 'facets', 0]],
    [{ facets: ['metadata.custom.'] }, ['body', 'facets', 0]],
    [{ facets: [{ field: 'created_at', interval: 'week' }] }, ['body', 'facets', 0, 'interval']],
    [{ facets: [{ field: 'source.extension', interval: 'day' }] }, ['body', 'facets', 0, 'interval']],
    [{ facets: ['source.extension', 'source.extension'] }, ['body', 'facets', 1]],
    [{ facet_limit: 0, facets: ['source.extension'] }, ['body', 'facet_limit']],
    [{ facet_limit: 101, facets: ['source.extension'] }, ['body', 'facet_limit']],
    [{ sort: [{ field: 'organizations', order: 'asc' }] }, ['body', 'sort', 0, 'field']],
    [{ sort: [{ field: 'colour', order: 'asc' }] }, ['body', 'sort', 0, 'field']],
    [{ sort: [{ field: 'created_at', order: 'up' }] }, ['body', 'sort', 0, 'order']],
    [{ sort: [{ field: 'created_at' }] }, ['body', 'sort', 0, 'order']],
    [{ sort: [1, 2, 3, 4].map(() => ({ field: 'created_at', order: 'asc' })) }, ['body', 'sort']],
  ];
  for (const [body, loc] of cases) {
    const answer = await search(body);
    assert.equal(answer.status, 422, `${JSON.stringify(body)}: ${answer.text}`);
    assert.equal(answer.json.error_code, 'validation_error');
    assert.ok(
      answer.json.details.some((detail: any) => detail.loc.map(String).join('/') === loc.map(String).join('/')),
      `${JSON.stringify(body)} names ${JSON.stringify(loc)}: ${JSON.stringify(answer.json.details)}`,
    );
  }
  for (const query of ['facets=source.colour', 'facets=created_at:week', 'sort=created_at:up', 'sort=organizations:asc', 'facet_limit=0&facets=source.extension']) {
    const answer = await api(server.url, `/documents?${query}`, { key: KEYS.alpha });
    assert.equal(answer.status, 400, `${query}: ${answer.text}`);
    assert.equal(answer.json.error_code, 'invalid_request');
  }
});

test('the typed client sends facets and sort to both routes and reads their counts', async () => {
  const client = createSearchClient({ baseUrl: server.url, apiKey: KEYS.alpha });
  const listed = await listedVersions();
  const sort = [{ field: 'metadata.custom.amount', order: 'asc' as const }];
  const answer = await client.search({ query: QUERY, scope: 'content', facets: ['metadata.custom.team'], sort, limit: 50 });
  const order = answer.results.map((row) => identity(row.document_version));
  assert.deepEqual(answer.meta.facets?.['metadata.custom.team'], expectedFacet(order.map((key) => listed.get(key)!), 'metadata.custom.team', 10));
  assert.deepEqual(order, expectedOrder((await matchedInOrder({})).order, listed, sort));
  const page = await client.documentPage({ facets: ['metadata.custom.due:month'], facetLimit: 3, sort: [{ field: 'metadata.custom.team', order: 'desc' }] });
  assert.deepEqual(page.facets?.['metadata.custom.due'], expectedFacet([...listed.values()], 'metadata.custom.due', 3, 'month'));
  assert.deepEqual(page.documents.map(identity), expectedOrder([...listed.keys()], listed, [{ field: 'metadata.custom.team', order: 'desc' }]));
});

/** `hds` (src/cli.ts) against the test server, its output on pipes. */
function hds(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['src/cli.ts', '--url', server.url, '--key', KEYS.alpha, ...args], { cwd: fileURLToPath(new URL('../../', import.meta.url)), env: childEnv() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

test('hds search --facet and --sort: the answer the CLI asked for, its facets printed under the rows', async () => {
  const sort = [{ field: 'metadata.custom.amount', order: 'desc' as const }, { field: 'created_at', order: 'asc' as const }];
  const expected = await search({ limit: 50, sort, facets: ['metadata.custom.team', { field: 'metadata.custom.due', interval: 'year' }], facet_limit: 2 });
  const asJson = await hds('search', QUERY, '--limit', '50', '--sort', 'metadata.custom.amount:desc', '--sort', 'created_at:asc', '--facet', 'metadata.custom.team', '--facet', 'metadata.custom.due:year', '--facet-limit', '2', '--json');
  assert.equal(asJson.code, 0, asJson.stderr);
  const answer = JSON.parse(asJson.stdout);
  assert.deepEqual(answer.results.map((row: any) => identity(row.document_version)), expected.json.results.map((row: any) => identity(row.document_version)));
  assert.deepEqual(answer.meta.facets, expected.json.meta.facets);
  const plain = await hds('search', QUERY, '--facet', 'metadata.custom.team', '--sort', 'created_at:desc');
  assert.equal(plain.code, 0, plain.stderr);
  const team = expected.json.meta.facets['metadata.custom.team'].values.map((entry: any) => `${entry.value} (${entry.count})`);
  assert.ok(plain.stdout.includes(`metadata.custom.team: ${team.join(', ')}`), plain.stdout);
  const refused = await hds('search', QUERY, '--sort', 'created_at:sideways');
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(refused.stderr, /--sort takes field:asc or field:desc/);
});
