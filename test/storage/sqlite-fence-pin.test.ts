// The SQLite adapter's fence pin: its authority lives in the control database, apart from the Client files,
// so an append cannot be serialized with an operator's mode change. A writer that read READY just before a
// fence may commit just after; reads pin a fence by time, on the one machine's clock every process reads.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClientStore } from '../../src/storage/client-store.ts';
import { CLIENT_MIGRATIONS } from '../../src/storage/client-migrations.ts';
import { openDatabase } from '../../src/storage/sqlite.ts';
import { generationInput } from '../helpers/storage-adapters.ts';

test('entries appended after a fence began are not served while it lasts (SQLite pins by time)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hds-fence-pin-'));
  let clock = Date.parse('2026-01-01T00:00:00.000Z');
  const store = new ClientStore('c', { open: () => openDatabase(join(dir, 'c.db'), CLIENT_MIGRATIONS) }, { logRetained: 100, now: () => clock });
  try {
    await store.generations.stageAndActivate(generationInput('doc-1', ['before the fence']));
    clock += 1;
    const fencedAt = new Date(clock).toISOString();
    // The straddling writer: it passed its READY check before the fence and commits 1 ms after it began.
    clock += 1;
    await store.generations.stageAndActivate(generationInput('doc-2', ['after the fence']));
    assert.equal(await store.publicationLog.head(fencedAt), 1);
    assert.deepEqual((await store.publicationLog.changesSince(0, 100, fencedAt)).entries.map((entry) => entry.documentId), ['doc-1']);
    assert.equal(await store.publicationLog.head(), 2, 'READY serves it again');
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
