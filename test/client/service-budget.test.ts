// The typed client against a real local HTTP server standing in for a service that tells its budget
// (RateLimit-* headers): the headers are read as whole numbers or not at all, a client given requestsPerMinute
// keeps to the limit and room the service tells, and waitForJob's polls leave the window's last quarter alone.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSearchClient, serviceBudgetOf } from '../../clients/typescript/src/index.ts';
import type { WaitNotice } from '../../clients/typescript/src/index.ts';

/** A service answering every request with `answer()`'s body and RateLimit-* headers, recording arrivals. */
async function telling(answer: () => { body: object; remaining: number; reset: number }) {
  const arrivals: number[] = [];
  const server = createServer((_request, response) => {
    arrivals.push(Date.now());
    const { body, remaining, reset } = answer();
    response.writeHead(200, { 'content-type': 'application/json', 'ratelimit-limit': '30', 'ratelimit-remaining': String(remaining), 'ratelimit-reset': String(reset) });
    response.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, arrivals, close: () => new Promise((resolve) => server.close(resolve)) };
}

test('the three headers are read as whole numbers, or not at all', () => {
  const headers = (entries: Record<string, string>) => new Headers(entries);
  assert.deepEqual(serviceBudgetOf(headers({ 'RateLimit-Limit': '30', 'RateLimit-Remaining': '4', 'RateLimit-Reset': '17' })), { limit: 30, remaining: 4, resetSeconds: 17 });
  assert.equal(serviceBudgetOf(headers({ 'RateLimit-Limit': '30', 'RateLimit-Remaining': '4' })), null, 'no Reset');
  assert.equal(serviceBudgetOf(headers({ 'RateLimit-Limit': '0', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '1' })), null, 'a limit of none');
  assert.equal(serviceBudgetOf(headers({ 'RateLimit-Limit': '30', 'RateLimit-Remaining': '-1', 'RateLimit-Reset': '1' })), null);
  assert.equal(serviceBudgetOf(headers({ 'RateLimit-Limit': '3e1', 'RateLimit-Remaining': '1', 'RateLimit-Reset': '1' })), null);
  assert.equal(serviceBudgetOf(new Headers()), null);
});

test('a client given requestsPerMinute sends nothing while the service says no room is left, and says why it waits', async () => {
  let remaining = 0;
  const service = await telling(() => ({ body: { readiness_state: 'ready' }, remaining: remaining++, reset: 2 }));
  const notices: WaitNotice[] = [];
  // The guess is generous; the service's room (other tools spent it) is what counts.
  const client = createSearchClient({ baseUrl: service.url, apiKey: 'k', requestsPerMinute: 1000, onWait: (notice) => notices.push(notice) });
  try {
    await client.readiness();
    assert.deepEqual(client.serviceBudget, { limit: 30, remaining: 0, resetSeconds: 2 });
    await client.readiness();
    assert.ok(service.arrivals[1] - service.arrivals[0] >= 1_900, `the second request went ${service.arrivals[1] - service.arrivals[0]} ms after the first`);
    assert.equal(notices.length, 1);
    assert.equal(notices[0].reason, 'budget');
    assert.ok(notices[0].seconds > 0 && notices[0].seconds <= 2, `waited ${notices[0].seconds} s`);
  } finally {
    await service.close();
  }
});

test('waitForJob holds its next poll until a slot frees while the room told is the last quarter of the window', async () => {
  let polls = 0;
  // 5 of 30 left after the first poll (under the quarter), then plenty.
  const service = await telling(() => {
    polls++;
    return { body: { job_id: 'j1', status: polls === 1 ? 'processing' : 'completed' }, remaining: polls === 1 ? 5 : 25, reset: 2 };
  });
  const notices: WaitNotice[] = [];
  const client = createSearchClient({ baseUrl: service.url, apiKey: 'k' });
  try {
    const job = await client.waitForJob('j1', { intervalMs: 10, onWait: (notice) => notices.push(notice) });
    assert.equal(job.status, 'completed');
    assert.equal(service.arrivals.length, 2);
    assert.ok(service.arrivals[1] - service.arrivals[0] >= 1_900, `the second poll went ${service.arrivals[1] - service.arrivals[0]} ms after the first, not after 10 ms`);
    assert.equal(notices.length, 1, 'the hold is told');
    assert.equal(notices[0].reason, 'budget');
  } finally {
    await service.close();
  }
});
