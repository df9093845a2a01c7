// The log lines of a process that has no Fastify logger (a worker, the supervisor): one JSON object a line on
// stdout, in the shape the api processes' pino lines have (numeric `level`, `time`, `pid`, `hostname`, `process`,
// `msg`), so one log pipeline reads them all. A line below LOG_LEVEL is not written, but an announcement is: the
// supervisor's "listening on URL" and "ready on URL" are what a person and the tools that start the service wait
// for, at any LOG_LEVEL (silent included), as they always were.

import { hostname } from 'node:os';

/** pino's numbers for its level names: a line's `level` field, and the order LOG_LEVEL filters by. */
export const LOG_LEVEL_NUMBERS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 } as const;
export type LogLevelName = keyof typeof LOG_LEVEL_NUMBERS;

export interface LogLines {
  /** Writes one line at `level` when LOG_LEVEL lets it through. */
  write(level: LogLevelName, msg: string, fields: Record<string, unknown>): void;
  /** Whether a line at `level` would be written (spares building one that would not). */
  enabled(level: LogLevelName): boolean;
  /** Writes one info line whatever LOG_LEVEL says (see the top of this file). */
  announce(msg: string, fields: Record<string, unknown>): void;
}

/** `threshold` is LOG_LEVEL (silent: nothing); `processLabel` is the process's label on its metrics too. */
export function createLogLines(threshold: string, processLabel: string, out: (line: string) => void = (line) => process.stdout.write(line)): LogLines {
  const least = threshold in LOG_LEVEL_NUMBERS ? LOG_LEVEL_NUMBERS[threshold as LogLevelName] : Number.POSITIVE_INFINITY;
  const base = { pid: process.pid, hostname: hostname(), process: processLabel };
  const enabled = (level: LogLevelName) => LOG_LEVEL_NUMBERS[level] >= least;
  // `msg` last: a person reading the raw line finds the words at its end.
  const line = (level: LogLevelName, msg: string, fields: Record<string, unknown>) => out(`${JSON.stringify({ level: LOG_LEVEL_NUMBERS[level], time: Date.now(), ...base, ...fields, msg })}\n`);
  return {
    enabled,
    write(level, msg, fields) {
      if (enabled(level)) line(level, msg, fields);
    },
    announce(msg, fields) {
      line('info', msg, fields);
    },
  };
}
