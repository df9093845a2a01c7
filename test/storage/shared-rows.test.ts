// What both storage adapters read and decide alike (storage/shared/), on rows made by hand: the quota usage
// besides a version, readiness and authority records with their rules, the publication log's compaction and
// replay window, and a job's row. The adapters' own statements around these are covered on real SQLite and
// PostgreSQL by the contract tests (contract-shared.test.ts, contract-generations.test.ts, usage-totals.test.ts).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { usageBesides } from '../../src/storage/shared/usage.ts';
import { toAuthorityRecord, toRecordedReadiness } from '../../src/storage/shared/control-rows.ts';
import { compactedPast, compactionCeiling, PUBLICATION_LOG_COMPACTION_EVERY, replaysNothing, toLogEntry } from '../../src/storage/shared/publication-log-rows.ts';
import { outcomeColumns, toJobRecord } from '../../src/storage/shared/job-rows.ts';
import type { JobRow } from '../../src/storage/shared/job-rows.ts';
import { AuthorityUnreadable } from '../../src/domain/publication-log.ts';

const TOTALS = { documents: 10, chunks: 500, text_bytes: 40_000 };

test('usage besides a version: the replaced generation leaves the totals, its document only with its last version', () => {
  // A new document: nothing is replaced and nothing of it is counted yet.
  assert.deepEqual(usageBesides(TOTALS, undefined, 0), { documents: 10, chunks: 500, textBytes: 40_000, documentPresent: false });
  // A new version of a document that has another: the document is counted already.
  assert.deepEqual(usageBesides(TOTALS, undefined, 1), { documents: 10, chunks: 500, textBytes: 40_000, documentPresent: true });
  // The document's only version replaced: its chunks, text and the document itself leave.
  assert.deepEqual(usageBesides(TOTALS, { chunk_count: 20, text_bytes: 1_500 }, 1), { documents: 9, chunks: 480, textBytes: 38_500, documentPresent: false });
  // One of two versions replaced: the other keeps the document counted.
  assert.deepEqual(usageBesides(TOTALS, { chunk_count: 20, text_bytes: 1_500 }, 2), { documents: 10, chunks: 480, textBytes: 38_500, documentPresent: true });
});

test('readiness: none recorded is ready; a backfill whose job failed or is gone reads as blocked, never backfilling', () => {
  assert.deepEqual(toRecordedReadiness(undefined), { state: 'ready', backfillJobId: null, updatedAt: null });
  const backfilling = { state: 'backfilling', backfill_job_id: 'job-1', updated_at: '2026-01-02T03:04:05.000Z' };
  assert.deepEqual(toRecordedReadiness({ ...backfilling, job_status: 'processing' }), { state: 'backfilling', backfillJobId: 'job-1', updatedAt: '2026-01-02T03:04:05.000Z' });
  assert.equal(toRecordedReadiness({ ...backfilling, job_status: 'failed' }).state, 'blocked');
  assert.equal(toRecordedReadiness({ ...backfilling, job_status: null }).state, 'blocked');
  // Only a backfill is judged by its job: another state stands whatever the job it names.
  assert.equal(toRecordedReadiness({ ...backfilling, state: 'not_started', job_status: null }).state, 'not_started');
});

test('the authority record: a durable mode reads; a missing row or a mode that is not durable is unreadable', () => {
  const row = { mode: 'FENCING', authority_id: 'a1', changed_at: '2026-01-02T03:04:05.000Z' };
  assert.deepEqual(toAuthorityRecord(row), { mode: 'FENCING', authorityId: 'a1', changedAt: '2026-01-02T03:04:05.000Z' });
  assert.throws(() => toAuthorityRecord(undefined), AuthorityUnreadable);
  // RECOVERING is an api process's own mode, never stored; anything else is damage.
  for (const mode of ['RECOVERING', 'ready', '']) assert.throws(() => toAuthorityRecord({ ...row, mode }), AuthorityUnreadable, mode);
});

test('the publication log compacts on every 64th append, and a follower behind its floor or its bound replays nothing', () => {
  assert.equal(PUBLICATION_LOG_COMPACTION_EVERY, 64);
  assert.equal(compactionCeiling(128, 100), 28);
  assert.equal(compactionCeiling(127, 100), null);
  // The entry after `since` is still there (floor since + 1), or it is gone.
  assert.equal(compactedPast(4, 3), false);
  assert.equal(compactedPast(5, 3), true);
  assert.equal(replaysNothing(10, 1, 10, 100), true, 'nothing new');
  assert.equal(replaysNothing(11, 1, 10, 100), false);
  assert.equal(replaysNothing(111, 1, 10, 100), true, 'more new entries than a replay takes');
  assert.equal(replaysNothing(110, 1, 10, 100), false);
  assert.equal(replaysNothing(20, 12, 10, 100), true, 'compacted past the position');
  assert.deepEqual(toLogEntry({ seq: 7, kind: 'remove', document_id: 'd', version_key: '', generation: null }), { seq: 7, kind: 'remove', documentId: 'd', versionKey: '', generation: null });
});

test("a job's row reads as its record, its JSON parsed; an outcome is stored as its columns", () => {
  const row: JobRow = {
    seq: 3,
    job_id: 'j3',
    client_id: 'c1',
    operation: 'embed',
    document_id: 'd1',
    version_key: null,
    status: 'failed',
    request: '{"upload":"up-3"}',
    result: null,
    error: 'parse failed',
    error_details: '{"code":"parse_failed"}',
    attempts: 2,
    max_attempts: 3,
    next_run_at: 1_000,
    lease_owner: null,
    lease_expires_at: null,
    publication_wait_since: 900,
    created_at: '2026-01-02T03:04:05.000Z',
    updated_at: '2026-01-02T03:04:06.000Z',
    completed_at: '2026-01-02T03:04:06.000Z',
  };
  const record = toJobRecord(row);
  assert.deepEqual(record.request, { upload: 'up-3' });
  assert.equal(record.result, null);
  assert.deepEqual(record.errorDetails, { code: 'parse_failed' });
  assert.equal(record.versionKey, null);
  assert.equal(record.publicationWaitSince, 900);
  assert.deepEqual([record.seq, record.jobId, record.maxAttempts, record.completedAt], [3, 'j3', 3, '2026-01-02T03:04:06.000Z']);
  // A request whose own row was removed by hand reads as none, not as a failure of every read of the job.
  assert.equal(toJobRecord({ ...row, request: null }).request, null);
  assert.deepEqual(outcomeColumns({ status: 'completed', result: { generation: 4 } }), ['completed', '{"generation":4}', null, null]);
  assert.deepEqual(outcomeColumns({ status: 'failed', error: 'x', errorDetails: { code: 'y' } }), ['failed', null, 'x', '{"code":"y"}']);
});
