import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { useTestServer, KEYS, api } from '../helpers/server.ts';
import { childEnv } from '../helpers/child-env.ts';

const server = useTestServer();
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['src/cli.ts', ...args], { cwd: ROOT, env: childEnv() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

test('the operator CLI inspects the authority, changes its mode and starts a backfill: fields for a person, JSON with --json', async () => {
  const base = ['--url', server.url, '--key', KEYS.operator];
  const authority = await cli([...base, 'authority']);
  assert.equal(authority.code, 0, authority.stderr);
  assert.match(authority.stdout, /^authority_mode\s+READY$/m);
  assert.equal(JSON.parse((await cli([...base, 'authority', '--json'])).stdout).authority_mode, 'READY');
  const maintenance = await cli([...base, 'mode', 'MAINTENANCE', '--json']);
  assert.equal(JSON.parse(maintenance.stdout).authority_mode, 'MAINTENANCE');
  assert.equal((await api(server.url, '/health', { key: null })).status, 503);
  const ready = await cli([...base, 'mode', 'READY']);
  assert.equal(ready.code, 0);
  assert.match(ready.stdout, /^authority_mode\s+READY$/m);
  const backfill = await cli([...base, 'backfill', 'client-alpha']);
  assert.equal(backfill.code, 0);
  assert.match(backfill.stdout, /^operation\s+metadata_backfill$/m);
  assert.equal(JSON.parse((await cli([...base, 'backfill', 'client-beta', '--json'])).stdout).operation, 'metadata_backfill');
});

test('a wrong command prints usage and exits 2; a Client key is refused with the envelope', async () => {
  const wrong = await cli(['--url', server.url, '--key', KEYS.operator, 'mode', 'SIDEWAYS']);
  assert.equal(wrong.code, 2);
  assert.match(wrong.stderr, /SIDEWAYS/);
  const refused = await cli(['--url', server.url, '--key', KEYS.alpha, 'authority']);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /^error: 401 auth_failed: /m);
  assert.equal(refused.stdout, '');
  const asJson = await cli(['--url', server.url, '--key', KEYS.alpha, 'authority', '--json']);
  assert.equal(asJson.code, 1);
  assert.equal(JSON.parse(asJson.stdout).error_code, 'auth_failed');
});
