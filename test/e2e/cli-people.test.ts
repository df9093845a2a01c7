// The people's CLI (`hds`, src/cli.ts) as a person runs it against the real service: `ingest DIR` in a
// pseudo-terminal (util-linux `script`) draws a progress bar and ends with the table of failures; a second run
// skips what the service holds and a changed file becomes a new version; `search` highlights the matched words
// in the terminal; docs, status, update, delete and restore print what the service answered; a wrong key and a
// wrong usage exit 1 and 2.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { useTestServer, KEYS } from '../helpers/server.ts';
import { childEnv } from '../helpers/child-env.ts';

const server = useTestServer();
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CORPUS = fileURLToPath(new URL('../../../shared/corpus/', import.meta.url));
const ESC = '\u001b[';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, env: childEnv(env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

const connection = () => ['--url', server.url, '--key', KEYS.alpha];
/** The CLI with its output on pipes. */
const hds = (...args: string[]) => run(process.execPath, ['src/cli.ts', ...connection(), ...args]);
/** The CLI in a pseudo-terminal, as a person at a terminal runs it: stdout and stderr are the terminal. */
async function hdsInTerminal(...args: string[]): Promise<Run> {
  const quoted = [process.execPath, 'src/cli.ts', ...connection(), ...args].map((arg) => `'${arg.replaceAll("'", "'\\''")}'`).join(' ');
  const result = await run('script', ['-qefc', quoted, '/dev/null'], { TERM: 'xterm-256color', COLUMNS: '120' });
  return { ...result, stdout: result.stdout.replaceAll('\r\n', '\n') };
}

test('ingest a folder in a terminal: a progress bar, a failure table, then a resumed run that skips what is held', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hds-cli-ingest-'));
  try {
    mkdirSync(join(dir, 'letters'));
    mkdirSync(join(dir, '.hidden'));
    copyFileSync(join(CORPUS, 'txt/tika_testMARKDOWN.md'), join(dir, 'notes.md'));
    copyFileSync(join(CORPUS, 'docx/mammoth_tables.docx'), join(dir, 'letters/tables.docx'));
    copyFileSync(join(CORPUS, 'hostile/poi_invalid.xlsx'), join(dir, 'letters/broken.xlsx'));
    copyFileSync(join(CORPUS, 'txt/tika_testMARKDOWN.md'), join(dir, '.hidden/skipped.md'));

    const first = await hdsInTerminal('ingest', dir, '--poll-ms', '100', '--concurrency', '2', '--metadata', 'batch=cli-1');
    assert.equal(first.code, 1, `a failed file makes the run fail\n${first.stdout}`);
    assert.match(first.stdout, /[█░]{10,}/, 'the progress bar was drawn');
    assert.match(first.stdout, /3\/3 files/);
    assert.match(first.stdout, /2 completed, 0 skipped \(already held\), 1 failed/);
    const failureRow = first.stdout.split('\n').find((line) => line.startsWith('letters/broken.xlsx'));
    assert.ok(failureRow, `the failure table names the file\n${first.stdout}`);
    assert.match(failureRow, /failed\s+\S+/, 'with its state and error');
    assert.ok(!first.stdout.includes('skipped.md'), 'dot-folders are left out');

    const again = await hds('ingest', dir, '--poll-ms', '100');
    assert.match(again.stdout, /0 completed, 2 skipped \(already held\), 1 failed/, again.stdout + again.stderr);

    appendFileSync(join(dir, 'notes.md'), '\nA closing line about the Kuantan warehouse audit.\n');
    const changed = await hds('ingest', dir, '--poll-ms', '100', '--metadata', 'batch=cli-2');
    assert.match(changed.stdout, /1 completed, 1 skipped \(already held\), 1 failed/, changed.stdout + changed.stderr);
    const listed = JSON.parse((await hds('docs', '--all', '--json')).stdout) as { document_id: string; version_id: string; metadata: { custom: Record<string, unknown> } }[];
    const notes = listed.filter((document) => document.document_id === 'notes.md');
    assert.equal(notes.length, 2, 'the changed file is a second version of the same document');
    assert.ok(listed.some((document) => document.document_id === 'letters/tables.docx' && document.metadata.custom.batch === 'cli-1'));

    const search = await hdsInTerminal('search', 'Kuantan warehouse audit', '--filter', 'metadata.custom.batch=cli-2');
    assert.equal(search.code, 0, search.stdout);
    assert.match(search.stdout, /notes\.md/);
    assert.ok(search.stdout.includes(`${ESC}1m`), 'the matched words are emphasised in the terminal');
    const plain = await hds('search', 'Kuantan warehouse audit');
    assert.ok(!plain.stdout.includes(ESC), 'no escape codes when the output is not a terminal');
    assert.match(plain.stdout, /^1\. notes\.md/m);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('docs, status, update, delete and restore print what the service answered', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hds-cli-docs-'));
  try {
    copyFileSync(join(CORPUS, 'txt/tika_multi-language.txt'), join(dir, 'multi.txt'));
    assert.match((await hds('ingest', dir, '--poll-ms', '100')).stdout, /1 completed/);
    const table = await hds('docs', '--filter', 'metadata.source.filename=multi.txt');
    assert.match(table.stdout, /^DOCUMENT\s+VERSION\s+CHUNKS/m);
    assert.match(table.stdout, /^multi\.txt\s+[0-9a-f]{16}\s+\d+/m);

    const accepted = JSON.parse((await hds('update', 'multi.txt', '--set', 'owner=finance', '--set', 'year=2024')).stdout);
    assert.equal(accepted.status, 'pending');
    const job = await hds('status', accepted.job_id, '--wait');
    assert.equal(job.code, 0);
    assert.equal(JSON.parse(job.stdout).status, 'completed');
    const updated = JSON.parse((await hds('docs', '--filter', 'metadata.custom.owner=finance', '--json')).stdout);
    assert.deepEqual(updated.documents.map((document: { document_id: string }) => document.document_id), ['multi.txt']);
    assert.equal(updated.documents[0].metadata.custom.year, 2024, 'an integer stays an integer');

    assert.equal(JSON.parse((await hds('delete', 'multi.txt')).stdout).status, 'soft_deleted');
    assert.equal(JSON.parse((await hds('docs', '--filter', 'metadata.custom.owner=finance', '--json')).stdout).documents.length, 0);
    assert.equal(JSON.parse((await hds('restore', 'multi.txt')).stdout).status, 'restored');
    assert.equal(JSON.parse((await hds('docs', '--filter', 'metadata.custom.owner=finance', '--json')).stdout).documents.length, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a wrong key exits 1 with the envelope; a wrong usage exits 2', async () => {
  const refused = await run(process.execPath, ['src/cli.ts', '--url', server.url, '--key', 'not-a-key', 'search', 'anything']);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /401 auth_failed/);
  const usage = await hds('search', 'x', '--scope', 'sideways');
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /sideways/);
  const pair = await hds('search', 'x', '--filter', 'no-equals-sign');
  assert.equal(pair.code, 2);
  assert.match(pair.stderr, /key=value/);
});
