// Entry point of `npm start`: read the configuration, start API and workers in one process, and shut
// down gracefully on SIGTERM/SIGINT. A bad setting stops start-up with a message naming it.

import { loadConfig, ConfigError } from './config.ts';
import { startService } from './service.ts';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const service = await startService(config);
  process.stdout.write(`listening on ${service.url}\n`);
  const shutdown = (signal: string) => {
    service.app.log.info(`${signal} received: shutting down`);
    service.close().then(
      () => process.exit(0),
      (error) => {
        process.stderr.write(`shutdown failed: ${error}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error) => {
  process.stderr.write(`start-up failed: ${error instanceof Error ? error.stack : error}\n`);
  process.exit(1);
});
