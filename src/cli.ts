// The operator CLI: inspect the publication authority, change its mode, start a Client's metadata backfill.
// It talks to a running service's /admin routes with an operator key; it never opens the databases itself.
//
// Usage: node src/cli.ts [--url URL] [--key OPERATOR_KEY] authority | mode READY|MAINTENANCE|FENCING | backfill CLIENT_ID

import { parseArgs } from 'node:util';
import { loadConfig } from './config.ts';

export const CLI_USAGE = 'usage: node src/cli.ts [--url URL] [--key OPERATOR_KEY] authority | mode READY|MAINTENANCE|FENCING | backfill CLIENT_ID';

interface Call {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
}

function callOf(command: string | undefined, argument: string | undefined): Call | null {
  if (command === 'authority' && argument === undefined) return { method: 'GET', path: '/admin/authority' };
  if (command === 'mode' && argument && ['READY', 'MAINTENANCE', 'FENCING'].includes(argument)) {
    return { method: 'POST', path: '/admin/authority/mode', body: { mode: argument } };
  }
  if (command === 'backfill' && argument) return { method: 'POST', path: '/admin/backfill', body: { client_id: argument } };
  return null;
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({ options: { url: { type: 'string' }, key: { type: 'string' } }, allowPositionals: true });
  const call = callOf(positionals[0], positionals[1]);
  if (!call || positionals.length > 2) {
    process.stderr.write(`${CLI_USAGE}\n`);
    return 2;
  }
  const config = loadConfig();
  const url = values.url ?? `http://${config.host}:${config.port}`;
  const key = values.key ?? [...config.operatorApiKeys][0];
  if (!key) {
    process.stderr.write('no operator key: pass --key or set OPERATOR_API_KEYS\n');
    return 2;
  }
  const response = await fetch(`${url}${call.path}`, {
    method: call.method,
    headers: { 'X-API-Key': key, ...(call.body ? { 'Content-Type': 'application/json' } : {}) },
    body: call.body ? JSON.stringify(call.body) : undefined,
  });
  process.stdout.write(`${JSON.stringify(await response.json(), null, 2)}\n`);
  return response.ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`${error instanceof Error ? error.message : error}\n`);
    process.exit(1);
  },
);
