// The thread side of request-thread.ts: a thread entry hands each request it is sent to `answer` and posts the
// reply it gives (with the buffers to move rather than copy); when answering throws or rejects, it posts
// `{ id, error }` with the message instead, which RequestThread turns into that request's rejection. Requests are
// answered in the order they come, each one's reply posted before the next is read when the answer is synchronous.
//
// Plain JavaScript, type-checked through its JSDoc (tsconfig checkJs), so that a thread written in JavaScript to
// spare its isolate Node's TypeScript stripper (serving/graphs/graph-thread.js) answers through it too.

import { parentPort } from 'node:worker_threads';

/**
 * A reply, and the buffers that go with it to the caller's thread instead of being copied.
 * @template Reply
 * @typedef {{ reply: Reply, transfer?: ArrayBuffer[] }} Answer
 */

/**
 * The message of what an answer threw.
 * @param {unknown} error
 * @returns {string}
 */
function messageOf(error) {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Answers every request this thread is sent. `failed`: told of a request whose answer failed, before its error is
 * posted (to drop what the request left half done).
 * @template {{ id: number }} Request
 * @template {{ id: number }} Reply
 * @param {(request: Request) => Answer<Reply> | Promise<Answer<Reply>>} answer
 * @param {(request: Request) => void} [failed]
 */
export function answerRequests(answer, failed) {
  const port = parentPort;
  if (!port) throw new Error('answerRequests answers the requests of a worker thread, and this is the main thread');
  /** @param {Request} request @param {unknown} error */
  const fail = (request, error) => {
    failed?.(request);
    port.postMessage({ id: request.id, error: messageOf(error) });
  };
  port.on('message', (/** @type {Request} */ request) => {
    /** @type {Answer<Reply> | Promise<Answer<Reply>>} */
    let answered;
    try {
      answered = answer(request);
    } catch (error) {
      fail(request, error);
      return;
    }
    /** @param {Answer<Reply>} settled */
    const post = ({ reply, transfer }) => {
      try {
        port.postMessage(reply, transfer ?? []);
      } catch (error) {
        fail(request, error); // a reply that cannot be sent (cloned or transferred) fails its request alone
      }
    };
    // A synchronous answer is posted now, as the handler that made it would have; an asynchronous one when it settles.
    if (answered instanceof Promise) answered.then(post, (error) => fail(request, error));
    else post(answered);
  });
}
