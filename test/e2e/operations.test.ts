import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useTestServer, startTestServer, api, KEYS, removeDir, spawnServer, baseEnv, tempDataDir } from '../helpers/server.ts';

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
  assert.equal((await api(server.url, '/health', { key: null })).status, 200);
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
  const response = await api(server.url, '/metrics', { key: KEYS.alpha });
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
