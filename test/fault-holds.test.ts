// The test preload of fault points (test/helpers/faults.ts) in a process of its own, as the service's processes
// load it: a held point waits until the test passes that arrival or opens the point, and a point the service
// does not have stops the process at start.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { FaultHolds, faultPauses, faultPreload } from './helpers/faults.ts';

const FAULT_POINTS_MODULE = fileURLToPath(new URL('../src/fault-points.ts', import.meta.url));

/** A process that goes through the job-stage point twice, saying so after each. */
function twoStages(env: Record<string, string>) {
  const script = `import { faultPoint } from ${JSON.stringify(FAULT_POINTS_MODULE)};\nfor (const n of [1, 2]) { await faultPoint('job-stage'); console.log('passed ' + n); }`;
  const child = spawn(process.execPath, [...faultPreload(env), '--input-type=module', '-e', script], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { stdout: () => stdout, exited };
}

test('a held arrival waits until the test passes it; after open, later ones go on unheld', async () => {
  const holds = new FaultHolds(['job-stage']);
  try {
    const run = twoStages(holds.env());
    const first = await holds.reached('job-stage');
    assert.equal(run.stdout(), '', 'held at the first arrival: nothing has passed');
    holds.pass(first);
    const second = await holds.reached('job-stage');
    assert.notEqual(second, first);
    assert.equal(run.stdout(), 'passed 1\n', 'the first passed, the second is held');
    holds.open('job-stage');
    assert.equal(await run.exited, 0);
    assert.equal(run.stdout(), 'passed 1\npassed 2\n');
  } finally {
    holds.remove();
  }
});

test('removing the holds releases a process still held', async () => {
  const holds = new FaultHolds(['job-stage']);
  const run = twoStages(holds.env());
  await holds.reached('job-stage');
  holds.remove();
  assert.equal(await run.exited, 0);
  assert.equal(run.stdout(), 'passed 1\npassed 2\n');
});

test('a point the service does not have, or a pause that is no whole number, stops the process at start', () => {
  for (const [env, named] of [
    [faultPauses({ 'job-stage': 0 }), null],
    [{ TEST_FAULT_PAUSES_MS: JSON.stringify({ 'job-stag': 10 }) }, /no fault point job-stag/],
    [{ TEST_FAULT_PAUSES_MS: JSON.stringify({ 'job-stage': 1.5 }) }, /job-stage needs whole milliseconds/],
    [{ TEST_FAULT_HOLDS: JSON.stringify({ dir: '/nonexistent', points: ['recover'] }) }, /no fault point recover/],
  ] as const) {
    const run = spawnSync(process.execPath, [...faultPreload({ ...env }), '-e', 'console.log("started")'], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', ...env } });
    if (named === null) assert.equal(run.stdout, 'started\n', run.stderr);
    else {
      assert.notEqual(run.status, 0, JSON.stringify(env));
      assert.match(run.stderr, named);
    }
  }
});
