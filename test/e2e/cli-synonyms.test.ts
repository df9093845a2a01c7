// `hds synonyms get|set FILE` and `hds similar DOC_ID` against a real service: rules one a line for a person,
// the service's JSON with --json, a bad file or a refused set exits non-zero and changes nothing.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { api, KEYS, removeDir, uploadText, useTestServer, waitForJob } from '../helpers/server.ts';
import { childEnv } from '../helpers/child-env.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const server = useTestServer({ API_PROCESSES: '1' }, async (started) => {
  for (const [document_id, text] of [
    ['rent-1', 'Tenancy agreement for the shop lot: monthly rent, deposit and repairs of the roof.'],
    ['rent-2', 'Tenancy agreement for the shop lot: monthly rent, deposit, roof repairs by the landlord.'],
    ['recipe', 'Fry the garlic and shallots, add prawns and soy sauce.'],
  ]) {
    const accepted = await uploadText(started.url, KEYS.alpha, { document_id, text });
    await waitForJob(started.url, KEYS.alpha, accepted.json.job_id);
  }
});

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['src/cli.ts', '--url', server.url, '--key', KEYS.alpha, ...args], { cwd: ROOT, env: childEnv() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

test('hds synonyms set FILE replaces the set and get prints it; a bad file changes nothing', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hds-synonyms-'));
  try {
    assert.equal((await cli(['synonyms', 'get'])).stdout, 'no synonyms\n');
    const file = join(dir, 'synonyms.json');
    writeFileSync(file, JSON.stringify({ synonyms: [{ terms: ['sewa', 'rent'] }, { input: 'bumbung', synonyms: ['roof'] }] }));
    const set = await cli(['synonyms', 'set', file]);
    assert.equal(set.code, 0, set.stderr);
    assert.equal(set.stdout, 'sewa = rent\nbumbung => roof\n');
    assert.deepEqual(JSON.parse((await cli(['synonyms', 'get', '--json'])).stdout), { synonyms: [{ terms: ['sewa', 'rent'] }, { input: 'bumbung', synonyms: ['roof'] }] });
    // The service applies it: a Malay word finds the English documents.
    const found = await api(server.url, '/search', { key: KEYS.alpha, body: { query: 'sewa', alpha: 0 } });
    assert.deepEqual(found.json.results.map((row: any) => row.document_version.document_id).sort(), ['rent-1', 'rent-2']);

    const refused = join(dir, 'refused.json');
    writeFileSync(refused, JSON.stringify([{ terms: ['sewa'] }]));
    const answer = await cli(['synonyms', 'set', refused]);
    assert.equal(answer.code, 1);
    assert.match(answer.stderr, /422 validation_error/);
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{"synonyms": [');
    const usage = await cli(['synonyms', 'set', broken]);
    assert.equal(usage.code, 2, usage.stderr);
    assert.equal((await cli(['synonyms', 'get'])).stdout, 'sewa = rent\nbumbung => roof\n', 'refused sets change nothing');
  } finally {
    removeDir(dir);
  }
});

test('hds similar DOC_ID prints the documents most like it, and --json the answer', async () => {
  const similar = await cli(['similar', 'rent-1', '--json']);
  assert.equal(similar.code, 0, similar.stderr);
  const answer = JSON.parse(similar.stdout);
  assert.equal(answer.results[0].document_version.document_id, 'rent-2');
  assert.ok(answer.results.every((row: any) => row.document_version.document_id !== 'rent-1'));
  const forPerson = await cli(['similar', 'rent-1', '--limit', '1']);
  assert.equal(forPerson.code, 0, forPerson.stderr);
  assert.match(forPerson.stdout, /rent-2/);
  assert.doesNotMatch(forPerson.stdout, /rent-1/);
  const unknown = await cli(['similar', 'nope']);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /404 not_found/);
});
