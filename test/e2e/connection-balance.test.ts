// Keep-alive connections after an api process restarts (http/connection-balance.ts): a steady keep-alive load
// stays on the api process that survived unless that process, asked by the supervisor, closes its excess
// connections after an answer; then the cluster deals the reconnections out over both, and no request fails for it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, get } from 'node:http';
import { readFileSync } from 'node:fs';
import { baseEnv, KEYS, removeDir, spawnServer, tempDataDir } from '../helpers/server.ts';
import { requestJson } from '../helpers/http-json.ts';
import { childPids, until } from '../helpers/processes.ts';
import { PROCESS_INDEX_VARIABLE } from '../../src/process-settings.ts';

/** Keep-alive connections of the steady load: each carries one request after another. */
const CONNECTIONS = 8;
/** A replacement with more than this many connections got some of the load (a /metrics read adds at most one). */
const SOME_OF_THE_LOAD = 2;

function processIndexOf(pid: number): string {
  const variable = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').find((entry) => entry.startsWith(`${PROCESS_INDEX_VARIABLE}=`));
  assert.ok(variable, `process ${pid} names its index`);
  return variable.slice(PROCESS_INDEX_VARIABLE.length + 1);
}

/** GET /metrics on a connection of its own, closed after the answer (it must not stay open and count). */
function metrics(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    get(`${url}/metrics`, { agent: false, headers: { Connection: 'close', 'X-API-Key': KEYS.operator } }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve(text));
      response.on('error', reject);
    }).on('error', reject);
  });
}

async function openConnections(url: string, processLabel: string): Promise<number> {
  const text = await metrics(url);
  const line = text.split('\n').find((entry) => entry.startsWith(`http_open_connections{process="${processLabel}"}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

test('after an api process restarts, a steady keep-alive load spreads onto its replacement, and no request fails for it', async () => {
  const dataDir = tempDataDir();
  const server = await spawnServer(baseEnv(dataDir, { API_PROCESSES: '2', WORKER_PROCESSES: '0' }));
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  let stop = false;
  let loops: Promise<void>[] = [];
  try {
    await server.ready;
    // Each answer with the number of requests begun before its own: a request begun before the victim died may
    // fail with it however late its failure comes (one the cluster handed to the dying process is never answered).
    const outcomes: { status: number; begun: number }[] = [];
    let begun = 0;
    const search = () => requestJson(`${server.url}/search`, { headers: { 'X-API-Key': KEYS.alpha }, body: { query: 'standing instruction' }, agent, timeoutMs: 60_000 });
    loops = Array.from({ length: CONNECTIONS }, async () => {
      while (!stop) {
        const order = begun++;
        outcomes.push({ status: (await search().catch(() => ({ status: 0 }))).status, begun: order });
      }
    });
    await until('the load to be served', () => outcomes.filter((outcome) => outcome.status === 200).length >= 50);

    const [victim, survivor] = childPids(server, 'api');
    const victimLabel = `api-${processIndexOf(victim)}`;
    process.kill(victim, 'SIGKILL');
    // Requests in flight on the victim's connections fail with it; its clients reconnect, all to the survivor.
    const replacement = await until('the api process to be replaced', () => childPids(server, 'api').find((pid) => pid !== victim && pid !== survivor), 60_000);
    const sinceReplaced = begun;
    await until('the replacement to take its share of the keep-alive connections', async () => (await openConnections(server.url, victimLabel)) > SOME_OF_THE_LOAD, 60_000);
    const sinceShared = outcomes.length;
    await until('the load to go on after the spread', () => outcomes.length >= sinceShared + 100, 60_000);
    stop = true;
    await Promise.all(loops);

    assert.ok(childPids(server, 'api').includes(replacement));
    const afterReplacement = outcomes.filter((outcome) => outcome.begun >= sinceReplaced);
    assert.ok(afterReplacement.length >= 100);
    assert.deepEqual(afterReplacement.filter((outcome) => outcome.status !== 200), [], 'no request begun once the replacement runs fails');
    const rebalanced = (await metrics(server.url)).split('\n').filter((line) => line.startsWith('http_connections_rebalanced{'));
    assert.ok(rebalanced.some((line) => Number(line.split(' ').pop()) > 0), `the survivor closed connections after an answer: ${rebalanced.join(', ')}`);
  } finally {
    stop = true;
    await Promise.all(loops);
    agent.destroy();
    await server.stop();
    removeDir(dataDir);
  }
});
