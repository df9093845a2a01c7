// A thread for RequestThread's tests: answers each request with the id of the thread that took it.

import { parentPort, threadId } from 'node:worker_threads';

parentPort!.on('message', (request: { id: number }) => parentPort!.postMessage({ id: request.id, threadId }));
