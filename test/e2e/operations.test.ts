import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { useTestServer, startTestServer, api, KEYS, removeDir, spawnServer, baseEnv, tempDataDir, uploadFile, uploadText, waitForJob, untilHealthy } from '../helpers/server.ts';
import { CORPUS, TESSERACT } from '../helpers/corpus-expectations.ts';

const server = useTestServer();

test('GET /health reports components and the publishing block in READY', async () => {
  const response = await api(server.url, '/health', { key: null });
  assert.equal(response.status, 200);
  const body = response.json;
  assert.equal(body.status, 'healthy');
  assert.deepEqual(Object.keys(body.components).sort(), ['api', 'classifier', 'publication', 'state_store', 'vector_store', 'worker_queue']);
  for (const value of Object.values(body.components)) assert.equal(value, 'ok');
  assert.deepEqual(body.publishing, { status: 'ready', reason: null, authority_mode: 'READY' });
  assert.equal(body.diagnostics.publication.authority_mode, 'READY');
  assert.equal(typeof body.diagnostics.publication.collection_schema_digest, 'string');
});

test('GET /health with publication disabled omits the publication component and diagnostics', async () => {
  const disabled = await startTestServer({ PUBLICATION_ENABLED: 'false', CLASSIFICATION_ENABLED: 'false' });
  try {
    const response = await api(disabled.url, '/health', { key: null });
    assert.equal(response.status, 200);
    assert.deepEqual(response.json.publishing, { status: 'ready', reason: null, authority_mode: 'DISABLED' });
    assert.equal(response.json.components.publication, undefined);
    assert.equal(response.json.components.classifier, undefined);
    assert.equal(response.json.diagnostics, undefined);
  } finally {
    await disabled.close();
    removeDir(disabled.dataDir);
  }
});

test('MAINTENANCE makes /health 503 and reads fail closed with Retry-After 1', async () => {
  const response = await api(server.url, '/admin/authority/mode', { key: KEYS.operator, body: { mode: 'MAINTENANCE' } });
  assert.equal(response.status, 200);
  try {
    const health = await api(server.url, '/health', { key: null });
    assert.equal(health.status, 503);
    assert.equal(health.json.components.publication, 'error');
    assert.equal(health.json.publishing.status, 'unavailable');
    const search = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'anything' } });
    assert.equal(search.status, 503);
    assert.equal(search.json.error_code, 'publication_busy');
    assert.equal(search.headers.get('retry-after'), '1');
  } finally {
    await api(server.url, '/admin/authority/mode', { key: KEYS.operator, body: { mode: 'READY' } });
  }
  const health = await untilHealthy(server.url);
  assert.equal(health.status, 200, health.text);
});

test('/openapi.json parses and its version equals /health version', async () => {
  const openapi = await api(server.url, '/openapi.json', { key: KEYS.alpha });
  assert.equal(openapi.status, 200);
  const health = await api(server.url, '/health', { key: null });
  assert.equal(openapi.json.info.version, health.json.version);
  assert.match(health.json.version, /^\d+\.\d+\.\d+/);
  assert.ok(openapi.json.paths['/search'], 'search route documented');
  assert.ok(openapi.json.paths['/search'].post.requestBody, 'search body schema documented');
});

test('/metrics exposes request counters with latency histograms and job gauges', async () => {
  await api(server.url, '/documents', { key: KEYS.alpha });
  const response = await api(server.url, '/metrics', { key: KEYS.operator });
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /text\/plain/);
  assert.match(response.text, /http_requests_total\{method="GET",route="\/documents",status="200"\} \d+/);
  assert.match(response.text, /http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/documents"\}/);
  assert.match(response.text, /# TYPE jobs gauge/);
});

test('an unknown job id is 404 not_found', async () => {
  const response = await api(server.url, '/status/does-not-exist', { key: KEYS.alpha });
  assert.equal(response.status, 404);
  assert.equal(response.json.error_code, 'not_found');
});

test('a bad setting stops start-up with a message naming the setting', async () => {
  const dataDir = tempDataDir();
  try {
    for (const [name, value] of [
      ['PORT', 'eighty'],
      ['HYBRID_ALPHA', '2'],
      ['PUBLICATION_ENABLED', 'yes'],
      ['ALLOWED_CATEGORIES', '{"a":1}'],
    ]) {
      const started = spawnServer(baseEnv(dataDir, { [name]: value }));
      await assert.rejects(started, (error: Error) => {
        assert.match(error.message, new RegExp(`exited with 2 .*Invalid setting ${name}`, 's'));
        return true;
      });
    }
  } finally {
    removeDir(dataDir);
  }
});

test('FENCING serves reads from the pinned snapshot: 200 pinned_ready, health degraded publishing', async () => {
  assert.equal((await api(server.url, '/admin/authority/mode', { key: KEYS.operator, body: { mode: 'FENCING' } })).status, 200);
  try {
    const search = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'nothing matches this zzqx' } });
    assert.equal(search.status, 200);
    assert.equal(search.json.meta.publication_view, 'pinned_ready');
    assert.deepEqual(search.json.results, []);
    assert.equal(search.headers.get('retry-after'), null);
    const health = await api(server.url, '/health', { key: null });
    assert.equal(health.status, 200);
    assert.equal(health.json.status, 'healthy');
    assert.deepEqual(health.json.publishing, { status: 'degraded', reason: 'fencing', authority_mode: 'FENCING' });
  } finally {
    await api(server.url, '/admin/authority/mode', { key: KEYS.operator, body: { mode: 'READY' } });
  }
});

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

test('/metrics holds what a dashboard needs: search latency by scope and lane, job queue and durations, serving size and follower lag per api process, OCR pages', async () => {
  const image = readFileSync(new URL('images/tess_phototest.tif', CORPUS));
  const uploads = [
    await uploadText(server.url, KEYS.alpha, { document_id: 'dashboard-text', text: 'Remittance advice for the Johor branch office.' }),
    await uploadFile(server.url, KEYS.alpha, { document_id: 'dashboard-scan' }, { name: 'phototest.tif', bytes: image }),
  ];
  const [text, scan] = await Promise.all(uploads.map((upload) => waitForJob(server.url, KEYS.alpha, upload.json.job_id, { timeoutMs: 120_000 })));
  assert.equal(text.status, 'completed');
  // Without tesseract the scan fails legibly (OCR unavailable) and no page is counted.
  assert.equal(scan.status, TESSERACT ? 'completed' : 'failed', JSON.stringify(scan));
  for (const scope of ['content', 'both']) assert.equal((await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'remittance Johor', scope } })).status, 200);
  const exposition = (await api(server.url, '/metrics', { key: KEYS.operator })).text;
  const all = samples(exposition);
  const find = (name: string, labels: Record<string, string> = {}) => all.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
  const total = (name: string, labels: Record<string, string> = {}) => find(name, labels).reduce((sum, sample) => sum + sample.value, 0);

  assert.ok(total('search_duration_seconds_count', { scope: 'content', lane: 'all' }) >= 1, 'content searches, whole');
  assert.ok(total('search_duration_seconds_count', { scope: 'content', lane: 'content' }) >= 1, 'content searches, content lane');
  assert.ok(total('search_duration_seconds_count', { scope: 'both', lane: 'metadata' }) >= 1, 'searches of both scopes, metadata lane');
  assert.equal(total('search_duration_seconds_count', { scope: 'content', lane: 'metadata' }), 0, 'a content search runs no metadata lane');
  assert.ok(total('job_duration_seconds_count', { operation: 'embed', outcome: 'completed' }) >= (TESSERACT ? 2 : 1), 'embed runs that completed');
  assert.ok(find('job_duration_seconds_bucket', { operation: 'embed', outcome: 'completed', le: '+Inf' }).length > 0);
  assert.match(exposition, /# TYPE jobs_queued gauge/);
  assert.equal(total('jobs_queued', { operation: 'embed' }), 0, 'nothing waits once every job ended');
  // Per api process, told apart by its label (api-0, api-1, ...): at least the one that answered the searches holds both versions.
  const chunks = find('serving_chunks');
  assert.ok(chunks.length >= 1 && chunks.every((sample) => /^api-\d+$/.test(sample.labels.process)), JSON.stringify(chunks));
  assert.ok(find('serving_versions').some((sample) => sample.value >= (TESSERACT ? 2 : 1)), JSON.stringify(find('serving_versions')));
  // Segment rows count live chunks and the rows no merge has dropped yet: never fewer than the live chunks.
  for (const sample of chunks) assert.ok(total('serving_segment_rows', { process: sample.labels.process }) >= sample.value, JSON.stringify(find('serving_segment_rows')));
  assert.ok(find('serving_segment_rows').some((sample) => sample.value >= 1), JSON.stringify(find('serving_segment_rows')));
  assert.ok(find('follower_lag_entries').every((sample) => sample.value >= 0 && /^api-\d+$/.test(sample.labels.process)));
  assert.ok(find('follower_lag_entries').length >= 1);
  if (TESSERACT) assert.ok(total('ocr_pages_total') >= 1, 'the scanned image was read by OCR');
});

test('jobs_queued counts the jobs that wait for a worker', async () => {
  const idle = await startTestServer({ WORKER_PROCESSES: '0' });
  try {
    for (const id of ['queued-1', 'queued-2']) assert.equal((await uploadText(idle.url, KEYS.alpha, { document_id: id, text: 'Standing instruction form.' })).status, 202);
    const queued = samples((await api(idle.url, '/metrics', { key: KEYS.operator })).text).filter((sample) => sample.name === 'jobs_queued' && sample.labels.operation === 'embed');
    assert.deepEqual(queued.map((sample) => sample.value), [2], 'no worker runs, so both uploads wait');
  } finally {
    await idle.close();
    removeDir(idle.dataDir);
  }
});
