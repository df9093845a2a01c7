// Child-process entry for isolated parsing (parse-isolated.ts forks it): parses each document it is sent, one at a
// time, and sends back a document or an error. It touches nothing but its IPC channel; the parent owns timeouts,
// memory limits, OCR-child cleanup, and when a child is reused or ended. It ends itself when the parent goes away.

import { parseDocument } from './parse.ts';
import { IngestError } from './parsed-document.ts';
import type { ParseOptions } from './parse-options.ts';
import type { ParseCommand, ParseReply, ParseRequest } from './parse-isolated.ts';

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

process.on('message', (command: ParseCommand) => {
  if (command.type === 'parse') {
    void run(command.request);
    return;
  }
  abort.abort();
  for (const pid of activeChildren) kill(pid);
  // Children are reaped here (their close reaches trackChild); the parent kills this process once none is left.
  if (activeChildren.size === 0) post({ type: 'aborted' });
});

function post(reply: ParseReply): void {
  if (process.connected) process.send?.(reply);
}

/** The peak resident memory of this process so far, sent with each parse's outcome. */
function maxRssBytes(): number {
  return process.resourceUsage().maxRSS * 1024;
}

function errorReply(error: unknown): ParseReply {
  if (error instanceof IngestError) {
    return { type: 'error', code: error.code, message: error.message, transient: error.transient, maxRssBytes: maxRssBytes() };
  }
  return { type: 'crash', detail: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
}

async function run(request: ParseRequest): Promise<void> {
  const options: ParseOptions = {
    ...request.options,
    ocr: { ...request.options.ocr, onChildProcess: trackChild, signal: abort.signal },
  };
  try {
    const doc = await parseDocument(Buffer.from(request.bytes), request.filename, options);
    post({ type: 'done', doc, maxRssBytes: maxRssBytes() });
  } catch (error) {
    post(errorReply(error));
  }
}

// No parent, no work: an orphaned parse child never lingers.
process.on('disconnect', () => process.exit(0));
