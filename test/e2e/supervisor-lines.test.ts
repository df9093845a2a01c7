// The supervisor's own log lines (src/main.ts) are JSON like the api and worker processes' (src/log-lines.ts), and
// its two start-up lines keep the words and the URL a person needs in `msg`, at any LOG_LEVEL: the tools that start
// the service (test/helpers/server.ts, bench/) wait for them.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { baseEnv, removeDir, spawnServer, tempDataDir } from '../helpers/server.ts';

/** Every stdout line of a process as JSON (a line that is not fails the test, naming it). */
function jsonLines(stdout: string): Record<string, any>[] {
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      try {
        return JSON.parse(line);
      } catch {
        assert.fail(`a line that is not JSON: ${line}`);
      }
    });
}

test('at LOG_LEVEL info every line is JSON; the supervisor says where it listens, when it is ready, and that it drains', async () => {
  const dataDir = tempDataDir();
  const server = await spawnServer(baseEnv(dataDir, { LOG_LEVEL: 'info', API_PROCESSES: '1', WORKER_PROCESSES: '1' }));
  try {
    await server.ready;
    const lines = jsonLines(server.stdout());
    const own = lines.filter((line) => line.process === 'supervisor');
    const listening = own.find((line) => line.event === 'listening');
    assert.ok(listening, `no listening line in ${server.stdout()}`);
    assert.equal(listening.url, server.url);
    assert.equal(listening.msg, `listening on ${server.url}`);
    assert.equal(listening.level, 30);
    assert.equal(typeof listening.time, 'number');
    assert.equal(listening.pid, server.child.pid);
    const ready = own.find((line) => line.event === 'ready');
    assert.ok(ready);
    assert.deepEqual({ url: ready.url, api: ready.api_processes, worker: ready.worker_processes }, { url: server.url, api: 1, worker: 1 });
    assert.equal(ready.msg, `ready on ${server.url} (1 api, 1 worker processes)`);
    assert.equal(await server.stop(), 0);
    const draining = jsonLines(server.stdout()).find((line) => line.process === 'supervisor' && line.event === 'draining');
    assert.ok(draining, 'the drain is logged');
    assert.equal(draining.signal, 'SIGTERM');
  } finally {
    await server.crash();
    removeDir(dataDir);
  }
});

test('at LOG_LEVEL silent only the two start-up announcements are written, still as JSON', async () => {
  const dataDir = tempDataDir();
  const server = await spawnServer(baseEnv(dataDir, { LOG_LEVEL: 'silent' }));
  try {
    await server.ready;
    assert.equal(await server.stop(), 0);
    const lines = jsonLines(server.stdout());
    assert.deepEqual(lines.map((line) => [line.process, line.event]), [['supervisor', 'listening'], ['supervisor', 'ready']]);
  } finally {
    await server.crash();
    removeDir(dataDir);
  }
});
