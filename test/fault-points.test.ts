// The fault points (src/fault-points.ts) are a no-op until a behaviour is registered, await it once one is, and
// nothing in src/ registers one: only the test preload (test/helpers/faults.ts) can hold the service.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FAULT_POINTS, faultPoint, onFaultPoint } from '../src/fault-points.ts';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

test('a point without a behaviour resolves at once; a registered one is awaited at that point only', async () => {
  const seen: string[] = [];
  await faultPoint('job-stage');
  let release!: () => void;
  onFaultPoint('lifecycle-step', () => new Promise<void>((resolve) => (release = () => (seen.push('released'), resolve()))));
  const held = faultPoint('lifecycle-step').then(() => seen.push('passed'));
  await faultPoint('job-stage');
  seen.push('other point passed');
  assert.deepEqual(seen, ['other point passed']);
  release();
  await held;
  assert.deepEqual(seen, ['other point passed', 'released', 'passed']);
});

test('no file of src/ but fault-points.ts itself registers a behaviour, and each point is awaited somewhere', () => {
  const sources: Array<[string, string]> = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|js)$/.test(entry.name)) sources.push([path.slice(SRC.length), readFileSync(path, 'utf8')]);
    }
  };
  walk(SRC);
  assert.deepEqual(sources.filter(([path, text]) => path !== 'fault-points.ts' && /onFaultPoint\(/.test(text)).map(([path]) => path), []);
  for (const point of FAULT_POINTS) {
    assert.ok(sources.some(([, text]) => text.includes(`faultPoint('${point}')`)), `fault point ${point} is awaited in src/`);
  }
});
