// Awaits a promise that must reject with an IngestError and returns that error.

import assert from 'node:assert/strict';
import { IngestError } from '../../src/ingest/parsed-document.ts';

export async function failureOf(run: Promise<unknown>): Promise<IngestError> {
  try {
    await run;
  } catch (error) {
    assert.ok(error instanceof IngestError, String(error));
    return error;
  }
  assert.fail('expected a failure');
}
