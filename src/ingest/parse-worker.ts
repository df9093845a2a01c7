// Worker-thread entry for isolated parsing: parses each document it is sent, one at a time, and posts back a document
// or an error. It never touches anything but its own message port; the parent owns timeouts, memory limits,
// child-process cleanup, and when a thread is reused or ended.

import { parentPort, workerData } from 'node:worker_threads';
import { parseDocument } from './parse.ts';
import { IngestError } from './parsed-document.ts';
import type { ParseOptions } from './parse-options.ts';
import type { WorkerCommand, WorkerReply, WorkerRequest } from './parse-isolated.ts';

/** OCR children currently running, so an abort can kill them here, where their exit is reaped. */
const activeChildren = new Set<number>();
/** Aborted by the parent's 'abort': the parse may go on until it notices, but it starts no further child. */
const abort = new AbortController();

function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already exited.
  }
}

function trackChild(pid: number, running: boolean): void {
  if (running) activeChildren.add(pid);
  else activeChildren.delete(pid);
  post({ type: 'child', pid, running });
  if (!running && abort.signal.aborted && activeChildren.size === 0) post({ type: 'aborted' });
}

parentPort?.on('message', (command: WorkerCommand) => {
  if (command.type === 'parse') {
    void run(command.request);
    return;
  }
  abort.abort();
  for (const pid of activeChildren) kill(pid);
  // Children are reaped here (their close reaches trackChild); the parent terminates this thread once none is left.
  if (activeChildren.size === 0) post({ type: 'aborted' });
});

function post(reply: WorkerReply): void {
  parentPort?.postMessage(reply);
}

function errorReply(error: unknown): WorkerReply {
  if (error instanceof IngestError) {
    return { type: 'error', code: error.code, message: error.message, transient: error.transient };
  }
  return { type: 'crash', detail: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
}

async function run(request: WorkerRequest): Promise<void> {
  const options: ParseOptions = {
    ...request.options,
    ocr: { ...request.options.ocr, onChildProcess: trackChild, signal: abort.signal },
  };
  try {
    const doc = await parseDocument(Buffer.from(request.bytes), request.filename, options);
    post({ type: 'done', doc });
  } catch (error) {
    post(errorReply(error));
  }
}

// The first document comes with the thread; later ones as 'parse' messages when the thread is reused.
if (workerData) await run(workerData as WorkerRequest);
