import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadConfig, ConfigError } from '../src/config.ts';

test('defaults: the embedded service on 127.0.0.1:8080 with the spec limits', () => {
  const config = loadConfig({});
  assert.equal(config.host, '127.0.0.1');
  assert.equal(config.port, 8080);
  assert.equal(config.dataDir, './data');
  assert.equal(config.rateLimitPerMinute, 30);
  assert.equal(config.searchRateLimitPerMinute, 30);
  assert.equal(config.hybridAlpha, 0.5);
  assert.equal(config.maxUploadBytes, 50 * 1024 * 1024);
  assert.equal(config.publicationLifecycleFenceWaitSeconds, 5);
  assert.equal(config.apiKeyClients.size, 0);
  assert.match(config.apiKeyClientsProblem ?? '', /not set/);
});

test('a bad value names its setting', () => {
  for (const [name, value] of [
    ['PORT', '70000'],
    ['RATE_LIMIT_PER_MINUTE', '1.5'],
    ['CLASSIFICATION_ENABLED', 'TRUE'],
    ['EMBEDDING_PROVIDER', 'magic'],
    ['OPERATOR_API_KEYS', '"key"'],
    ['CHUNK_OVERLAP_CHARS', '5000'],
  ]) {
    assert.throws(() => loadConfig({ [name]: value }), (error: unknown) => error instanceof ConfigError && error.setting === name && error.message.includes(name), name);
  }
});

test('API_KEY_CLIENTS maps several keys to one Client; an invalid mapping fails closed instead of stopping start-up', () => {
  const config = loadConfig({ API_KEY_CLIENTS: '{"k1":"c","k2":"c"}' });
  assert.equal(config.apiKeyClients.get('k1'), 'c');
  assert.equal(config.apiKeyClients.get('k2'), 'c');
  assert.equal(config.apiKeyClientsProblem, null);
  const invalid = loadConfig({ API_KEY_CLIENTS: '{"k1": 5}' });
  assert.equal(invalid.apiKeyClients.size, 0);
  assert.ok(invalid.apiKeyClientsProblem);
});

test('STORE chooses the durable store: SQLite by default, PostgreSQL only with a DATABASE_URL', () => {
  const embedded = loadConfig({});
  assert.equal(embedded.store, 'sqlite');
  assert.equal(embedded.databaseUrl, null);
  assert.equal(embedded.databasePoolMax, 10);
  const shared = loadConfig({ STORE: 'postgres', DATABASE_URL: 'postgres://search@db:5432/search', DATABASE_POOL_MAX: '4' });
  assert.equal(shared.store, 'postgres');
  assert.equal(shared.databaseUrl, 'postgres://search@db:5432/search');
  assert.equal(shared.databasePoolMax, 4);
  const names = (env: Record<string, string>) => {
    try {
      loadConfig(env);
      return null;
    } catch (error) {
      return error instanceof ConfigError ? error.setting : String(error);
    }
  };
  assert.equal(names({ STORE: 'postgres' }), 'DATABASE_URL', 'postgres without a URL stops start-up');
  assert.equal(names({ STORE: 'postgres', DATABASE_URL: 'mysql://db/search' }), 'DATABASE_URL');
  assert.equal(names({ STORE: 'mysql' }), 'STORE');
  assert.equal(names({ DATABASE_POOL_MAX: '0' }), 'DATABASE_POOL_MAX');
  assert.equal(names({ STORE: 'sqlite', DATABASE_URL: 'not even a url' }), null, 'the URL is not read with SQLite');
  // The password of a URL never appears in the message.
  assert.throws(() => loadConfig({ STORE: 'postgres', DATABASE_URL: 'mysql://user:hunter2@db/x' }), (error: Error) => !error.message.includes('hunter2'));
});

test('.env.example lists every setting the configuration reads, and nothing else', () => {
  const source = readFileSync(new URL('../src/config.ts', import.meta.url), 'utf8');
  const example = readFileSync(new URL('../.env.example', import.meta.url), 'utf8');
  const read = new Set([...source.matchAll(/'([A-Z][A-Z0-9_]+)'/g)].map((match) => match[1]));
  const listed = new Set([...example.matchAll(/^([A-Z][A-Z0-9_]+)=/gm)].map((match) => match[1]));
  assert.ok(read.size > 30);
  assert.deepEqual([...read].filter((name) => !listed.has(name)), []);
  assert.deepEqual([...listed].filter((name) => !read.has(name)), []);
});

test('no setting pauses the service: the test-only fault points are no settings (src/fault-points.ts)', () => {
  const source = readFileSync(new URL('../src/config.ts', import.meta.url), 'utf8');
  const example = readFileSync(new URL('../.env.example', import.meta.url), 'utf8');
  const pause = /\bFAULT_|DELAY_MS/;
  assert.ok(!pause.test(source), 'the configuration reads no fault injection');
  assert.ok(!pause.test(example), 'no test-only pause among the deployment settings');
  const config = loadConfig({ FAULT_JOB_STAGE_DELAY_MS: '300', FAULT_LIFECYCLE_STEP_DELAY_MS: '400', FAULT_RECOVERY_DELAY_MS: '500' });
  assert.deepEqual(config, loadConfig({}), 'the old FAULT_* variables change nothing');
});
