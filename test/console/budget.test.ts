// The console's rate gate (console/src/budget.ts) against a real local HTTP server standing in for a service
// that refuses with Retry-After, through the real typed client (retries: 0, as the console makes it): a refused
// read is waited out and repeated, the wait is reported second by second down to 0, requests started during the
// wait hold at the gate instead of spending the budget, and a write refused with 503 is not repeated.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSearchClient, SearchServiceError } from '../../clients/typescript/src/index.ts';
import { MAX_WAITS, POLL_FIRST_MS, POLL_MAX_MS, RateGate, pollPauseMs } from '../../console/src/budget.ts';
import type { WaitReport } from '../../console/src/budget.ts';

/** A server answering each request with the next of `answers` (then 200), recording when each arrived. */
async function scripted(answers: { status: number; retryAfter?: string; code?: string }[]) {
  const arrivals: { url: string; at: number }[] = [];
  const server = createServer((request, response) => {
    arrivals.push({ url: request.url ?? '', at: Date.now() });
    const answer = answers.shift() ?? { status: 200 };
    const headers: Record<string, string> = { 'content-type': 'application/json', ...(answer.retryAfter !== undefined && { 'retry-after': answer.retryAfter }) };
    response.writeHead(answer.status, headers);
    response.end(JSON.stringify(answer.status === 200 ? { readiness_state: 'ready' } : { error_code: answer.code ?? 'rate_limited', detail: 'Too many requests', request_id: 'r1' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = createSearchClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: 'k', retries: 0 });
  return { client, arrivals, close: () => new Promise((resolve) => server.close(resolve)) };
}

test('a read refused with 429 is waited out for as long as Retry-After says, the wait reported down to 0, then repeated', async () => {
  const service = await scripted([{ status: 429, retryAfter: '2' }]);
  const reports: WaitReport[] = [];
  const gate = new RateGate((report) => reports.push(report));
  try {
    const answer = await gate.call('read', () => service.client.readiness());
    assert.equal(answer.readiness_state, 'ready');
    assert.equal(service.arrivals.length, 2);
    assert.ok(service.arrivals[1].at - service.arrivals[0].at >= 1_900, 'the repeat came no sooner than the service asked');
    assert.equal(reports[0].seconds, 2);
    assert.equal(reports[0].code, 'rate_limited');
    assert.equal(reports.at(-1)!.seconds, 0, 'the notice is told the wait is over');
  } finally {
    await service.close();
  }
});

test('requests started while the gate is closed wait at it: one refusal, not one per request', async () => {
  // A limiter of its own: every request within a second of the first is refused with Retry-After 1.
  let closedUntil = 0;
  const arrivals: number[] = [];
  const server = createServer((_request, response) => {
    const now = Date.now();
    arrivals.push(now);
    if (closedUntil === 0) closedUntil = now + 1_000;
    const refused = now < closedUntil;
    response.writeHead(refused ? 429 : 200, { 'content-type': 'application/json', ...(refused && { 'retry-after': '1' }) });
    response.end(JSON.stringify(refused ? { error_code: 'rate_limited', detail: 'Too many requests', request_id: 'r' } : { readiness_state: 'ready' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = createSearchClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: 'k', retries: 0 });
  const gate = new RateGate(() => undefined);
  try {
    const first = gate.call('read', () => client.readiness());
    // Let the first refusal come back and close the gate before the others start.
    const closed = new Promise<void>((resolve) => {
      const check = () => (gate.closed() ? resolve() : setTimeout(check, 5));
      check();
    });
    await closed;
    const others = [gate.call('read', () => client.readiness()), gate.call('read', () => client.readiness())];
    await Promise.all([first, ...others]);
    assert.equal(arrivals.length, 4, 'one refused request and three answered ones');
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

test('a write refused with 503 is not repeated (it may have done part of its work); a read is', async () => {
  const service = await scripted([{ status: 503, retryAfter: '0', code: 'publication_busy' }, { status: 503, retryAfter: '0', code: 'publication_busy' }]);
  const gate = new RateGate(() => undefined);
  try {
    await assert.rejects(gate.call('write', () => service.client.readiness()), (error: unknown) => error instanceof SearchServiceError && error.status === 503);
    assert.equal(service.arrivals.length, 1);
    await gate.call('read', () => service.client.readiness());
    assert.equal(service.arrivals.length, 3);
  } finally {
    await service.close();
  }
});

test(`a service that keeps refusing is given up on after ${MAX_WAITS} waits, with its last refusal`, async () => {
  const service = await scripted(Array.from({ length: MAX_WAITS + 5 }, () => ({ status: 429, retryAfter: '0' })));
  const gate = new RateGate(() => undefined);
  try {
    await assert.rejects(gate.call('read', () => service.client.readiness()), (error: unknown) => error instanceof SearchServiceError && error.status === 429);
    assert.equal(service.arrivals.length, MAX_WAITS + 1);
  } finally {
    await service.close();
  }
});

test('job polls pause longer and longer, from POLL_FIRST_MS up to POLL_MAX_MS', () => {
  const pauses = Array.from({ length: 12 }, (_, index) => pollPauseMs(index + 1));
  assert.equal(pauses[0], POLL_FIRST_MS);
  assert.ok(pauses.every((pause, index) => index === 0 || pause >= pauses[index - 1]));
  assert.equal(pauses.at(-1), POLL_MAX_MS);
  // A job still running after a minute has been read at most 12 times (polling every 500 ms: 120 times).
  let elapsed = 0;
  let polls = 0;
  while (elapsed < 60_000) elapsed += pollPauseMs(++polls);
  assert.ok(polls <= 12, `${polls} polls a minute per job`);
});

test('the gate hears the budget an answer tells: no room left closes it until a slot frees, shown once a request waits; a low room holds polls', async () => {
  // The service says this answer took the window's last slot, and the oldest request leaves it in 2 s.
  let told = { remaining: '0', reset: '2' };
  const arrivals: number[] = [];
  const server = createServer((_request, response) => {
    arrivals.push(Date.now());
    response.writeHead(200, { 'content-type': 'application/json', 'ratelimit-limit': '30', 'ratelimit-remaining': told.remaining, 'ratelimit-reset': told.reset });
    response.end(JSON.stringify({ readiness_state: 'ready' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const reports: WaitReport[] = [];
  const gate = new RateGate((report) => reports.push(report));
  // Wired as console/src/session.ts wires it.
  const client = createSearchClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: 'k', retries: 0, onBudget: (budget) => gate.learn(budget) });
  try {
    await gate.call('read', () => client.readiness());
    assert.deepEqual(gate.serviceBudget, { limit: 30, remaining: 0, resetSeconds: 2 });
    assert.equal(gate.closed(), true, 'no room left: the gate is closed before anything meets a refusal');
    assert.equal(reports.length, 0, 'nothing is held yet, so no wait is shown');
    told = { remaining: '5', reset: '3' };
    await gate.call('read', () => client.readiness());
    const shown = reports[0];
    assert.equal(shown?.code, 'rate_limited', 'the held request shows the wait');
    assert.ok(shown.seconds >= 1 && shown.seconds <= 2, `shown as ${shown.seconds} s`);
    assert.ok(arrivals[1] - arrivals[0] >= 1_900, `the second request went ${arrivals[1] - arrivals[0]} ms after the first`);
    assert.equal(reports.at(-1)?.seconds, 0, 'the wait is reported over');
    // 5 of 30 left is under the quarter polls leave to the person: a poll holds until a slot frees; 20 left is not.
    const hold = gate.pollHoldMs();
    // Counted from the answer: however slow this machine, a hold and never more than the 3 s told.
    assert.ok(hold > 0 && hold <= 3_000, `poll hold ${hold} ms`);
    told = { remaining: '20', reset: '3' };
    await gate.call('read', () => client.readiness());
    assert.equal(gate.pollHoldMs(), 0);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
