// `hds ingest` at a small rate limit (8 requests a minute, so that a folder of four files needs more than one
// window: a listing, four uploads and four polls at least): the CLI keeps within the budget it is told and waits
// with the wait shown, so the service answers no 429 at all; told a budget larger than the real one, it learns the
// real one from the first answer's RateLimit-* headers, waits instead of meeting the limit request after request,
// honours any Retry-After and still ends with every file completed. The service's own counters (/metrics, which
// spends no Client's budget) say how many 429s it answered. Each case waits out a window of the service's (a real
// minute), so the two run side by side, each on a service of its own, whose counters are its case's alone.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { api, KEYS, removeDir, startTestServer } from '../helpers/server.ts';
import type { TestServer } from '../helpers/server.ts';
import { childEnv } from '../helpers/child-env.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CORPUS = fileURLToPath(new URL('../../../shared/corpus/', import.meta.url));
const LIMIT = 8;
const FILES = ['txt/tika_testMARKDOWN.md', 'txt/tika_multi-language.txt', 'docx/mammoth_tables.docx', 'html/tika_testHTML.html'];

async function withLimitedServer(body: (server: TestServer) => Promise<void>): Promise<void> {
  const server = await startTestServer({ RATE_LIMIT_PER_MINUTE: String(LIMIT), SEARCH_RATE_LIMIT_PER_MINUTE: String(LIMIT) });
  try {
    await body(server);
  } finally {
    await server.close();
    removeDir(server.dataDir);
  }
}

function hds(server: TestServer, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['src/cli.ts', '--url', server.url, ...args], { cwd: ROOT, env: childEnv() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** 429 answers the service has counted so far, over every route. */
async function refusalsCounted(server: TestServer): Promise<number> {
  const exposition = (await api(server.url, '/metrics', { key: KEYS.operator })).text as string;
  return exposition
    .split('\n')
    .filter((line) => line.startsWith('http_requests_total{') && line.includes('status="429"'))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hds-cli-budget-'));
  for (const file of FILES) copyFileSync(join(CORPUS, file), join(dir, file.split('/').pop()!));
  return dir;
}

test('at a rate limit of 8 requests a minute', { concurrency: true }, async (t) => {
  await Promise.all([
    t.test('told the Client\'s budget, ingest waits for the rate limit and shows it, and the service refuses nothing', () =>
      withLimitedServer(async (server) => {
        const dir = folder();
        try {
          const before = await refusalsCounted(server);
          const run = await hds(server, ['--key', KEYS.alpha, '--rate-limit', String(LIMIT), 'ingest', dir]);
          assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
          assert.match(run.stdout, new RegExp(`^${FILES.length} completed, 0 skipped \\(already held\\), 0 failed$`, 'm'));
          assert.match(run.stderr, /waiting \d+ s for the rate limit/, `the wait is shown\n${run.stderr}`);
          assert.doesNotMatch(run.stderr, /\b1s left\b/);
          const cost = /took .+ and (\d+) requests; waited (.+) for the rate limit\n/.exec(run.stdout);
          assert.ok(cost, run.stdout);
          assert.ok(Number(cost[1]) > LIMIT, 'the run needed more than one window');
          assert.ok(Number(cost[1]) <= 1 + 2 * FILES.length + 2, `about one status request per file: ${cost[1]} requests`);
          assert.notEqual(cost[2], '0 s', 'the summary says how long the run waited');
          assert.equal(await refusalsCounted(server), before, 'no request met the limit');
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }),
    ),
    t.test('told a larger budget than the real one, ingest keeps to the one the service tells, honours any Retry-After, and every file completes', () =>
      withLimitedServer(async (server) => {
        const dir = folder();
        try {
          const before = await refusalsCounted(server);
          const run = await hds(server, ['--key', KEYS.beta, '--rate-limit', '1000', 'ingest', dir, '--poll-ms', '100', '--json']);
          assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
          const report = JSON.parse(run.stdout);
          assert.deepEqual(report.outcomes.map((outcome: { status: string }) => outcome.status), FILES.map(() => 'completed'), 'nothing refused');
          // The guess of 1,000 a minute would send every poll at once; the limit of 8 the service tells holds them. An
          // upload in flight when the window filled may still meet it, never most of the run's requests.
          assert.ok(report.requests > LIMIT, 'the run needed more than one window');
          assert.ok(report.rate_limit_refusals < FILES.length, `${report.rate_limit_refusals} of ${report.requests} requests met the limit`);
          assert.ok(report.rate_limit_wait_ms > 0, 'the CLI waited for the budget it was told');
          assert.match(run.stderr, /^waiting \d+ s for the rate limit$/m, 'without a bar the wait is said on stderr, stdout stays JSON');
          assert.equal(await refusalsCounted(server), before + report.rate_limit_refusals, 'each 429 the service sent was honoured once, then the request went again');
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }),
    ),
  ]);
});
