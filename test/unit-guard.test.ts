// The unit tier's guard (test/helpers/unit-guard.ts) fails a file that opens a database, starts a process or
// thread, or listens, even when the code under test catches the refusal, and lets a pure file pass. Each case is
// a node --test run of a small file under the guard, as test/run-tiers.ts runs the unit tier.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const GUARD = fileURLToPath(new URL('./helpers/unit-guard.ts', import.meta.url));

function underGuard(body: string): { status: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'hds-unit-guard-'));
  try {
    const file = join(dir, 'case.test.mjs');
    writeFileSync(file, `import { test } from 'node:test';\n${body}\n`);
    const run = spawnSync(process.execPath, ['--test', '--test-reporter=tap', '--import', GUARD, file], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
    return { status: run.status, output: `${run.stdout}\n${run.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a pure file passes under the guard', () => {
  const run = underGuard(`test('arithmetic', () => { if (1 + 1 !== 2) throw new Error('no'); });`);
  assert.equal(run.status, 0, run.output);
});

test('opening a SQLite database, starting a process or a thread, or listening fails the file, each named', () => {
  const cases: Array<[string, string, RegExp]> = [
    ["import { DatabaseSync } from 'node:sqlite';", "new DatabaseSync(':memory:');", /a SQLite database opened \(:memory:\)/],
    ["import { spawnSync } from 'node:child_process';", "spawnSync('true');", /child_process\.spawnSync\(true\)/],
    ["import { Worker } from 'node:worker_threads';", "new Worker('setTimeout(() => {}, 0)', { eval: true });", /a thread started/],
    ["import { createServer } from 'node:http';", "createServer().listen(0);", /a server listening/],
  ];
  for (const [imports, act, named] of cases) {
    const run = underGuard(`${imports}\ntest('does it', () => { ${act} });`);
    assert.notEqual(run.status, 0, `${act}: ${run.output}`);
    assert.match(run.output, named, act);
  }
});

test('a refusal the code under test catches still fails the file, naming it', () => {
  const run = underGuard(`import { DatabaseSync } from 'node:sqlite';\ntest('swallows it', () => { try { new DatabaseSync(':memory:'); } catch {} });`);
  assert.notEqual(run.status, 0, run.output);
  assert.match(run.output, /did what a unit test must not:\n\W*- a SQLite database opened/);
});
