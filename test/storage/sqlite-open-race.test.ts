// Several processes creating the same SQLite databases at once (two api processes and a worker meeting a new
// Client's first uploads) all open them: switching a new file to WAL can answer "database is locked" at once,
// without SQLite's busy handler, and openDatabase waits that out instead of failing the request with a 500.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const FIXTURE = new URL('./fixtures/open-fresh-databases.ts', import.meta.url).pathname;
const PROCESSES = 3;
/** Before the fix, three processes over 300 new files met 10 to 30 failed opens. */
const FILES = 300;

test('three processes opening the same new databases at once all succeed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hds-open-race-'));
  try {
    const outputs = await Promise.all(Array.from({ length: PROCESSES }, () => run(process.execPath, [FIXTURE, dir, String(FILES)])));
    for (const { stdout } of outputs) {
      const { failed, first } = JSON.parse(stdout) as { failed: number; first: string | null };
      assert.equal(failed, 0, `opens failed: ${first}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
