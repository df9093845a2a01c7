import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AbandonedRequestError, RequestThread } from '../../src/runtime/request-thread.ts';
import type { AnsweringReply, AnsweringRequest } from '../helpers/answering-thread.ts';

const ECHO_THREAD = new URL('../helpers/echo-thread.ts', import.meta.url);

type Echo = { id: number; threadId: number };

test('a request made while the closed thread is ending goes to a new thread started only once the old one has exited', async () => {
  const events: string[] = [];
  const thread = new RequestThread<{ id: number }, Echo>(ECHO_THREAD, 'echo thread', { started: () => events.push('started') });
  try {
    const first = await thread.request({});
    const closed = thread.close().then(() => events.push('exited'));
    // Both made before the old thread has exited: they wait for it, in order, and share the next thread.
    const [second, third] = await Promise.all([thread.request({}), thread.request({})]);
    await closed;
    assert.deepEqual(events, ['started', 'exited', 'started']);
    assert.notEqual(second.threadId, first.threadId);
    assert.equal(third.threadId, second.threadId);
    assert.ok(second.id < third.id);
    assert.equal(thread.waiting, 0);
  } finally {
    await thread.close();
  }
});

test('a thread given up on is not waited for: the next request starts a new thread at once', async () => {
  const events: string[] = [];
  const thread = new RequestThread<{ id: number }, Echo>(ECHO_THREAD, 'echo thread', { started: () => events.push('started') });
  try {
    const first = await thread.request({});
    thread.abandon('a test gives it up');
    const next = thread.request({});
    assert.deepEqual(events, ['started', 'started']);
    assert.notEqual((await next).threadId, first.threadId);
  } finally {
    await thread.close();
  }
});

test('requests failed by an abandonment say so, and made again they are answered by the new thread', async () => {
  const thread = new RequestThread<{ id: number; hold?: Int32Array }, Echo>(ECHO_THREAD, 'echo thread');
  const hold = new Int32Array(new SharedArrayBuffer(4));
  try {
    const first = await thread.request({});
    // The thread blocks in the first request; the second waits behind it, never started.
    const stuck = thread.request({ hold });
    const queued = thread.request({});
    thread.abandon('a test gives it up');
    await assert.rejects(stuck, (error) => error instanceof AbandonedRequestError && /echo thread: a test gives it up/.test(error.message));
    await assert.rejects(queued, (error) => error instanceof AbandonedRequestError);
    const again = await thread.request({});
    assert.notEqual(again.threadId, first.threadId);
    assert.equal(thread.waiting, 0);
  } finally {
    Atomics.store(hold, 0, 1);
    Atomics.notify(hold, 0);
    await thread.close();
  }
});

test('closed again while the closed thread is ending, the requests waiting fail and no new thread starts', async () => {
  const events: string[] = [];
  const thread = new RequestThread<{ id: number }, Echo>(ECHO_THREAD, 'echo thread', { started: () => events.push('started') });
  await thread.request({});
  const closing = thread.close();
  const waiting = assert.rejects(thread.request({}), /echo thread: closed/);
  await thread.close();
  await closing;
  await waiting;
  assert.deepEqual(events, ['started']);
  assert.equal(thread.running, false);
  assert.equal(thread.waiting, 0);
});

test('a queued request that cannot be sent fails alone; the others still reach the next thread', async () => {
  const thread = new RequestThread<{ id: number; payload?: unknown }, Echo>(ECHO_THREAD, 'echo thread');
  try {
    await thread.request({});
    const closing = thread.close();
    const unsendable = assert.rejects(thread.request({ payload: () => 'a function cannot be cloned' }), (error: Error) => error.name === 'DataCloneError');
    const sendable = thread.request({});
    await closing;
    await unsendable;
    assert.equal(typeof (await sendable).threadId, 'number');
    assert.equal(thread.waiting, 0);
  } finally {
    await thread.close();
  }
});

const ANSWERING_THREAD = new URL('../helpers/answering-thread.ts', import.meta.url);

test('a thread answering through answerRequests: replies now and later, a thrown or rejected answer fails its request alone, a buffer moves', async () => {
  const thread = new RequestThread<AnsweringRequest, AnsweringReply>(ANSWERING_THREAD, 'answering thread');
  try {
    // Made together, answered each under its own id whether the answer came at once or later.
    const [later, now] = await Promise.all([thread.request({ kind: 'later' }), thread.request({ kind: 'now' })]);
    assert.deepEqual([later, now].map((reply) => 'kind' in reply && reply.kind), ['later', 'now']);
    await assert.rejects(thread.request({ kind: 'throw' }), /answering thread: thrown while answering/);
    await assert.rejects(thread.request({ kind: 'reject' }), /answering thread: rejected while answering/);
    const buffer = await thread.request({ kind: 'buffer' });
    assert.deepEqual('bytes' in buffer ? [...buffer.bytes!] : null, [1, 2, 3]);
    // The same thread goes on: it was told of both failures, and its buffer went with the reply (detached there).
    const state = await thread.request({ kind: 'state' });
    assert.deepEqual(state, { id: state.id, kind: 'state', failures: 2, movedLength: 0 });
  } finally {
    await thread.close();
  }
});
