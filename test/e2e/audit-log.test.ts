// SPEC.md "Events": a failed publication read logs an info-level publication_unavailable event; a failed
// search carries an HMAC fingerprint of its query keyed by the deployment's secret, never the query text.
// The test reads the real log lines of the running api processes.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { KEYS, removeDir, startTestServer, uploadText, waitForJob } from '../helpers/server.ts';
import { fresh, setMode, until } from '../helpers/processes.ts';

const SECRET = 'audit-test-secret';

/** Whether the api process that answered a request has logged its completion (after any event of that request). */
function completionLogged(stdout: string, requestId: unknown): boolean {
  return stdout.split('\n').some((line) => line.includes(`"reqId":"${String(requestId)}"`) && line.includes('"msg":"request completed"'));
}

function auditEvents(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((line) => line.includes('"event":"publication_unavailable"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

test('a search failing closed logs publication_unavailable with a keyed query fingerprint; writes log none', async () => {
  const server = await startTestServer({ LOG_LEVEL: 'info', AUDIT_FINGERPRINT_SECRET: SECRET });
  try {
    const accepted = await uploadText(server.url, KEYS.alpha, { document_id: 'acct', text: 'Statement for account 1234567890.' });
    await waitForJob(server.url, KEYS.alpha, accepted.json.job_id);
    await setMode(server.url, 'MAINTENANCE');
    const query = 'account 1234567890 Siti Aminah';
    const search = await fresh(server.url, '/search', { key: KEYS.alpha, body: { query } });
    assert.equal(search.status, 503);
    const deletion = await fresh(server.url, '/document/acct', { method: 'DELETE', key: KEYS.alpha });
    assert.equal(deletion.status, 503, 'a write refused in maintenance');
    // Each request's own log lines come before its completion line, on the stdout the api processes share.
    await until('both requests to be logged', () => completionLogged(server.server.stdout(), search.headers['x-request-id']) && completionLogged(server.server.stdout(), deletion.headers['x-request-id']));

    const events = auditEvents(server.server.stdout());
    assert.equal(events.length, 1, 'one event: the failed read, not the refused write');
    const [event] = events;
    assert.equal(event.level, 30, 'info level');
    assert.equal(event.route, '/search');
    assert.equal(event.error_code, 'publication_busy');
    assert.equal(event.client_id, 'client-alpha');
    assert.equal(event.request_id, search.headers['x-request-id']);
    assert.equal(event.query_fingerprint, createHmac('sha256', SECRET).update(query).digest('hex').slice(0, 32));
    assert.equal(server.server.stdout().includes('1234567890 Siti'), false, 'the query text is never logged');
    await setMode(server.url, 'READY');
  } finally {
    await server.close();
    removeDir(server.dataDir);
  }
});
