// Settings from a `.env` file (docs/configuration.md "Settings from a file"): the supervisor started in a directory
// holding one reads it, the environment wins over it, ENV_FILE=none reads none, and a named file that is missing
// stops start-up with exit code 2. Real processes on a real port; the loader itself on a plain object.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { spawnServer } from '../helpers/server.ts';
import { storeEnv } from '../helpers/test-store.ts';
import { childEnv } from '../helpers/child-env.ts';
import { loadEnvFile } from '../../src/env-file.ts';
import { ConfigError } from '../../src/config.ts';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
const FILE_RATE_LIMIT = 3;

function directoryWith(envFile: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'hds-envfile-'));
  writeFileSync(join(dir, '.env'), envFile);
  return dir;
}

test('the supervisor reads .env from its working directory, and the environment wins over the file', async () => {
  const dir = directoryWith([
    '# settings of this deployment',
    'API_KEY_CLIENTS={"file-key": "file-client"}',
    `RATE_LIMIT_PER_MINUTE=${FILE_RATE_LIMIT}`,
    'DATA_DIR=./from-file',
    'export LOG_LEVEL="silent"',
    '',
  ].join('\n'));
  // ENV_FILE empty is unset: the default .env (the helpers give every other service ENV_FILE=none).
  const store = storeEnv(join(dir, 'from-file'));
  const server = await spawnServer({
    ENV_FILE: '',
    ...store,
    HOST: '127.0.0.1',
    PORT: '0',
    API_PROCESSES: '1',
    WORKER_PROCESSES: '0',
    API_KEY_CLIENTS: JSON.stringify({ 'env-key': 'env-client' }),
  }, { cwd: dir });
  try {
    // On SQLite the store lives in DATA_DIR (on PostgreSQL it holds caches only, made when first needed).
    if (!('STORE' in store)) assert.ok(existsSync(join(dir, 'from-file', 'control.db')), 'DATA_DIR of the file, relative to the working directory');
    const list = (key: string) => fetch(`${server.url}/documents`, { headers: { 'X-API-Key': key } });
    assert.equal((await list('file-key')).status, 401, "the file's API_KEY_CLIENTS lost to the environment's");
    // The file's rate limit holds: its budget answers, the next request is refused.
    for (let i = 0; i < FILE_RATE_LIMIT; i += 1) assert.equal((await list('env-key')).status, 200, `request ${i + 1}`);
    const refused = await list('env-key');
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * How `node src/main.ts` ends when its settings should stop it. Should it start instead (the file not read), it is
 * stopped once it listens and reported as started, so that a failing test does not leave a service running.
 */
function exitOf(env: Record<string, string>, cwd: string): Promise<{ code: number | null; stderr: string; started: boolean }> {
  const child = spawn(process.execPath, [MAIN], { cwd, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let started = false;
  child.stderr.on('data', (chunk) => (stderr += chunk));
  child.stdout.on('data', (chunk) => {
    if (!started && /listening on/.test(String(chunk))) {
      started = true;
      child.kill('SIGTERM');
    }
  });
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr, started })));
}

test('a settings file named by ENV_FILE that is missing stops start-up with exit code 2, naming it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hds-envfile-'));
  try {
    const { code, stderr, started } = await exitOf({ ENV_FILE: 'production.env', PORT: '0', DATA_DIR: join(dir, 'data') }, dir);
    assert.equal(started, false, 'started without its settings file');
    assert.equal(code, 2);
    assert.match(stderr, /Invalid setting ENV_FILE: cannot read .*production\.env: no such file/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a bad setting in .env stops start-up like one in the environment; ENV_FILE=none ignores the file", async () => {
  const dir = directoryWith('PORT=eighty\n');
  try {
    const { code, stderr, started } = await exitOf({ ENV_FILE: '', DATA_DIR: join(dir, 'data'), API_PROCESSES: '1', WORKER_PROCESSES: '0' }, dir);
    assert.equal(started, false, 'started without reading .env');
    assert.equal(code, 2);
    assert.match(stderr, /Invalid setting PORT: expected an integer, got "eighty"/);
    // With the file ignored the same start-up gets past the settings: the bad PORT never reaches it.
    const env = { ENV_FILE: 'none', PORT: '0', DATA_DIR: join(dir, 'data'), API_PROCESSES: '1', WORKER_PROCESSES: '0', LOG_LEVEL: 'silent' };
    const server = await spawnServer(env, { cwd: dir, until: 'listening' });
    await server.stop();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('loadEnvFile adds what the environment lacks and keeps what it has', () => {
  const dir = directoryWith('A=from-file\nB="quoted value" # a comment\nexport C=3\n');
  try {
    const env: Record<string, string | undefined> = { A: 'from-environment' };
    assert.equal(loadEnvFile(env, dir), join(dir, '.env'));
    assert.deepEqual(env, { A: 'from-environment', B: 'quoted value', C: '3' });
    const untouched: Record<string, string | undefined> = { ENV_FILE: 'none' };
    assert.equal(loadEnvFile(untouched, dir), null);
    assert.deepEqual(untouched, { ENV_FILE: 'none' });
    const absent = mkdtempSync(join(tmpdir(), 'hds-envfile-'));
    assert.equal(loadEnvFile({}, absent), null, 'no .env: nothing to read, no error');
    assert.throws(() => loadEnvFile({ ENV_FILE: 'missing.env' }, absent), (error: unknown) => error instanceof ConfigError && error.setting === 'ENV_FILE');
    rmSync(absent, { recursive: true, force: true });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
