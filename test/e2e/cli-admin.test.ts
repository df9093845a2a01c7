// `hds admin clients ...` and `hds admin keys ...` against the real service: what a person reads, what --json
// prints, and that what the commands did holds for the Client's requests.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { useTestServer, KEYS, api } from '../helpers/server.ts';
import { childEnv } from '../helpers/child-env.ts';

const server = useTestServer({ API_PROCESSES: '1', WORKER_PROCESSES: '0' });
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['src/cli.ts', '--url', server.url, '--key', KEYS.operator, ...args], { cwd: ROOT, env: childEnv() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

test('admin clients: create, list as a table and as JSON, limit, disable and enable', async () => {
  const created = await cli(['admin', 'clients', 'create', 'client-cli']);
  assert.equal(created.code, 0, created.stderr);
  assert.match(created.stdout, /^client_id\s+client-cli$/m);
  const again = await cli(['admin', 'clients', 'create', 'client-cli', '--json']);
  assert.equal(again.code, 1);
  assert.equal(JSON.parse(again.stdout).error_code, 'client_exists');

  const table = await cli(['admin', 'clients', 'list']);
  assert.equal(table.code, 0, table.stderr);
  assert.match(table.stdout, /^CLIENT\s+STATE\s+DOCUMENTS/m);
  assert.match(table.stdout, /^client-cli\s+enabled\s+0\s+0\s+0\s+0\s+default\s+default$/m);
  assert.match(table.stdout, /^client-alpha\s+enabled/m);
  const listed = JSON.parse((await cli(['admin', 'clients', 'list', '--json'])).stdout);
  assert.deepEqual(listed.clients.map((client: any) => client.client_id).sort(), ['client-alpha', 'client-beta', 'client-cli']);

  const limited = JSON.parse((await cli(['admin', 'clients', 'limit', 'client-cli', '--per-minute', '5', '--json'])).stdout);
  assert.deepEqual([limited.rate_limit_per_minute, limited.search_rate_limit_per_minute], [5, null]);
  assert.match((await cli(['admin', 'clients', 'list'])).stdout, /^client-cli\s+enabled\s+0\s+0\s+0\s+0\s+5\s+default$/m);
  const reset = await cli(['admin', 'clients', 'limit', 'client-cli', '--per-minute', 'default', '--json']);
  assert.equal(reset.code, 0, reset.stderr + reset.stdout);
  assert.equal(JSON.parse(reset.stdout).rate_limit_per_minute, null);
  const noLimit = await cli(['admin', 'clients', 'limit', 'client-cli']);
  assert.equal(noLimit.code, 2, 'limit without a limit is wrong usage');
  assert.equal((await cli(['admin', 'clients', 'limit', 'client-cli', '--per-minute', '0'])).code, 2);

  const disabled = await cli(['admin', 'clients', 'disable', 'client-beta']);
  assert.equal(disabled.code, 0, disabled.stderr);
  assert.match(disabled.stdout, /^disabled\s+true$/m);
  assert.equal((await api(server.url, '/documents', { key: KEYS.beta })).status, 401);
  assert.equal((await cli(['admin', 'clients', 'enable', 'client-beta'])).code, 0);
  assert.equal((await api(server.url, '/documents', { key: KEYS.beta })).status, 200);
  const unknown = await cli(['admin', 'clients', 'disable', 'nobody']);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /^error: 404 not_found: /m);
});

test('admin keys: issue (the secret printed once), use, list without secrets, revoke', async () => {
  const issued = await cli(['admin', 'keys', 'issue', 'client-alpha', '--scope', 'search', 'read', '--filter', 'metadata.custom.team=legal', '--label', 'portal']);
  assert.equal(issued.code, 0, issued.stderr);
  const secret = /^key\s+(hds_\S+)$/m.exec(issued.stdout)?.[1];
  assert.ok(secret, issued.stdout);
  assert.match(issued.stderr, /shown this once/);
  assert.match(issued.stdout, /^filter\s+\{"metadata\.custom\.team":"legal"\}$/m);
  const keyId = /^key_id\s+(\S+)$/m.exec(issued.stdout)![1];
  assert.equal((await api(server.url, '/documents', { key: secret })).status, 200);
  assert.equal((await api(server.url, '/document/x', { method: 'DELETE', key: secret })).status, 403);

  const table = await cli(['admin', 'keys', 'list', 'client-alpha']);
  assert.equal(table.code, 0, table.stderr);
  assert.match(table.stdout, new RegExp(`^${keyId}\\s+search,read\\s+never\\s+portal\\s+\\{"metadata\\.custom\\.team":"legal"\\}$`, 'm'));
  assert.equal(table.stdout.includes(secret!), false);
  const listed = JSON.parse((await cli(['admin', 'keys', 'list', 'client-alpha', '--json'])).stdout);
  assert.deepEqual(listed.keys.map((key: any) => key.key_id), [keyId]);

  const writer = JSON.parse((await cli(['admin', 'keys', 'issue', 'client-alpha', '--scope', 'write', '--filter', 'document_id=a', '--json'])).stdout);
  assert.equal(writer.error_code, 'validation_error', 'a filtered key with write is refused');
  assert.equal((await cli(['admin', 'keys', 'issue', 'client-alpha', '--scope', 'admin'])).code, 2);

  const revoked = await cli(['admin', 'keys', 'revoke', keyId, '--json']);
  assert.equal(revoked.code, 0, revoked.stderr);
  assert.deepEqual(JSON.parse(revoked.stdout), { key_id: keyId, revoked: true });
  assert.equal((await api(server.url, '/documents', { key: secret })).status, 401);
  const twice = await cli(['admin', 'keys', 'revoke', keyId]);
  assert.equal(twice.code, 1);
  assert.match(twice.stderr, /^error: 404 not_found: /m);
  assert.match((await cli(['admin', 'keys', 'list', 'client-alpha'])).stdout, /^no keys issued$/m);
});
