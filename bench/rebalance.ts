// Keep-alive connections after an api process restarts (src/http/connection-balance.ts), measured from outside:
// the real service with 2 api processes, a steady keep-alive POST /search load from a runner process (this file
// started again with --runner: one request after another on each of --connections connections), one api process
// SIGKILLed after --warmup seconds. Reports how long after the kill the replacement held its share of the
// connections (at least 40%: half of them, less the cluster's luck of the draw), the connections of each api
// process then, and the requests that failed: those at the kill (in flight on the killed process) and those after
// the replacement was started, which the rebalancing must not add to (goal: 0, and the share within 10 s).
// Usage: node bench/rebalance.ts [--connections 16] [--warmup 5] [--after 20]

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, get, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { BENCH_CLIENT, BENCH_KEY, benchEnv, serviceMemory, spawnSupervisor } from './bench-service.ts';

const OPERATOR_KEY = 'rebalance-operator';
/** The replacement's share of the connections that counts as taken (of 50% on 2 api processes). */
const SHARE = 0.4;
const POLL_MS = 100;
/** A request unanswered this long counts as failed (the runner's) or is given up (a /metrics read). */
const REQUEST_TIMEOUT_MS = 10_000;
const THIS_FILE = fileURLToPath(import.meta.url);
const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));

interface RunnerConfig {
  url: string;
  connections: number;
}

/** The runner: steady keep-alive load until SIGTERM, then each failure's time (ms since the epoch) and the count. */
function runLoad(config: RunnerConfig): void {
  const agent = new Agent({ keepAlive: true, maxSockets: config.connections });
  const body = JSON.stringify({ query: 'standing instruction renewal' });
  const failures: number[] = [];
  let served = 0;
  let stop = false;
  const once = () =>
    new Promise<number>((resolve) => {
      const sent = request(`${config.url}/search`, { method: 'POST', agent, headers: { 'X-API-Key': BENCH_KEY, 'Content-Type': 'application/json' } }, (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
        response.on('error', () => resolve(0));
      });
      sent.on('error', () => resolve(0));
      sent.setTimeout(REQUEST_TIMEOUT_MS, () => sent.destroy());
      sent.end(body);
    });
  const loops = Array.from({ length: config.connections }, async () => {
    while (!stop) {
      const status = await once();
      if (status === 200) served++;
      else failures.push(Date.now());
    }
  });
  process.once('SIGTERM', () => {
    stop = true;
    void Promise.all(loops).then(() => {
      process.stdout.write(JSON.stringify({ served, failures }));
      agent.destroy();
    });
  });
}

function metrics(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const sent = get(`${url}/metrics`, { agent: false, headers: { Connection: 'close', 'X-API-Key': OPERATOR_KEY } }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve(text));
      response.on('error', reject);
    });
    sent.on('error', reject);
    sent.setTimeout(REQUEST_TIMEOUT_MS, () => sent.destroy(new Error('GET /metrics timed out')));
  });
}

/** Open connections by api process label, from GET /metrics. */
async function connectionsByProcess(url: string): Promise<Map<string, number>> {
  const open = new Map<string, number>();
  for (const match of (await metrics(url)).matchAll(/^http_open_connections\{process="([^"]+)"\} (\d+)/gm)) open.set(match[1], Number(match[2]));
  return open;
}

function labelOf(pid: number): string {
  const index = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').find((entry) => entry.startsWith('HDS_PROCESS_INDEX='));
  return `api-${index?.split('=')[1]}`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { connections: { type: 'string', default: '16' }, warmup: { type: 'string', default: '5' }, after: { type: 'string', default: '20' } } });
  const connections = Number(values.connections);
  const dataDir = mkdtempSync(join(tmpdir(), 'hds-rebalance-'));
  const service = await spawnSupervisor(benchEnv(dataDir, BENCH_CLIENT, BENCH_KEY, { API_PROCESSES: '2', WORKER_PROCESSES: '0', OPERATOR_API_KEYS: JSON.stringify([OPERATOR_KEY]) }));
  try {
    const runner = spawn(process.execPath, [THIS_FILE, '--runner', JSON.stringify({ url: service.url, connections } satisfies RunnerConfig)], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    runner.stdout!.setEncoding('utf8').on('data', (data: string) => (output += data));
    const ended = new Promise<void>((resolve) => runner.once('exit', () => resolve()));
    await sleep(Number(values.warmup) * 1000);
    const before = await connectionsByProcess(service.url);
    process.stderr.write(`loaded for ${values.warmup} s: ${[...before].join(' ')}\n`);
    const apis = serviceMemory(service.pid).filter((child) => child.role === 'api').map((child) => child.pid);
    const victim = apis[0];
    const victimLabel = labelOf(victim);
    const killedAt = Date.now();
    process.kill(victim, 'SIGKILL');
    let replacedAt: number | null = null;
    let sharedAt: number | null = null;
    let shared = new Map<string, number>();
    const deadline = killedAt + Number(values.after) * 1000;
    while (Date.now() < deadline) {
      if (replacedAt === null && serviceMemory(service.pid).some((child) => child.role === 'api' && !apis.includes(child.pid))) replacedAt = Date.now();
      const open = await connectionsByProcess(service.url).catch(() => new Map<string, number>());
      if (process.env.DEBUG_REBALANCE) console.log(((Date.now() - killedAt) / 1000).toFixed(1), [...open].join(" "), (await metrics(service.url).catch(() => "")).match(/^http_connections_rebalanced.*$/gm)?.join(" "));
      if (sharedAt === null && replacedAt !== null && (open.get(victimLabel) ?? 0) >= connections * SHARE) {
        sharedAt = Date.now();
        shared = open;
      }
      await sleep(POLL_MS);
    }
    const after = await connectionsByProcess(service.url);
    runner.kill('SIGTERM');
    await ended;
    const { served, failures } = JSON.parse(output) as { served: number; failures: number[] };
    const afterReplacement = replacedAt === null ? failures.length : failures.filter((at) => at >= replacedAt).length;
    const show = (open: Map<string, number>) => [...open].sort().map(([label, count]) => `${label} ${count}`).join(', ');
    console.log(`connections: ${connections} keep-alive, ${served} searches served`);
    console.log(`before the kill:          ${show(before)}`);
    console.log(`killed ${victimLabel}; replacement started after ${replacedAt === null ? 'never' : `${((replacedAt - killedAt) / 1000).toFixed(1)} s`}`);
    console.log(`replacement held >= ${Math.round(SHARE * 100)}% of the connections ${sharedAt === null ? `not within ${values.after} s` : `${((sharedAt - killedAt) / 1000).toFixed(1)} s after the kill (${show(shared)})`}`);
    console.log(`at the end:               ${show(after)}`);
    console.log(`failed requests: ${failures.length - afterReplacement} at the kill, ${afterReplacement} after the replacement started`);
  } finally {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const runnerArg = process.argv.indexOf('--runner');
if (runnerArg !== -1) runLoad(JSON.parse(process.argv[runnerArg + 1]) as RunnerConfig);
else await main();
