// A thread for answerRequests's tests (runtime/answer-requests.js): each kind of request is answered as a thread
// entry may answer one: at once, later, by throwing, by rejecting, or with a buffer moved to the caller. It
// counts the failures answerRequests told it of and keeps the buffer it last moved, so a test can ask after them.

import { answerRequests } from '../../src/runtime/answer-requests.js';

export type AnsweringRequest = { id: number; kind: 'now' | 'later' | 'throw' | 'reject' | 'buffer' | 'state' };
export type AnsweringReply = { id: number; kind: string; failures?: number; movedLength?: number; bytes?: Uint8Array } | { id: number; error: string };

let failures = 0;
let moved: Uint8Array<ArrayBuffer> | null = null;

answerRequests<AnsweringRequest, AnsweringReply>(
  (request) => {
    switch (request.kind) {
      case 'now':
        return { reply: { id: request.id, kind: 'now' } };
      case 'later':
        return new Promise((resolve) => setImmediate(() => resolve({ reply: { id: request.id, kind: 'later' } })));
      case 'throw':
        throw new Error('thrown while answering');
      case 'reject':
        return Promise.reject(new Error('rejected while answering'));
      case 'buffer': {
        const bytes = Uint8Array.from([1, 2, 3]);
        moved = bytes;
        return { reply: { id: request.id, kind: 'buffer', bytes }, transfer: [bytes.buffer] };
      }
      case 'state':
        return { reply: { id: request.id, kind: 'state', failures, movedLength: moved?.byteLength ?? -1 } };
    }
  },
  () => {
    failures++;
  },
);
