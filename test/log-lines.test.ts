// A worker's log lines (src/log-lines.ts): pino's shape, and only lines at LOG_LEVEL or above. At warn, a job's
// failure is written and its completion is not; at silent nothing is.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogLines, LOG_LEVEL_NUMBERS } from '../src/log-lines.ts';
import { LOG_LEVELS } from '../src/config.ts';

function written(threshold: string): { lines: Record<string, unknown>[]; write: ReturnType<typeof createLogLines>['write'] } {
  const lines: Record<string, unknown>[] = [];
  const log = createLogLines(threshold, 'worker-3', (line) => lines.push(JSON.parse(line)));
  return { lines, write: log.write };
}

test('a line carries pino\'s fields, the process label and its own fields', () => {
  const { lines, write } = written('info');
  write('warn', 'job failed', { event: 'job_outcome', job_id: 'j1', error_code: 'no_text' });
  assert.equal(lines.length, 1);
  const [line] = lines;
  assert.equal(line.level, 40);
  assert.equal(line.pid, process.pid);
  assert.equal(line.process, 'worker-3');
  assert.equal(line.msg, 'job failed');
  assert.equal(line.job_id, 'j1');
  assert.equal(typeof line.time, 'number');
  assert.equal(typeof line.hostname, 'string');
});

test('LOG_LEVEL drops the lines below it; silent drops all', () => {
  const atWarn = written('warn');
  atWarn.write('info', 'job completed', { job_id: 'done' });
  atWarn.write('warn', 'job failed', { job_id: 'broken' });
  atWarn.write('debug', 'job transition', {});
  assert.deepEqual(atWarn.lines.map((line) => line.job_id), ['broken']);
  const silent = written('silent');
  for (const level of Object.keys(LOG_LEVEL_NUMBERS) as (keyof typeof LOG_LEVEL_NUMBERS)[]) silent.write(level, 'any', {});
  assert.deepEqual(silent.lines, []);
  const atTrace = written('trace');
  atTrace.write('debug', 'job transition', {});
  assert.equal(atTrace.lines.length, 1);
});

test('every LOG_LEVEL but silent has a number', () => {
  assert.deepEqual(LOG_LEVELS.filter((level) => level !== 'silent' && !(level in LOG_LEVEL_NUMBERS)), []);
});

test('an announcement is written whatever LOG_LEVEL says, at info, in the same shape', () => {
  for (const threshold of ['silent', 'error', 'info']) {
    const lines: Record<string, unknown>[] = [];
    const log = createLogLines(threshold, 'supervisor', (line) => lines.push(JSON.parse(line)));
    log.announce('listening on http://127.0.0.1:8080', { event: 'listening', url: 'http://127.0.0.1:8080' });
    log.write('info', 'SIGTERM received: draining 2 processes', { event: 'draining' });
    const expected = threshold === 'info' ? ['listening', 'draining'] : ['listening'];
    assert.deepEqual(lines.map((line) => line.event), expected, `at ${threshold}`);
    assert.equal(lines[0].level, LOG_LEVEL_NUMBERS.info);
    assert.equal(lines[0].process, 'supervisor');
    assert.equal(lines[0].msg, 'listening on http://127.0.0.1:8080');
  }
});
