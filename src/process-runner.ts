// How each entry point of ours runs as a process: settings read once, from the environment and a `.env` file (a
// bad one stops start-up with exit code 2, naming it), a graceful stop on SIGTERM/SIGINT or when the supervisor
// goes away, and exit code 1 with the cause when start-up fails.

import { loadConfig, ConfigError } from './config.ts';
import type { Config } from './config.ts';
import { loadEnvFile } from './env-file.ts';

/** Settings of this process: the environment, with what a `.env` file adds to it (src/env-file.ts). */
export function loadConfigOrExit(): Config {
  try {
    loadEnvFile();
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
}

/**
 * Runs `stop` once on SIGTERM, SIGINT or (for a supervised child) the loss of the supervisor, then exits.
 * Every later signal is ignored while the stop drains: a stop signal often comes twice (sent to the whole
 * process group, as a service manager or a shell does, a child gets it and then the supervisor's relay of it),
 * and left to its default action the second one would end the process at once, resetting the requests it was
 * still answering. The supervisor's drain timeout (main.ts) bounds a stop that never ends.
 */
export function stopOnSignals(stop: () => Promise<void>, options: { whenSupervisorGone: boolean }): void {
  let stopping = false;
  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    stop().then(
      () => process.exit(0),
      (error) => {
        process.stderr.write(`shutdown failed: ${error instanceof Error ? error.stack : error}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  if (options.whenSupervisorGone) process.once('disconnect', shutdown);
}

/** Starts an entry point; a failure to start is reported with its cause and exit code 1. */
export function runProcess(name: string, start: () => Promise<void>): void {
  start().catch((error) => {
    process.stderr.write(`${name} start-up failed: ${error instanceof Error ? error.stack : error}\n`);
    process.exit(1);
  });
}
