// Preload of the unit tier (test/run-tiers.ts passes it with --import): a unit test opens no database, starts no
// process or thread, and neither listens nor connects. Each of those fails here with the reason, and because code
// under test may catch the error (a reader that falls back when a binary cannot start), the process also exits 1
// naming every refusal, so node --test fails the file whatever the code did with the error.

import { createRequire, syncBuiltinESMExports } from 'node:module';

const require = createRequire(import.meta.url);
const refused: string[] = [];

export const UNIT_RULE = 'a unit test opens no database, starts no process or thread, and neither listens nor connects: place the file in another tier in test/tiers.ts';

function refuse(what: string): never {
  refused.push(what);
  throw new Error(`unit tier: ${what} (${UNIT_RULE})`);
}

const childProcess = require('node:child_process') as Record<string, unknown>;
for (const name of ['spawn', 'spawnSync', 'execFile', 'execFileSync', 'exec', 'execSync', 'fork']) {
  childProcess[name] = (command: unknown) => refuse(`child_process.${name}(${String(command)})`);
}

const net = require('node:net') as typeof import('node:net');
net.Server.prototype.listen = function listen() {
  return refuse('a server listening');
};
net.Socket.prototype.connect = function connect() {
  return refuse('a socket connecting');
};

const sqlite = require('node:sqlite') as Record<string, unknown>;
sqlite.DatabaseSync = function DatabaseSync(path: unknown) {
  return refuse(`a SQLite database opened (${String(path)})`);
};

const threads = require('node:worker_threads') as Record<string, unknown>;
threads.Worker = function Worker(entry: unknown) {
  return refuse(`a thread started (${String(entry)})`);
};

// The ESM bindings of builtins (import { spawn } from 'node:child_process') follow their CommonJS exports only on request.
syncBuiltinESMExports();

process.on('exit', () => {
  if (refused.length === 0) return;
  process.stderr.write(`unit tier: ${process.argv[1]} did what a unit test must not:\n${refused.map((what) => `  - ${what}`).join('\n')}\n${UNIT_RULE}\n`);
  process.exitCode = 1;
});
