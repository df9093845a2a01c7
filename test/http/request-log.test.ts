// The level of a request's log line (request-log.ts): REQUEST_LOG_LEVEL for every answer below 500, a warning
// for a 503 and an error for any other 5xx whatever that setting says. The lines of real processes are read in
// test/e2e/observability.test.ts.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { requestLogLevel } from '../../src/http/request-log.ts';
import { ConfigError, loadConfig, REQUEST_LOG_LEVELS } from '../../src/config.ts';

test('answers below 500 take REQUEST_LOG_LEVEL; silent drops them', () => {
  for (const status of [200, 202, 304, 400, 401, 404, 413, 422, 429, 499]) {
    for (const level of ['warn', 'info', 'debug', 'trace']) assert.equal(requestLogLevel(status, level), level, `${status} at ${level}`);
    assert.equal(requestLogLevel(status, 'silent'), null, `${status} silent`);
  }
});

test('a 503 is a warning and any other 5xx an error, even with REQUEST_LOG_LEVEL silent or debug', () => {
  for (const configured of REQUEST_LOG_LEVELS) {
    assert.equal(requestLogLevel(503, configured), 'warn', configured);
    for (const status of [500, 502, 504, 507]) assert.equal(requestLogLevel(status, configured), 'error', `${status} at ${configured}`);
  }
});

test('REQUEST_LOG_LEVEL defaults to info and refuses a level that would pass requests for faults', () => {
  assert.equal(loadConfig({}).requestLogLevel, 'info');
  assert.equal(loadConfig({ REQUEST_LOG_LEVEL: 'debug' }).requestLogLevel, 'debug');
  for (const value of ['error', 'fatal', 'loud']) {
    assert.throws(() => loadConfig({ REQUEST_LOG_LEVEL: value }), (error: unknown) => error instanceof ConfigError && error.setting === 'REQUEST_LOG_LEVEL', value);
  }
});
