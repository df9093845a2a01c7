// The people's CLI (`hds`, src/cli.ts) as a person runs it against the real service: `ingest DIR` in a
// pseudo-terminal (util-linux `script`) draws a progress bar and ends with the table of failures; a second run
// skips what the service holds and a changed file becomes a new version; `search` highlights the matched words
// in the terminal; docs, status, update, delete, restore and upload speak to a person by default and print JSON
// with --json; tables fit the terminal; a wrong key exits 1, a wrong usage 2, and a refusal shows its details.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
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

test('docs, status, update, delete and restore speak to a person by default and print the service\'s JSON with --json', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hds-cli-docs-'));
  try {
    copyFileSync(join(CORPUS, 'txt/tika_multi-language.txt'), join(dir, 'multi.txt'));
    assert.match((await hds('ingest', dir, '--poll-ms', '100')).stdout, /1 completed/);
    const table = await hds('docs', '--filter', 'metadata.source.filename=multi.txt');
    assert.match(table.stdout, /^DOCUMENT\s+VERSION\s+CHUNKS\s+CREATED\s+FILENAME\s+CUSTOM$/m);
    assert.match(table.stdout, /^multi\.txt\s+[0-9a-f]{16}\s+\d+\s+\d{4}-\d\d-\d\d \d\d:\d\d\s+multi\.txt\s+\{\}$/m);

    const queued = await hds('update', 'multi.txt', '--set', 'owner=finance', '--set', 'year=2024');
    assert.equal(queued.code, 0, queued.stderr);
    const jobId = /queued as job (\S+) \(hds status \1 --wait\)/.exec(queued.stdout)?.[1];
    assert.ok(jobId, `the job is named with the command that waits for it\n${queued.stdout}`);
    const waited = await hds('status', jobId, '--wait');
    assert.equal(waited.code, 0, waited.stderr);
    assert.match(waited.stdout, new RegExp(`^${jobId}  metadata_update  completed  multi\\.txt$`, 'm'));
    assert.match(waited.stdout, /^ {2}updated_fields\s+owner, year$/m, 'a list of names reads as one');
    const status = JSON.parse((await hds('status', jobId, '--json')).stdout);
    assert.equal(status.status, 'completed');
    assert.equal(status.job_id, jobId);
    const accepted = JSON.parse((await hds('update', 'multi.txt', '--set', 'checked=true', '--json')).stdout);
    assert.equal(accepted.status, 'pending');
    const ended = JSON.parse((await hds('update', 'multi.txt', '--set', 'checked=false', '--wait', '--json')).stdout);
    assert.equal(ended.status, 'completed');
    assert.equal(ended.operation, 'metadata_update');
    const updated = JSON.parse((await hds('docs', '--filter', 'metadata.custom.owner=finance', '--json')).stdout);
    assert.deepEqual(updated.documents.map((document: { document_id: string }) => document.document_id), ['multi.txt']);
    assert.equal(updated.documents[0].metadata.custom.year, 2024, 'an integer stays an integer');

    const active = await hds('restore', 'multi.txt');
    assert.equal(active.code, 1);
    assert.equal(active.stderr, 'error: multi.txt is not deleted: nothing to restore\n', 'not "Document not found"');
    const unknown = await hds('restore', 'never-uploaded.txt');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /never-uploaded\.txt: no such document/);
    const activeJson = await hds('restore', 'multi.txt', '--json');
    assert.equal(JSON.parse(activeJson.stdout).error_code, 'not_found', '--json prints the envelope the service sent');

    const deleted = await hds('delete', 'multi.txt');
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.match(deleted.stdout, /^multi\.txt: soft-deleted, \d+ chunks? hidden \(hds restore multi\.txt brings it back\)$/m);
    assert.equal(JSON.parse((await hds('docs', '--filter', 'metadata.custom.owner=finance', '--json')).stdout).documents.length, 0);
    const withDeleted = await hds('docs', '--include-deleted', '--filter', 'metadata.custom.owner=finance');
    assert.match(withDeleted.stdout, /^DOCUMENT\s+VERSION\s+CHUNKS\s+CREATED\s+DELETED\s+FILENAME\s+CUSTOM$/m);
    assert.match(withDeleted.stdout, /^multi\.txt\s+[0-9a-f]{16}\s+\d+\s+\S+ \S+\s+\d{4}-\d\d-\d\d \d\d:\d\d\s+multi\.txt\s/m, 'the DELETED column holds when');
    const restored = await hds('restore', 'multi.txt');
    assert.match(restored.stdout, /^multi\.txt: restored, \d+ chunks? searchable again$/m);
    const listed = await hds('docs', '--include-deleted', '--filter', 'metadata.custom.owner=finance');
    assert.match(listed.stdout, /^multi\.txt\s+[0-9a-f]{16}\s+\d+\s+\S+ \S+\s+no\s+multi\.txt\s/m);
    assert.equal(JSON.parse((await hds('delete', 'multi.txt', '--json')).stdout).status, 'soft_deleted');
    assert.equal(JSON.parse((await hds('restore', 'multi.txt', '--json')).stdout).status, 'restored');
    const hard = await hds('delete', 'multi.txt', '--hard');
    assert.match(hard.stdout, /^multi\.txt: removed for good \(\d+ chunks?\)$/m);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('upload FILE: one file, waited for and told in words, as JSON, or queued only', async () => {
  const file = join(CORPUS, 'txt/tika_testMARKDOWN.md');
  const told = await hds('upload', file, '--document', 'one-file.md', '--metadata', 'batch=single');
  assert.equal(told.code, 0, told.stderr);
  assert.match(told.stdout, /^\S+  embed  completed  one-file\.md$/m);
  assert.match(told.stdout, /^ {2}chunks_created\s+\d+$/m);
  const asJson = JSON.parse((await hds('upload', file, '--document', 'one-file.md', '--version', 'second', '--json')).stdout);
  assert.equal(asJson.status, 'completed');
  assert.equal(asJson.document_id, 'one-file.md');
  const queued = await hds('upload', file, '--no-wait');
  assert.match(queued.stdout, /^tika_testMARKDOWN\.md: queued as job (\S+) \(hds status \1 --wait\)$/m, 'the file name is the document id');
  const accepted = JSON.parse((await hds('upload', file, '--document', 'third.md', '--no-wait', '--json')).stdout);
  assert.equal(accepted.status, 'pending');
  const listed = JSON.parse((await hds('docs', '--filter', 'metadata.custom.batch=single', '--json')).stdout);
  assert.deepEqual(listed.documents.map((document: { document_id: string }) => document.document_id), ['one-file.md']);
  const failed = await hds('upload', join(CORPUS, 'hostile/poi_invalid.xlsx'));
  assert.equal(failed.code, 1, 'a job that failed fails the command');
  assert.match(failed.stdout, /embed {2}failed {2}poi_invalid\.xlsx/);
  assert.match(failed.stdout, /^ {2}error\s+\S+/m);
  const missing = await hds('upload', join(CORPUS, 'no-such-file.txt'));
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /no-such-file\.txt is not a file/);
});

test('tables fit the terminal: the widest columns are cut, marked with an ellipsis', async () => {
  const long = `a-document-with-a-long-name-${'x'.repeat(60)}.txt`;
  const file = join(CORPUS, 'txt/tika_testMARKDOWN.md');
  assert.equal((await hds('upload', file, '--document', long, '--metadata', `note=${'y'.repeat(80)}`)).code, 0);
  const narrow = await run(process.execPath, ['src/cli.ts', ...connection(), 'docs', '--filter', 'metadata.custom.note=' + 'y'.repeat(80)], { COLUMNS: '80' });
  const lines = narrow.stdout.trimEnd().split('\n');
  assert.equal(lines.length, 3, narrow.stdout);
  for (const line of lines) assert.ok(line.length <= 80, `${line.length} > 80: ${line}`);
  assert.match(lines[1], /^a-docum\S*…\s+[0-9a-f]{16}\s+1\s+\d{4}-\d\d-\d\d \d\d:\d\d\s+\S+\s+\{"note":"y*…$/, 'names and free text are cut, ids, counts and times kept');
  const terminal = await hdsInTerminal('docs', '--filter', 'metadata.custom.note=' + 'y'.repeat(80));
  for (const line of terminal.stdout.trimEnd().split('\n')) assert.ok(line.replace(/\u001b\[[0-9;]*m/g, '').length <= 120, `a terminal of 120 columns: ${line}`);
  const piped = await hds('docs', '--filter', 'metadata.custom.note=' + 'y'.repeat(80));
  assert.ok(piped.stdout.includes(long), 'a pipe with no width keeps whole cells');
});

test('a wrong key exits 1 with the envelope; a wrong usage exits 2; a refusal shows its details', async () => {
  const refused = await run(process.execPath, ['src/cli.ts', '--url', server.url, '--key', 'not-a-key', 'search', 'anything']);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /401 auth_failed/);
  const usage = await hds('search', 'x', '--scope', 'sideways');
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /sideways/);
  const pair = await hds('search', 'x', '--filter', 'no-equals-sign');
  assert.equal(pair.code, 2);
  assert.match(pair.stderr, /key=value/);
  const folder = await hds('ingest', join(CORPUS, 'no-such-folder'));
  assert.equal(folder.code, 2, 'a missing folder is a usage error');
  assert.match(folder.stderr, /no-such-folder is not a folder/);
  const url = await run(process.execPath, ['src/cli.ts', '--url', 'localhost-without-scheme', 'docs']);
  assert.equal(url.code, 2);
  assert.match(url.stderr, /"localhost-without-scheme" is not an http\(s\) URL/);

  const tooMany = await hds('search', 'x', '--limit', '500');
  assert.equal(tooMany.code, 1);
  assert.match(tooMany.stderr, /^error: 422 validation_error: Request validation failed \(limit: .*100\) \[request \S+\]$/m, 'the details say which field and why');
  const asJson = await hds('search', 'x', '--limit', '500', '--json');
  assert.equal(asJson.code, 1);
  assert.equal(JSON.parse(asJson.stdout).details[0].loc.at(-1), 'limit', '--json prints the envelope with its details');
});

test('a service that cannot be reached is named with the cause; --version prints the version', async () => {
  const closed = await new Promise<number>((resolve) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
  const unreachable = await run(process.execPath, ['src/cli.ts', '--url', `http://127.0.0.1:${closed}`, '--key', KEYS.alpha, 'docs']);
  assert.equal(unreachable.code, 1);
  assert.equal(unreachable.stderr, `error: cannot reach the service at http://127.0.0.1:${closed}: connection refused (is the service running? \`npm start\` starts it) [ECONNREFUSED]\n`);
  const operator = await run(process.execPath, ['src/cli.ts', '--url', `http://127.0.0.1:${closed}`, '--key', KEYS.operator, 'authority']);
  assert.equal(operator.code, 1);
  assert.match(operator.stderr, /cannot reach the service at http:\/\/127\.0\.0\.1:\d+: connection refused/);
  const version = await run(process.execPath, ['src/cli.ts', '--version']);
  assert.equal(version.code, 0);
  assert.equal(version.stdout, `hds ${JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version}\n`);
  const versionOption = await hds('delete', 'nothing-here', '--version', 'v1');
  assert.equal(versionOption.code, 1, 'a command\'s --version is a version id, not the CLI\'s');
  assert.match(versionOption.stderr, /404 not_found/);
});
