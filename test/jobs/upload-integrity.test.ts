// A job parses its uploaded file only when it is the file accepted: the size and SHA-256 recorded with the job
// at acceptance still match what the upload store holds (a file cut short by a full disk, or altered at rest,
// would otherwise be indexed and completed as if it were the whole document).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { uploadIsWhole } from '../../src/jobs/embed-job.ts';
import type { EmbedJobRequest } from '../../src/domain/upload.ts';

const FILE = readFileSync(new URL('../../../shared/corpus/txt/tika_multi-language.txt', import.meta.url));

function accepted(bytes: Uint8Array): EmbedJobRequest {
  return { source: 'file', upload: 'u.upload', uploadBytes: bytes.byteLength, uploadSha256: createHash('sha256').update(bytes).digest('hex'), filename: 'a.txt', metadata: {} };
}

test('the file as accepted is whole; cut short, grown or altered in place it is not', () => {
  const request = accepted(FILE);
  assert.equal(uploadIsWhole(request, FILE), true);
  assert.equal(uploadIsWhole(request, FILE.subarray(0, FILE.length - 1)), false, 'one byte short');
  assert.equal(uploadIsWhole(request, Buffer.concat([FILE, Buffer.from('x')])), false, 'one byte more');
  const altered = Buffer.from(FILE);
  altered[100] ^= 0x20;
  assert.equal(uploadIsWhole(request, altered), false, 'same size, one byte altered');
});

test('a job accepted before sizes and digests were recorded reads its file as it is', () => {
  const { uploadBytes: _size, uploadSha256: _digest, ...older } = accepted(FILE);
  assert.equal(uploadIsWhole(older, FILE.subarray(0, 10)), true);
});
