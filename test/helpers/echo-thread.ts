// A thread for RequestThread's tests: answers each request with the id of the thread that took it. A request
// carrying `hold` (an Int32Array over shared memory) first blocks the thread until another thread sets it to
// non-zero: a call that no timer on this thread can interrupt, as a SQLite call waiting on a lock is.

import { parentPort, threadId } from 'node:worker_threads';

parentPort!.on('message', (request: { id: number; hold?: Int32Array }) => {
  if (request.hold) Atomics.wait(request.hold, 0, 0);
  parentPort!.postMessage({ id: request.id, threadId });
});
