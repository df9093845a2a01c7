// Mixed load over HTTP for a while (default 10 minutes at 20 requests/s) against the service with its default
// topology, started as a child process; this process only generates the load. The mix: uploads of new documents
// and new versions, metadata updates, soft deletes, restores, hard deletes, searches and reads (list, text,
// job status). Every 30 s (and after an idle period at the end) it prints the RSS of every process with what
// the service holds, then the growth of the total RSS from the end of the first minute and its slope, so that
// memory retained per publication shows as a slope that the data held does not explain. Each process is shown as
// RSS/anonymous: the anonymous part is its own memory; the rest is file pages (the node binary, libraries, the
// store's mapped files), shared and faulted in as code paths first run.
// With --documents N the data held stays bounded: once N documents are held, an upload replaces one of them (the
// same Document Version) instead of adding one, and new versions of a document take one version id (v0) instead
// of one of three, so that RSS growing once the data stops growing is retained per publication, not data. Each
// sample also shows the Document Versions the service lists (GET /documents total, soft-deleted included).
// Usage: node bench/mixed-load.ts [--minutes 10] [--rate 20] [--idle-seconds 60] [--sample-seconds 30] [--documents N]

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request as httpRequest } from 'node:http';
import { parseArgs } from 'node:util';
import { serviceMemory, spawnSupervisor } from './bench-service.ts';
import { loadDataset } from './datasets.ts';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    rate: { type: 'string', default: '20' },
    'idle-seconds': { type: 'string', default: '60' },
    'sample-seconds': { type: 'string', default: '30' },
    documents: { type: 'string', default: '0' },
  },
  strict: true,
});
const MINUTES = Number(values.minutes);
const RATE = Number(values.rate);
const IDLE_SECONDS = Number(values['idle-seconds']);
const SAMPLE_SECONDS = Number(values['sample-seconds']);
/** Most documents held (0: no bound); past it uploads replace held documents. */
const MAX_DOCUMENTS = Number(values.documents);
/** Requests started but not answered beyond this are skipped (counted): the load stays open-loop but bounded. */
const MAX_IN_FLIGHT = 64;
const KEY = 'mixed-key';
/** Share of each operation in the mix (summing to 1). */
const MIX: [Operation, number][] = [
  ['search', 0.4],
  ['upload', 0.12],
  ['new-version', 0.04],
  ['update', 0.08],
  ['soft-delete', 0.04],
  ['restore', 0.03],
  ['hard-delete', 0.04],
  ['list', 0.08],
  ['text', 0.1],
  ['status', 0.07],
];
type Operation = 'search' | 'upload' | 'new-version' | 'update' | 'soft-delete' | 'restore' | 'hard-delete' | 'list' | 'text' | 'status';

const scifact = loadDataset('scifact', 'train.tsv');
const abstracts = scifact.documents.map((doc) => `${doc.title}\n\n${doc.text}`);
const queries = [...scifact.queries.values()];

/** A deterministic stream of numbers in [0, 1), so that two runs send the same load. */
let seed = 20_261_124;
function random(): number {
  seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
  return seed / 2 ** 32;
}
const pick = <T>(items: readonly T[]): T | undefined => (items.length === 0 ? undefined : items[Math.floor(random() * items.length)]);

function operation(): Operation {
  let r = random();
  for (const [name, share] of MIX) {
    if (r < share) return name;
    r -= share;
  }
  return 'search';
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const signed = (value: number) => `${value >= 0 ? '+' : ''}${value.toFixed(1)}`;

/** The least-squares slope of a sampled value per minute. */
function slopePerMinute(points: readonly { second: number; totalMiB: number; anonMiB: number; versions: number }[], key: 'totalMiB' | 'anonMiB' | 'versions'): number {
  const meanX = points.reduce((sum, point) => sum + point.second, 0) / points.length;
  const meanY = points.reduce((sum, point) => sum + point[key], 0) / points.length;
  let covariance = 0;
  let variance = 0;
  for (const point of points) {
    covariance += (point.second - meanX) * (point[key] - meanY);
    variance += (point.second - meanX) ** 2;
  }
  return variance === 0 ? 0 : (covariance / variance) * 60;
}
const OPERATOR_KEY = 'mixed-operator';
const dataDir = mkdtempSync(join(tmpdir(), 'hds-mixed-load-'));
try {
  const service = await spawnSupervisor(
    { HOST: '127.0.0.1', PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent', API_KEY_CLIENTS: JSON.stringify({ [KEY]: 'mixed-client' }), OPERATOR_API_KEYS: JSON.stringify([OPERATOR_KEY]), RATE_LIMIT_PER_MINUTE: '1000000', SEARCH_RATE_LIMIT_PER_MINUTE: '1000000' },
    { onAbort: () => rmSync(dataDir, { recursive: true, force: true }) },
  );
  try {
    console.log(`service ready: ${service.apiProcesses} api, ${service.workerProcesses} worker; ${RATE} requests/s for ${MINUTES} min, then ${IDLE_SECONDS} s idle${MAX_DOCUMENTS > 0 ? `; at most ${MAX_DOCUMENTS} documents held (uploads replace them past that)` : ''}`);
    const jsonHeaders = { 'content-type': 'application/json', 'x-api-key': KEY };
    const plainHeaders = { 'x-api-key': KEY };
    const live: string[] = []; // documents uploaded and not hard-deleted (some soft-deleted)
    const softDeleted = new Set<string>();
    const jobs: string[] = [];
    let nextDocument = 0;
    let uploadedChunksEstimate = 0;
    const counts = new Map<string, number>();
    const count = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);

    const call = async (op: Operation, method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> => {
      const response = await fetch(`${service.url}${path}`, { method, headers: body === undefined ? plainHeaders : jsonHeaders, body: body === undefined ? undefined : JSON.stringify(body) });
      const json = (await response.json().catch(() => ({}))) as Record<string, unknown>;
      // 404 (a document deleted meanwhile) and 503 with Retry-After are answers the contract allows; 5xx else are not.
      count(`${op} ${response.status}`);
      return { status: response.status, json };
    };
    const documentText = () => Array.from({ length: 2 + Math.floor(random() * 4) }, () => pick(abstracts)!).join('\n\n');

    const run = async (op: Operation): Promise<void> => {
      const target = pick(live);
      switch (op) {
        case 'upload': {
          if (MAX_DOCUMENTS > 0 && live.length >= MAX_DOCUMENTS && target) {
            await call(op, 'POST', '/embed', { document_id: target, text: documentText(), metadata: { batch: nextDocument % 7, owner: 'replaced' } });
            return;
          }
          const id = `doc-${nextDocument++}`;
          const text = documentText();
          const { status, json } = await call(op, 'POST', '/embed', { document_id: id, text, metadata: { batch: nextDocument % 7, owner: `team-${nextDocument % 5}` } });
          if (status === 202) {
            live.push(id);
            jobs.push(String(json.job_id));
            uploadedChunksEstimate += Math.ceil(text.length / 1000);
          }
          return;
        }
        case 'new-version':
          if (!target) return run('upload');
          await call(op, 'POST', '/embed', { document_id: target, version_id: `v${MAX_DOCUMENTS > 0 ? 0 : Math.floor(random() * 3)}`, text: documentText() });
          return;
        case 'update':
          if (!target) return run('search');
          await call(op, 'PATCH', '/update', { document_id: target, metadata: { reviewed: random() < 0.5, score: Math.floor(random() * 100) } });
          return;
        case 'soft-delete':
          if (!target) return run('search');
          if ((await call(op, 'DELETE', `/document/${target}?mode=soft`)).status === 200) softDeleted.add(target);
          return;
        case 'restore': {
          const deleted = pick([...softDeleted]);
          if (!deleted) return run('search');
          if ((await call(op, 'POST', `/document/${deleted}/restore`)).status === 200) softDeleted.delete(deleted);
          return;
        }
        case 'hard-delete':
          if (!target || live.length < 50) return run('upload');
          if ((await call(op, 'DELETE', `/document/${target}?mode=hard`)).status === 200) {
            live.splice(live.indexOf(target), 1);
            softDeleted.delete(target);
          }
          return;
        case 'list':
          await call(op, 'GET', '/documents?limit=20');
          return;
        case 'text':
          if (!target) return run('search');
          await call(op, 'GET', `/document/${target}/text`);
          return;
        case 'status': {
          const job = pick(jobs.slice(-200));
          if (!job) return run('search');
          await call(op, 'GET', `/status/${job}`);
          return;
        }
        default:
          await call('search', 'POST', '/search', { query: pick(queries), limit: 10 });
      }
    };

    const samples: { second: number; totalMiB: number; anonMiB: number; versions: number }[] = [];
    /** Document Versions the service holds (soft-deleted included), as its list counts them; -1 if unanswered. */
    const versionsHeld = async () => {
      const response = await fetch(`${service.url}/documents?limit=1&include_deleted=true`, { headers: plainHeaders }).catch(() => null);
      const json = response?.ok ? ((await response.json()) as { total?: number }) : {};
      return json.total ?? -1;
    };
    /** The V8 heap in use and the external memory, summed over the service's processes (their main threads), in MiB. */
    const heapOfService = async () => {
      const text = await (await fetch(`${service.url}/metrics`, { headers: { 'x-api-key': OPERATOR_KEY } }).catch(() => null))?.text().catch(() => '') ?? '';
      // One series a process (label `process`): summed here.
      const values = (name: string) => [...text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm'))].map((match) => Number(match[1]));
      const gauge = (name: string) => (values(name).length === 0 ? NaN : values(name).reduce((sum, value) => sum + value, 0)) / 1048576;
      return { heapUsed: gauge('nodejs_heap_size_used_bytes'), external: gauge('nodejs_external_memory_bytes') };
    };
    /**
     * Each api process's own view of its memory (GET /admin/authority on fresh connections until every one has
     * answered, or a few tries): V8's committed and used heap, external and array-buffer bytes, its segment thread.
     */
    const apiHeaps = async () => {
      const seen = new Map<number, string>();
      for (let attempt = 0; attempt < 12 && seen.size < service.apiProcesses; attempt++) {
        const view = await new Promise<any>((resolve) => {
          const request = httpRequest(`${service.url}/admin/authority`, { agent: false, headers: { 'x-api-key': OPERATOR_KEY, connection: 'close' } }, (response) => {
            let body = '';
            response.setEncoding('utf8').on('data', (data: string) => (body += data)).on('end', () => resolve(response.statusCode === 200 ? JSON.parse(body) : null));
          });
          request.on('error', () => resolve(null));
          request.end();
        });
        if (!view?.memory) continue;
        const mib = (bytes: number) => (bytes / 1048576).toFixed(0);
        const { heapTotal, heapUsed, external, arrayBuffers, segmentThread } = view.memory;
        const { chunks, segments, segmentRows, estimatedBytes } = view.serving;
        seen.set(
          view.process_id,
          `heap ${mib(heapUsed)}/${mib(heapTotal)}, external ${mib(external)} (buffers ${mib(arrayBuffers)}), segment thread ${mib(segmentThread)}; ` +
            `${chunks} live chunks in ${segmentRows} rows of ${segments} segments, estimated ${mib(estimatedBytes)}`,
        );
      }
      return [...seen].map(([pid, text]) => `api ${pid}: ${text}`).join('; ');
    };
    const sample = async (second: number, label: string) => {
      const memory = serviceMemory(service.pid);
      const totalMiB = memory.reduce((sum, entry) => sum + entry.rssMiB, 0);
      const anonMiB = memory.reduce((sum, entry) => sum + entry.anonMiB, 0);
      const versions = await versionsHeld();
      const heap = await heapOfService();
      samples.push({ second, totalMiB, anonMiB, versions });
      const perProcess = memory.map((entry) => `${entry.role} ${entry.rssMiB}/${entry.anonMiB}`).join(', ');
      console.log(`${label.padEnd(8)} total ${String(totalMiB).padStart(5)} MiB, anonymous ${anonMiB} (RSS/anonymous: ${perProcess}); V8 heap used ${heap.heapUsed.toFixed(0)}, external ${heap.external.toFixed(0)} MiB; documents held ${live.length} (${softDeleted.size} soft-deleted), ${versions} versions listed, about ${uploadedChunksEstimate} chunks uploaded`);
      console.log(`         ${await apiHeaps()}`);
    };

    await sample(0, '0 s');
    const started = performance.now();
    let inFlight = 0;
    let skipped = 0;
    let sent = 0;
    const pending = new Set<Promise<void>>();
    let nextSample = SAMPLE_SECONDS;
    for (let i = 0; ; i++) {
      const due = started + (i * 1000) / RATE;
      const now = performance.now();
      if (now - started >= MINUTES * 60_000) break;
      if (due > now) await sleep(due - now);
      if ((performance.now() - started) / 1000 >= nextSample) {
        await sample(nextSample, `${nextSample} s`);
        nextSample += SAMPLE_SECONDS;
      }
      if (inFlight >= MAX_IN_FLIGHT) {
        skipped++;
        continue;
      }
      inFlight++;
      sent++;
      const request = run(operation())
        .catch((error: Error) => {
          count(`error ${error.message}`);
        })
        .finally(() => {
          inFlight--;
          pending.delete(request);
        });
      pending.add(request);
    }
    await Promise.all(pending);
    const loadSeconds = (performance.now() - started) / 1000;
    await sample(Math.round(loadSeconds), 'end');
    await sleep(IDLE_SECONDS * 1000);
    await sample(Math.round(loadSeconds + IDLE_SECONDS), 'idle');

    console.log(`\n${sent} requests in ${loadSeconds.toFixed(0)} s (${(sent / loadSeconds).toFixed(1)}/s), ${skipped} skipped with ${MAX_IN_FLIGHT} in flight`);
    const byOutcome = [...counts].sort((a, b) => a[0].localeCompare(b[0]));
    console.log(`answers: ${byOutcome.map(([key, n]) => `${key}: ${n}`).join(', ')}`);
    const unexpected = byOutcome.filter(([key]) => / 5\d\d$/.test(key) && !/ 503$/.test(key)).reduce((sum, [, n]) => sum + n, 0);
    console.log(`unexpected 5xx answers (other than 503): ${unexpected}`);
    const during = samples.filter((entry) => entry.second <= loadSeconds + 1);
    const report = (label: string, window: typeof samples) => {
      if (window.length < 3) return console.log(`${label}: too few samples`);
      const first = window[0];
      const last = window[window.length - 1];
      console.log(`${label}, ${first.second} s to ${last.second} s: ${first.totalMiB} -> ${last.totalMiB} MiB, least-squares slope ${signed(slopePerMinute(window, 'totalMiB'))} MiB a minute (anonymous ${first.anonMiB} -> ${last.anonMiB} MiB, ${signed(slopePerMinute(window, 'anonMiB'))} a minute) while the versions listed went ${first.versions} -> ${last.versions} (${signed(slopePerMinute(window, 'versions'))} a minute)`);
    };
    report('total RSS after the first minute', during.filter((entry) => entry.second >= 60));
    // Once the versions held stop growing (within 5% of where they end), RSS that still grows is retained per publication.
    const finalVersions = during[during.length - 1].versions;
    report('total RSS once the data held stopped growing', during.filter((_, index) => during.slice(index).every((later) => later.versions >= 0.95 * finalVersions)));
    console.log(`after ${IDLE_SECONDS} s idle: ${samples[samples.length - 1].totalMiB} MiB (anonymous ${samples[samples.length - 1].anonMiB})`);
  } finally {
    await service.stop();
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
