import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useTestServer, startTestServer, api, KEYS, removeDir, uploadText, waitForJob } from '../helpers/server.ts';
import { controlSql, TEST_STORE } from '../helpers/test-store.ts';

const server = useTestServer();

async function ingest(documentId: string, versionId: string, metadata: Record<string, unknown>, text = `Account statement ${documentId} ${versionId}.`) {
  const accepted = await uploadText(server.url, KEYS.alpha, { document_id: documentId, version_id: versionId, text, filename: 'orig.txt', metadata });
  const job = await waitForJob(server.url, KEYS.alpha, accepted.json.job_id);
  assert.equal(job.status, 'completed');
}

async function update(body: unknown) {
  return api(server.url, '/update', { method: 'PATCH', key: KEYS.alpha, body });
}

async function customOf(documentId: string) {
  const text = await api(server.url, `/document/${documentId}/text?include_deleted=true`, { key: KEYS.alpha });
  return text.json.metadata;
}

test('merge patch: nested merge, null deletes, omitted unchanged; 202 echoes canonical paths', async () => {
  await ingest('mp', 'v1', { team: 'ops', region: { name: 'north', code: 7 }, drop: 'me' });
  const accepted = await update({ document_id: 'mp', metadata: { region: { code: 8 }, drop: null, 'cost.centre': 'KL' } });
  assert.equal(accepted.status, 202);
  assert.equal(accepted.json.status, 'pending');
  assert.equal(accepted.json.document_id, 'mp');
  assert.equal(accepted.json.version_id, null);
  assert.deepEqual(accepted.json.updated_fields, ['metadata.custom.region', 'metadata.custom.drop', 'metadata.custom."cost.centre"']);
  const job = await waitForJob(server.url, KEYS.alpha, accepted.json.job_id);
  assert.equal(job.status, 'completed', JSON.stringify(job));
  assert.equal(job.operation, 'metadata_update');
  assert.equal(job.publication_status, 'ready');
  assert.equal(job.versions_total, 1);
  assert.equal(job.versions_completed, 1);
  assert.equal(job.versions_unchanged, 0);
  assert.ok(job.updated_chunks >= 1);
  assert.equal(job.cleanup_tasks_scheduled, 1);
  assert.equal(job.updated_fields_count, 3);
  assert.equal(job.updated_fields_truncated, false);
  assert.equal(JSON.stringify(job).includes('KL'), false, 'custom values never appear in job status');
  const metadata = await customOf('mp');
  assert.deepEqual(metadata.custom, { team: 'ops', region: { name: 'north', code: 8 }, 'cost.centre': 'KL' });
  assert.equal(metadata.source.filename, 'orig.txt');

  const search = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'account statement', filters: { 'metadata.custom.cost.centre': 'KL' } } });
  assert.equal(search.json.results.length, 1);
  assert.deepEqual(search.json.results[0].canonical_metadata.custom.region, { name: 'north', code: 8 });
  const list = await api(server.url, '/documents?metadata_filter=' + encodeURIComponent('{"metadata.custom.team":"ops"}'), { key: KEYS.alpha });
  assert.equal(list.json.documents.find((row: any) => row.document_id === 'mp').metadata.custom.region.code, 8);
});

test('an empty patch completes as a no-op; a rename writes only source.filename', async () => {
  await ingest('noop', 'v1', { a: 1 });
  const empty = await update({ document_id: 'noop', metadata: {} });
  assert.equal(empty.status, 202);
  assert.deepEqual(empty.json.updated_fields, []);
  const job = await waitForJob(server.url, KEYS.alpha, empty.json.job_id);
  assert.equal(job.status, 'completed');
  assert.equal(job.versions_unchanged, 1);

  const rename = await update({ document_id: 'noop', version_id: 'v1', filename: '  renamed.txt  ', metadata: { filename: 'custom-name' } });
  assert.equal(rename.status, 202);
  assert.equal(rename.json.version_id, 'v1');
  assert.deepEqual(rename.json.updated_fields, ['metadata.custom.filename', 'metadata.source.filename']);
  const renamed = await waitForJob(server.url, KEYS.alpha, rename.json.job_id);
  assert.deepEqual(renamed.updated_fields, ['filename'], "the job's status lists the patch's top-level keys");
  const metadata = await customOf('noop');
  assert.equal(metadata.source.filename, 'renamed.txt');
  assert.equal(metadata.source.mime_type, 'text/plain');
  assert.equal(metadata.custom.filename, 'custom-name');
  const onlyRename = await update({ document_id: 'noop', version_id: 'v1', filename: 'again.txt' });
  assert.deepEqual((await waitForJob(server.url, KEYS.alpha, onlyRename.json.job_id)).updated_fields, ['filename']);
});

test('400s: reserved, system and legacy paths, bad filename, bad ids; nothing is queued', async () => {
  for (const body of [
    { document_id: 'x', metadata: { deleted: true } },
    { document_id: 'x', metadata: { client_id: 'other' } },
    { document_id: 'x', metadata: { source: { filename: 'y' } } },
    { document_id: 'x', metadata: { 'metadata.source.filename': 'y' } },
    { document_id: 'x', metadata: { 'location.page_number': 2 } },
    { document_id: 'x', metadata: { processing: { page_number: 2 } } },
    { document_id: 'x', filename: '   ' },
    { document_id: 'x', filename: 'bad\u0007name' },
    { document_id: '', metadata: { a: 1 } },
    { document_id: 'x', version_id: 'bad\nid', metadata: { a: 1 } },
  ]) {
    const response = await update(body);
    assert.equal(response.status, 400, JSON.stringify(body));
    assert.equal(typeof response.json.detail, 'string');
    const reserved = body.metadata !== undefined && body.document_id === 'x' && body.version_id === undefined;
    assert.equal(response.json.error_code, reserved ? 'reserved_metadata_keys' : 'invalid_request', JSON.stringify(body));
  }
});

test('422s: neither metadata nor filename, unknown keys, wrong shapes', async () => {
  for (const body of [{ document_id: 'x' }, { document_id: 'x', metadata: { a: 1 }, colour: 1 }, { document_id: 'x', metadata: [1] }, { document_id: 7, metadata: {} }]) {
    const response = await update(body);
    assert.equal(response.status, 422, JSON.stringify(body));
    assert.equal(response.json.error_code, 'validation_error');
  }
});

test('an unknown or another Client’s document fails the job with "Metadata update failed"', async () => {
  const accepted = await update({ document_id: 'no-such-doc', metadata: { a: 1 } });
  assert.equal(accepted.status, 202, 'accepted before resolving the document');
  const job = await waitForJob(server.url, KEYS.alpha, accepted.json.job_id);
  assert.equal(job.status, 'failed');
  assert.equal(job.error, 'Metadata update failed');
  const beta = await uploadText(server.url, KEYS.beta, { document_id: 'beta-doc', text: 'Beta statement.' });
  await waitForJob(server.url, KEYS.beta, beta.json.job_id);
  const foreign = await update({ document_id: 'beta-doc', metadata: { a: 1 } });
  const foreignJob = await waitForJob(server.url, KEYS.alpha, foreign.json.job_id);
  assert.equal(foreignJob.error, 'Metadata update failed');
  assert.equal((await api(server.url, `/status/${foreign.json.job_id}`, { key: KEYS.beta })).status, 404);
});

test('a patch that breaks the metadata contract on its own is refused at once (422) and changes nothing', async () => {
  await ingest('big', 'v1', { keep: 'yes' });
  const refused = await update({ document_id: 'big', metadata: { blob: 'x'.repeat(70_000) } });
  assert.equal(refused.status, 422, refused.text);
  assert.equal(refused.json.detail, 'Request validation failed');
  const [entry] = refused.json.details;
  assert.equal(entry.type, 'metadata_contract');
  assert.deepEqual(entry.loc, ['body', 'metadata']);
  assert.equal(entry.input.code, 'metadata_canonical_json_bytes_limit');
  assert.deepEqual(entry.input.path, ['metadata', 'custom']);
  assert.equal(entry.input.limit, 65536);
  assert.equal(entry.input.unit, 'utf8_bytes');
  assert.ok(entry.input.observed > 65536);
  assert.equal(refused.text.includes('xxxx'), false, 'never a value');
  // Too deep on its own, and for a document that does not exist: the patch alone decides, nothing is resolved.
  let deep: Record<string, unknown> = { leaf: true };
  for (let level = 0; level < 10; level++) deep = { nested: deep };
  const tooDeep = await update({ document_id: 'no-such-document', metadata: { deep } });
  assert.equal(tooDeep.status, 422, tooDeep.text);
  assert.equal(tooDeep.json.details[0].input.code, 'metadata_depth_limit');
  assert.deepEqual((await customOf('big')).custom, { keep: 'yes' });
});

test('a patch within the contract alone but not once merged is accepted, then fails with error_details; the previous generation stays authoritative', async () => {
  await ingest('half-full', 'v1', { a: 'a'.repeat(40_000), keep: 'yes' });
  const before = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'account statement half-full', filters: { 'metadata.custom.keep': 'yes' } } });
  const beforeHit = before.json.results.find((result: any) => result.document_version.document_id === 'half-full');
  assert.ok(beforeHit, before.text);
  const accepted = await update({ document_id: 'half-full', metadata: { b: 'b'.repeat(40_000), keep: 'revised-value' } });
  assert.equal(accepted.status, 202, 'SPEC.md PATCH rule 1: accepted before the document is resolved');
  assert.equal(accepted.json.status, 'pending');
  const job = await waitForJob(server.url, KEYS.alpha, accepted.json.job_id);
  assert.equal(job.status, 'failed', JSON.stringify(job).slice(0, 500));
  assert.equal(job.error, 'Metadata update validation failed');
  assert.deepEqual(Object.keys(job.error_details).sort(), ['code', 'limit', 'observed', 'path', 'unit']);
  assert.equal(job.error_details.code, 'metadata_canonical_json_bytes_limit');
  assert.deepEqual(job.error_details.path, ['metadata', 'custom']);
  assert.equal(job.error_details.limit, 65536);
  assert.equal(job.error_details.unit, 'utf8_bytes');
  assert.ok(job.error_details.observed > 80_000, 'the merged size, not the patch alone');
  const body = JSON.stringify(job);
  assert.equal(body.includes('aaaa') || body.includes('bbbb') || body.includes('revised-value'), false, 'custom values never appear');
  // Text and search still show what the previous generation holds.
  const metadata = await customOf('half-full');
  assert.equal(metadata.custom.b, undefined);
  assert.equal(metadata.custom.keep, 'yes');
  assert.equal(metadata.custom.a.length, 40_000);
  const after = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'account statement half-full', filters: { 'metadata.custom.keep': 'yes' } } });
  const afterHit = after.json.results.find((result: any) => result.document_version.document_id === 'half-full');
  assert.ok(afterHit, 'the old metadata still matches: ' + after.text.slice(0, 300));
  assert.deepEqual(afterHit.canonical_metadata, beforeHit.canonical_metadata);
  const changed = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'account statement half-full', filters: { 'metadata.custom.keep': 'revised-value' } } });
  assert.equal(changed.json.results.some((result: any) => result.document_version.document_id === 'half-full'), false);
});

test('a patch valid when accepted but not onto what the worker finds fails the job with error_details', async () => {
  // One job at a time, and both patches accepted while publication is fenced: each is valid on its own, and
  // whichever the worker runs second meets the other's 40,000 bytes.
  const serial = await startTestServer({ WORKER_CONCURRENCY: '1' });
  try {
    const upload = await uploadText(serial.url, KEYS.alpha, { document_id: 'race', text: 'Race statement.', metadata: { keep: 'yes' } });
    await waitForJob(serial.url, KEYS.alpha, upload.json.job_id);
    await api(serial.url, '/admin/authority/mode', { key: KEYS.operator, body: { mode: 'FENCING' } });
    const patches = [];
    for (const key of ['a', 'b']) {
      const accepted = await api(serial.url, '/update', { method: 'PATCH', key: KEYS.alpha, body: { document_id: 'race', metadata: { [key]: key.repeat(40_000) } } });
      assert.equal(accepted.status, 202, accepted.text);
      patches.push(accepted.json.job_id as string);
    }
    await api(serial.url, '/admin/authority/mode', { key: KEYS.operator, body: { mode: 'READY' } });
    const jobs = await Promise.all(patches.map((jobId) => waitForJob(serial.url, KEYS.alpha, jobId)));
    assert.deepEqual(jobs.map((job) => job.status).sort(), ['completed', 'failed']);
    const failed = jobs.find((job) => job.status === 'failed')!;
    assert.equal(failed.error, 'Metadata update validation failed');
    assert.equal(failed.error_details.code, 'metadata_canonical_json_bytes_limit');
    assert.deepEqual(failed.error_details.path, ['metadata', 'custom']);
    assert.ok(failed.error_details.observed > 65536);
    assert.equal(JSON.stringify(failed).includes('aaaa') || JSON.stringify(failed).includes('bbbb'), false);
  } finally {
    await serial.close();
    removeDir(serial.dataDir);
  }
});

test('updating a soft-deleted version keeps it deleted and keeps its filename', async () => {
  await ingest('hidden', 'v1', { a: 1 });
  await api(server.url, '/document/hidden', { method: 'DELETE', key: KEYS.alpha });
  const accepted = await update({ document_id: 'hidden', metadata: { a: 2 }, filename: 'new.txt' });
  await waitForJob(server.url, KEYS.alpha, accepted.json.job_id);
  assert.equal((await api(server.url, '/document/hidden/text', { key: KEYS.alpha })).status, 404);
  const metadata = await customOf('hidden');
  assert.equal(metadata.custom.a, 2);
  assert.equal(metadata.source.filename, 'orig.txt');
});

test('publication disabled: PATCH /update is 503', async () => {
  const disabled = await startTestServer({ PUBLICATION_ENABLED: 'false' });
  try {
    const response = await api(disabled.url, '/update', { method: 'PATCH', key: KEYS.alpha, body: { document_id: 'x', metadata: { a: 1 } } });
    assert.equal(response.status, 503);
    assert.equal(response.json.error_code, 'publication_disabled');
    assert.equal(typeof response.json.detail, 'string');
  } finally {
    await disabled.close();
    removeDir(disabled.dataDir);
  }
});

test('a search running during updates never sees a mixture of old and new metadata', async () => {
  for (const version of ['v1', 'v2', 'v3']) await ingest('mix', version, { stage: 0 }, `Consistency probe ledger ${version}.`);
  let stop = false;
  const observed = new Set<string>();
  const searchOnce = async (): Promise<void> => {
    const response = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'consistency probe ledger', filters: { document_id: 'mix' } } });
    assert.equal(response.status, 200);
    const stages = new Set(response.json.results.map((row: any) => row.canonical_metadata.custom.stage));
    assert.equal(stages.size, 1, `one search saw stages ${[...stages]}`);
    observed.add([...stages].join());
  };
  const searcher = (async () => {
    while (!stop) await searchOnce();
  })();
  for (let stage = 1; stage <= 5; stage++) {
    const accepted = await update({ document_id: 'mix', metadata: { stage } });
    await waitForJob(server.url, KEYS.alpha, accepted.json.job_id);
  }
  stop = true;
  await searcher;
  // The searcher's last search may have begun before the last update completed; one begun after must see it.
  await searchOnce();
  assert.ok(observed.has('5'), `stages seen: ${[...observed]}`);
  assert.ok(observed.size >= 2, `the searcher ran while the metadata changed: ${[...observed]}`);
});

test("parallel updates of one document's different keys are all applied, in the order they were accepted", async () => {
  await ingest('parallel', 'v1', { base: 0 });
  const accepted = await Promise.all(Array.from({ length: 8 }, (_, i) => update({ document_id: 'parallel', metadata: { [`k${i}`]: i } })));
  const order = accepted.map((response) => response.json.job_id as string);
  const jobs = await Promise.all(order.map((jobId) => waitForJob(server.url, KEYS.alpha, jobId)));
  assert.deepEqual(jobs.map((job) => job.status), Array(8).fill('completed'), JSON.stringify(jobs.filter((job) => job.status !== 'completed')));
  const custom = (await customOf('parallel')).custom;
  for (let i = 0; i < 8; i++) assert.equal(custom[`k${i}`], i, `k${i} was applied`);
  assert.equal(custom.base, 0);
});

test('job status caps updated_fields at 64 and reports the full count', async () => {
  await ingest('wide', 'v1', {});
  const metadata = Object.fromEntries(Array.from({ length: 70 }, (_, i) => [`field_${String(i).padStart(2, '0')}`, i]));
  const accepted = await update({ document_id: 'wide', metadata });
  assert.equal(accepted.json.updated_fields.length, 70);
  const pending = await api(server.url, `/status/${accepted.json.job_id}`, { key: KEYS.alpha });
  assert.equal(pending.json.updated_fields.length, 64);
  const job = await waitForJob(server.url, KEYS.alpha, accepted.json.job_id);
  assert.equal(job.status, 'completed');
  assert.equal(job.updated_fields.length, 64);
  assert.equal(job.updated_fields_count, 70);
  assert.equal(job.updated_fields_truncated, true);
  assert.equal(job.updated_fields[0], 'field_00', 'top-level patch keys, not the canonical paths of the 202 answer');
  assert.equal((await customOf('wide')).custom.field_69, 69);
});

test('an update that cannot be published waits, then fails with "Metadata update failed" and its counters', async () => {
  // SPEC.md PATCH rule 3: while FENCED the worker retries until publication is possible or a bounded failure.
  const fenced = await startTestServer({ PUBLICATION_WAIT_SECONDS: '2' });
  try {
    const upload = await uploadText(fenced.url, KEYS.alpha, { document_id: 'f', text: 'Fenced statement.' });
    await waitForJob(fenced.url, KEYS.alpha, upload.json.job_id);
    await api(fenced.url, '/admin/authority/mode', { key: KEYS.operator, body: { mode: 'FENCING' } });
    const accepted = await api(fenced.url, '/update', { method: 'PATCH', key: KEYS.alpha, body: { document_id: 'f', metadata: { x: 1 } } });
    assert.equal(accepted.status, 202, 'acceptance still means queued');
    const waiting = await waitForJob(fenced.url, KEYS.alpha, accepted.json.job_id, { until: (job) => job.status === 'retrying' });
    assert.equal(waiting.error, 'Waiting for publication (authority FENCING)');
    assert.equal(waiting.retry_count, 0, 'waiting spends no attempt');
    const job = await waitForJob(fenced.url, KEYS.alpha, accepted.json.job_id);
    assert.equal(job.status, 'failed');
    assert.equal(job.error, 'Metadata update failed');
    assert.equal(job.versions_total, 0);
    assert.equal(job.updated_chunks, 0);
  } finally {
    await fenced.close();
    removeDir(fenced.dataDir);
  }
});

test('PATCH answers 500 internal_error with nothing queued when the job cannot be enqueued', async () => {
  await ingest('unqueued', 'v1', { a: 1 });
  const queued = async () => (await controlSql(server.dataDir, `SELECT job_id FROM jobs WHERE operation = 'metadata_update' AND document_id = 'unqueued'`)).length;
  // The store refuses the job's row, as a full disk or a lost database would.
  const refuse =
    TEST_STORE === 'postgres'
      ? [
          `CREATE FUNCTION refuse_updates() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$`,
          `CREATE TRIGGER refuse_updates BEFORE INSERT ON jobs FOR EACH ROW WHEN (NEW.operation = 'metadata_update') EXECUTE FUNCTION refuse_updates()`,
        ]
      : [`CREATE TRIGGER refuse_updates BEFORE INSERT ON jobs WHEN NEW.operation = 'metadata_update' BEGIN SELECT RAISE(ABORT, 'refused'); END`];
  const allow = TEST_STORE === 'postgres' ? ['DROP TRIGGER IF EXISTS refuse_updates ON jobs', 'DROP FUNCTION IF EXISTS refuse_updates'] : ['DROP TRIGGER IF EXISTS refuse_updates'];
  try {
    for (const sql of refuse) await controlSql(server.dataDir, sql);
    const refused = await update({ document_id: 'unqueued', metadata: { a: 2 } });
    assert.equal(refused.status, 500, refused.text);
    assert.equal(refused.json.error_code, 'internal_error');
    assert.equal(typeof refused.json.detail, 'string');
    assert.equal(await queued(), 0, 'nothing queued');
  } finally {
    for (const sql of allow) await controlSql(server.dataDir, sql);
  }
  const accepted = await update({ document_id: 'unqueued', metadata: { a: 2 } });
  assert.equal(accepted.status, 202);
  assert.equal((await waitForJob(server.url, KEYS.alpha, accepted.json.job_id)).status, 'completed');
  assert.equal((await customOf('unqueued')).custom.a, 2);
});
