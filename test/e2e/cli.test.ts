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

test('the operator CLI inspects the authority, changes its mode and starts a backfill', async () => {
  const base = ['--url', server.url, '--key', KEYS.operator];
  const authority = await cli([...base, 'authority']);
  assert.equal(authority.code, 0, authority.stderr);
  assert.equal(JSON.parse(authority.stdout).authority_mode, 'READY');
  const maintenance = await cli([...base, 'mode', 'MAINTENANCE']);
  assert.equal(JSON.parse(maintenance.stdout).authority_mode, 'MAINTENANCE');
  assert.equal((await api(server.url, '/health', { key: null })).status, 503);
  assert.equal((await cli([...base, 'mode', 'READY'])).code, 0);
  const backfill = await cli([...base, 'backfill', 'client-alpha']);
  assert.equal(backfill.code, 0);
  assert.equal(JSON.parse(backfill.stdout).operation, 'metadata_backfill');
});

test('a wrong command prints usage and exits 2; a Client key is refused', async () => {
  const wrong = await cli(['--url', server.url, '--key', KEYS.operator, 'mode', 'SIDEWAYS']);
  assert.equal(wrong.code, 2);
  assert.match(wrong.stderr, /SIDEWAYS/);
  const refused = await cli(['--url', server.url, '--key', KEYS.alpha, 'authority']);
  assert.equal(refused.code, 1);
  assert.equal(JSON.parse(refused.stdout).error_code, 'auth_failed');
});
