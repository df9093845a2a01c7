// The document view's versions (console/src/versions.ts) against the real service through the typed client: the
// Client's list is read page after page until it ends, each version of the document once; at the page bound the
// walk stops and says it was cut.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSearchClient } from '../../clients/typescript/src/index.ts';
import { versionsOf } from '../../console/src/versions.ts';
import { KEYS, removeDir, startTestServer } from '../helpers/server.ts';

test('a document\'s versions are gathered over pages until the list ends, or cut at the bound and said so', async () => {
  const server = await startTestServer();
  try {
    const client = createSearchClient({ baseUrl: server.url, apiKey: KEYS.alpha });
    // Listed by document id: a-memo, b-memo (two versions), c-memo.
    const uploads = [
      { documentId: 'a-memo', text: 'Minutes of the audit committee' },
      { documentId: 'b-memo', versionId: 'v1', text: 'Branch opening hours in Kuala Lumpur' },
      { documentId: 'b-memo', versionId: 'v2', text: 'Branch opening hours in Kuala Lumpur and Penang' },
      { documentId: 'c-memo', text: 'Quarterly statement of accounts' },
    ];
    for (const upload of uploads) {
      const job = await client.uploadText(upload);
      assert.equal((await client.waitForJob(job.job_id, { intervalMs: 50, maxIntervalMs: 200 })).status, 'completed');
    }
    const pages: number[] = [];
    const page = (offset: number, limit: number) => {
      pages.push(offset);
      return client.documentPage({ includeDeleted: true, pageSize: limit, offset });
    };
    const whole = await versionsOf('b-memo', page, 1, 10);
    assert.deepEqual(whole.rows.map((row) => row.version_id).sort(), ['v1', 'v2']);
    assert.deepEqual({ complete: whole.complete, read: whole.read, total: whole.total }, { complete: true, read: 4, total: 4 });
    assert.deepEqual(pages, [0, 1, 2, 3], 'one page after another, up to the last');
    pages.length = 0;
    const cut = await versionsOf('b-memo', page, 1, 2);
    assert.deepEqual({ complete: cut.complete, read: cut.read, total: cut.total }, { complete: false, read: 2, total: 4 });
    assert.deepEqual(pages, [0, 1], 'no page past the bound');
    assert.ok(cut.rows.length < 2, 'the cut list is short of the document\'s versions');
    const oneRequest = await versionsOf('c-memo', page, 1000);
    assert.deepEqual({ rows: oneRequest.rows.length, complete: oneRequest.complete }, { rows: 1, complete: true });
  } finally {
    await server.close();
    removeDir(server.dataDir);
  }
});
