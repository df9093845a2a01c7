// Runs the Debian catdoc package's readers (catdoc for Word, xls2csv for Excel 97-2003) on a document: the bytes go
// to a private temporary file, the reader runs as a child under a timeout and a memory ceiling (runChild), and its
// UTF-8 output comes back. A missing reader is a legible refusal, not a crash.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { resolveBinary, runChild } from '../../ocr.ts';
import type { ParserContext } from '../../parse-options.ts';
import { tempUnavailable, unreadable, unsupportedFormat } from '../../errors.ts';

/** Time one reader may take over one document. */
export const LEGACY_READER_TIMEOUT_MS = 30_000;
/** Output read past the text budget before a reader is stopped (separators and field codes are dropped later). */
export const LEGACY_READER_SLACK_CHARS = 64 * 1024;
/** Address space one reader may use. */
export const LEGACY_READER_MEMORY_LIMIT_BYTES = 512 * 1024 * 1024;

export async function runLegacyReader(reader: 'catdoc' | 'xls2csv', args: string[], bytes: Buffer, what: string, context: ParserContext): Promise<string> {
  const binary = await resolveBinary(reader);
  if (!binary) throw unsupportedFormat(`${what}: reading it needs ${reader} (Debian package catdoc), which is not installed`);
  let dir: string;
  try {
    dir = await mkdtemp(join(context.options.ocr.tempDir, 'hds-legacy-'));
  } catch (error) {
    throw tempUnavailable(error);
  }
  try {
    const file = join(dir, 'document');
    await writeFile(file, bytes, { mode: 0o600 });
    // Output past the document's text budget is never indexed: the reader is stopped there (capText cuts the rest).
    const enough = (output: string) => output.length > context.budget.remaining + LEGACY_READER_SLACK_CHARS;
    const outcome = await runChild(binary, [...args, file], { timeoutMs: LEGACY_READER_TIMEOUT_MS, memoryLimitBytes: LEGACY_READER_MEMORY_LIMIT_BYTES, onChildProcess: context.options.ocr.onChildProcess, signal: context.options.ocr.signal, stopWhen: enough });
    if (outcome.timedOut) throw unreadable(new Error(`${reader} took longer than ${LEGACY_READER_TIMEOUT_MS} ms`));
    if (outcome.stopped) return outcome.stdout;
    if (outcome.code !== 0) throw unreadable(new Error(`${reader} exited with ${outcome.signal ?? outcome.code}: ${outcome.stderr.slice(0, 500)}`));
    return outcome.stdout;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
