// The typed client as another project gets it: `npm pack` of clients/typescript (which builds dist/ first), the
// tarball installed into an empty project with no registry at hand (--offline, a cache of its own), then imported
// by plain node from that project's node_modules, where Node strips no types, and type-checked by tsc from its
// declarations alone. The installed client then uploads, waits, searches and is refused against the real service.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { useTestServer, KEYS, removeDir } from '../helpers/server.ts';
import { TEST_STORE } from '../helpers/test-store.ts';

const run = promisify(execFile);
const CLIENT_DIR = fileURLToPath(new URL('../../clients/typescript/', import.meta.url));
// The node 24 binary of the npm "node" package: what runs the consumer, with its defaults (no flags).
const NODE = process.execPath;
const TSC = fileURLToPath(new URL('../../clients/typescript/node_modules/typescript/bin/tsc', import.meta.url));
// What is packed and how another project imports it are the same whatever the store: the suites' run on
// PostgreSQL leaves it out (the typed client over PostgreSQL is typescript-client.test.ts's).
const PACKAGED_ONCE = TEST_STORE === 'postgres' ? 'the package is the same on every store: the SQLite run checks it' : false;
const server = PACKAGED_ONCE ? null : useTestServer();

const CONSUMER = `
import { createSearchClient, SearchServiceError, DEFAULT_BASE_URL } from '@hybrid-doc-search/client';

const client = createSearchClient({ baseUrl: process.env.HDS_URL, apiKey: process.env.HDS_KEY });
const accepted = await client.uploadText({ documentId: 'packed-memo', text: 'Minutes of the Labuan treasury committee on ringgit hedging.' });
const job = await client.waitForJob(accepted.job_id, { intervalMs: 50 });
const found = await client.search({ query: 'Labuan ringgit hedging' });
let refusal = null;
try {
  await client.search({ query: 'hedging', limit: 1000 });
} catch (error) {
  if (!(error instanceof SearchServiceError)) throw error;
  refusal = { status: error.status, code: error.code, message: error.message, details: error.details };
}
console.log(JSON.stringify({ defaultBaseUrl: DEFAULT_BASE_URL, job: job.status, hits: found.results.map((hit) => hit.document_version.document_id), refusal }));
`;

// Uses the declarations the way a TypeScript project would: a wrong field of a hit would not compile.
const TYPED_CONSUMER = `
import { createSearchClient, type SearchHit, type JobStatus } from '@hybrid-doc-search/client';

const client = createSearchClient({ apiKey: 'dev-key' });
export const firstDocument = async (query: string): Promise<string | undefined> => {
  const { results } = await client.search({ query, limit: 5 });
  const hit: SearchHit | undefined = results[0];
  return hit?.document_version.document_id;
};
export const finished = (job: JobStatus): boolean => job.status === 'completed';
`;

test('npm pack holds the built client; an empty project installs it offline and plain node imports and uses it', { skip: PACKAGED_ONCE }, async () => {
  const work = mkdtempSync(join(tmpdir(), 'hds-client-package-'));
  try {
    const { stdout: packed } = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: CLIENT_DIR });
    const [tarball] = JSON.parse(packed.slice(packed.indexOf('['))) as { filename: string; files: { path: string }[] }[];
    const files = tarball.files.map((file) => file.path).toSorted();
    for (const built of ['dist/index.js', 'dist/index.d.ts', 'dist/schema.d.ts', 'package.json', 'README.md', 'openapi.json']) assert.ok(files.includes(built), `the tarball holds ${built}: ${files.join(', ')}`);
    assert.deepEqual(files.filter((path) => path.endsWith('.ts') && !path.endsWith('.d.ts')), [], 'no TypeScript source in the package');

    const project = join(work, 'consumer');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }));
    await run('npm', ['install', '--offline', '--cache', join(work, 'npm-cache'), '--no-audit', '--no-fund', join(work, tarball.filename)], { cwd: project });
    const installed = JSON.parse(readFileSync(join(project, 'node_modules/@hybrid-doc-search/client/package.json'), 'utf8'));
    assert.deepEqual(installed.dependencies ?? {}, {}, 'the client needs nothing else at run time');
    assert.ok(!existsSync(join(project, 'node_modules/@hybrid-doc-search/client/src')), 'only the built files are installed');

    writeFileSync(join(project, 'consumer.js'), CONSUMER);
    const { stdout } = await run(NODE, ['consumer.js'], { cwd: project, env: { ...process.env, NODE_OPTIONS: '', HDS_URL: server!.url, HDS_KEY: KEYS.alpha } });
    const outcome = JSON.parse(stdout);
    assert.equal(outcome.defaultBaseUrl, 'http://127.0.0.1:8080', 'the service listens on 8080 by default');
    assert.equal(outcome.job, 'completed');
    assert.deepEqual(outcome.hits, ['packed-memo']);
    assert.equal(outcome.refusal.status, 422);
    assert.equal(outcome.refusal.code, 'validation_error');
    assert.ok(Array.isArray(outcome.refusal.details) && outcome.refusal.details.length > 0, 'the envelope details travel with the error');
    assert.match(outcome.refusal.message, /^422 validation_error: Request validation failed \(limit: .+\)$/, 'the message says which field and why');

    writeFileSync(join(project, 'typed.ts'), TYPED_CONSUMER);
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2024', 'dom'], types: [], strict: true, noEmit: true }, include: ['typed.ts'] }));
    await run(NODE, [TSC, '-p', '.'], { cwd: project });
  } finally {
    removeDir(work);
  }
});
