// What an operator sees of a running service (README "Operators"): a worker's log line for each job outcome,
// one log line per request at REQUEST_LOG_LEVEL, Node's process metrics labelled per process under the
// supervisor, and the build_info gauge. The lines are read from the real processes' stdout, the metrics
// scraped from /metrics with an operator key.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { api, KEYS, removeDir, startTestServer, uploadFile, uploadText, waitForJob } from '../helpers/server.ts';
import { childPids, fresh, setMode, until } from '../helpers/processes.ts';
import { CORPUS } from '../helpers/corpus-expectations.ts';
import { TEST_STORE } from '../helpers/test-store.ts';

type LogLine = Record<string, unknown>;

function logLines(stdout: string): LogLine[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

/** The samples of a Prometheus exposition: metric name, labels and value of each line. */
function samples(exposition: string): { name: string; labels: Record<string, string>; value: number }[] {
  return exposition
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = /^(\w+)(?:\{(.*)\})? (\S+)$/.exec(line)!;
      const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((pair) => [pair[1], pair[2]]));
      return { name: match[1], labels, value: Number(match[3]) };
    });
}

const STATEMENT = readFileSync(new URL('txt/mt940_ASNB_0708271685_09022020_164516.940.txt', CORPUS));
/** A custom metadata value and a phrase of the text: neither may reach a log line. */
const HOLDER = 'Zainab binti Osman';
const PHRASE = 'Remittance advice for the Tawau estate payroll';

test('a worker logs one job_outcome line per run (id, operation, state, duration, error code), never the text or metadata; requests below LOG_LEVEL write nothing but a 503 is a warning', async () => {
  // CLIENT_MAX_CHUNKS 2: the one-chunk text fits, the bank statement (several chunks) fails in the worker.
  const server = await startTestServer({ LOG_LEVEL: 'info', REQUEST_LOG_LEVEL: 'debug', CLIENT_MAX_CHUNKS: '2', API_PROCESSES: '1' });
  try {
    const fits = await uploadText(server.url, KEYS.alpha, { document_id: 'fits', text: PHRASE, metadata: { holder: HOLDER } });
    assert.equal((await waitForJob(server.url, KEYS.alpha, fits.json.job_id)).status, 'completed');
    const tooBig = await uploadFile(server.url, KEYS.alpha, { document_id: 'statement', metadata: JSON.stringify({ holder: HOLDER }) }, { name: 'statement.940.txt', bytes: STATEMENT, type: 'text/plain' });
    assert.equal(tooBig.status, 202, JSON.stringify(tooBig.json));
    const failed = await waitForJob(server.url, KEYS.alpha, tooBig.json.job_id);
    assert.equal(failed.status, 'failed', JSON.stringify(failed));
    assert.equal(failed.error_details.code, 'client_quota_exceeded');

    const outcomeOf = (jobId: string) => logLines(server.server.stdout()).filter((line) => line.event === 'job_outcome' && line.job_id === jobId);
    // The outcome is recorded before the line is written: wait for the line itself.
    await until('both outcome lines', () => outcomeOf(fits.json.job_id).length === 1 && outcomeOf(tooBig.json.job_id).length === 1);
    const [completed] = outcomeOf(fits.json.job_id);
    const [failure] = outcomeOf(tooBig.json.job_id);
    assert.equal(completed.level, 30, 'a completed run is info');
    assert.equal(completed.state, 'completed');
    assert.equal(completed.operation, 'embed');
    assert.equal(completed.error_code, null);
    assert.equal(completed.attempt, 1);
    assert.equal(completed.client_id, 'client-alpha');
    assert.equal(completed.process, 'worker-0');
    assert.ok(typeof completed.duration_ms === 'number' && completed.duration_ms > 0, JSON.stringify(completed));
    assert.equal(failure.level, 40, 'a failed run is a warning');
    assert.equal(failure.state, 'failed');
    assert.equal(failure.error_code, 'client_quota_exceeded');
    assert.ok(typeof failure.duration_ms === 'number' && failure.duration_ms > 0);

    const stdout = server.server.stdout();
    assert.equal(stdout.includes(HOLDER), false, 'no metadata value is logged');
    assert.equal(stdout.includes('Tawau'), false, 'no document text is logged');
    assert.equal(stdout.includes('paulissen'), false, 'no text of the failed document is logged');
    assert.equal(stdout.includes('Client quota exceeded'), false, 'no error message is logged, only its code');
    // REQUEST_LOG_LEVEL debug under LOG_LEVEL info: the uploads and the polls wrote no line.
    assert.deepEqual(logLines(stdout).filter((line) => line.msg === 'request completed' || line.msg === 'incoming request'), []);

    // A 503 is logged whatever REQUEST_LOG_LEVEL says, as a warning.
    await setMode(server.url, 'MAINTENANCE');
    try {
      const refused = await fresh(server.url, '/search', { key: KEYS.alpha, body: { query: 'payroll' } });
      assert.equal(refused.status, 503);
      const requestId = refused.headers['x-request-id'];
      const [line] = await until('the refusal to be logged', () => {
        const found = logLines(server.server.stdout()).filter((entry) => entry.reqId === requestId && entry.msg === 'request completed');
        return found.length > 0 ? found : null;
      });
      assert.equal(line.level, 40);
      assert.equal(line.status, 503);
      assert.equal(line.route, '/search');
    } finally {
      await setMode(server.url, 'READY');
    }
  } finally {
    await server.close();
    removeDir(server.dataDir);
  }
});

test('each request writes one line at REQUEST_LOG_LEVEL, its path without the query string', async () => {
  const server = await startTestServer({ LOG_LEVEL: 'info', API_PROCESSES: '1' });
  try {
    const listing = await api(server.url, `/documents?metadata_filter=${encodeURIComponent(`metadata.custom.holder:${HOLDER}`)}`, { key: KEYS.alpha, headers: { 'X-Request-Id': 'listing-1' } });
    assert.equal(listing.status, 200, listing.text);
    const missing = await api(server.url, '/status/no-such-job', { key: KEYS.alpha, headers: { 'X-Request-Id': 'missing-1' } });
    assert.equal(missing.status, 404);
    const linesOf = (requestId: string) => logLines(server.server.stdout()).filter((line) => line.reqId === requestId);
    await until('both requests to be logged', () => linesOf('listing-1').length > 0 && linesOf('missing-1').length > 0);
    const [listed, ...more] = linesOf('listing-1');
    assert.deepEqual(more, [], 'one line per request');
    assert.equal(listed.msg, 'request completed');
    assert.equal(listed.level, 30);
    assert.equal(listed.method, 'GET');
    assert.equal(listed.path, '/documents');
    assert.equal(listed.route, '/documents');
    assert.equal(listed.status, 200);
    assert.equal(listed.client_id, 'client-alpha');
    assert.equal(listed.process, 'api-0');
    assert.ok(typeof listed.response_time_ms === 'number');
    const [notFound, ...again] = linesOf('missing-1');
    assert.deepEqual(again, []);
    assert.equal(notFound.status, 404);
    assert.equal(notFound.level, 30, 'a refusal is the caller\'s: at REQUEST_LOG_LEVEL, not an error');
    assert.equal(notFound.route, '/status/:job_id');
    assert.equal(server.server.stdout().includes('Zainab'), false, 'the query string is never logged');
  } finally {
    await server.close();
    removeDir(server.dataDir);
  }
});

test('/metrics labels Node\'s process metrics per process (api-0, api-1, worker-0, kept across a restart) and holds one build_info', async () => {
  const server = await startTestServer({ API_PROCESSES: '2', WORKER_PROCESSES: '1' });
  try {
    const scrape = async () => samples((await api(server.url, '/metrics', { key: KEYS.operator })).text);
    const labelsOf = (all: Awaited<ReturnType<typeof scrape>>, name: string) => all.filter((sample) => sample.name === name).map((sample) => sample.labels.process).sort();
    const all = await scrape();
    assert.deepEqual(labelsOf(all, 'process_resident_memory_bytes'), ['api-0', 'api-1', 'worker-0'], 'one series a process, not their sum');
    assert.deepEqual(labelsOf(all, 'nodejs_heap_size_used_bytes'), ['api-0', 'api-1', 'worker-0']);
    assert.deepEqual(labelsOf(all, 'process_start_time_seconds'), ['api-0', 'api-1', 'worker-0'], 'each start time, not dropped as an aggregate would be');
    for (const sample of all.filter((sample) => sample.name === 'process_resident_memory_bytes')) assert.ok(sample.value > 0);
    assert.deepEqual(labelsOf(all, 'serving_chunks'), ['api-0', 'api-1']);
    // The request counters are the deployment's: summed over the api processes, with no process label.
    assert.ok(all.filter((sample) => sample.name === 'http_requests_total').every((sample) => sample.labels.process === undefined));

    const health = await api(server.url, '/health', { key: null });
    const build = all.filter((sample) => sample.name === 'build_info');
    assert.deepEqual(build, [{ name: 'build_info', labels: { version: health.json.version, node_version: process.version, store: TEST_STORE }, value: 1 }]);

    // A restarted worker is worker-0 again, with its new start time: the same series, not a new one.
    const startOf = (samplesNow: Awaited<ReturnType<typeof scrape>>) => samplesNow.find((sample) => sample.name === 'process_start_time_seconds' && sample.labels.process === 'worker-0')?.value;
    const firstStart = startOf(all)!;
    const [worker] = childPids(server.server, 'worker');
    process.kill(worker, 'SIGKILL');
    await until('the worker to be replaced', () => childPids(server.server, 'worker').some((pid) => pid !== worker));
    const after = await until('the new worker in /metrics', async () => {
      const now = await scrape();
      const start = startOf(now);
      return start !== undefined && start > firstStart ? now : null;
    });
    assert.deepEqual(labelsOf(after, 'process_resident_memory_bytes'), ['api-0', 'api-1', 'worker-0']);
  } finally {
    await server.close();
    removeDir(server.dataDir);
  }
});
