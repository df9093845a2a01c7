// The environment of a process a test starts: only what the test gives it, plus PATH and, when the suite runs
// with one (npm test sets it), Node's compile cache. Sharing the cache across the suite's hundreds of process
// starts spares each one compiling the same modules again; the cache is keyed by module content, so what a
// process runs is unchanged.

import { NO_ENV_FILE } from '../../src/env-file.ts';

export function childEnv(env: Record<string, string> = {}, options: { sharedCompileCache?: boolean } = {}): Record<string, string> {
  const shared: Record<string, string> = {};
  if (options.sharedCompileCache !== false && process.env.NODE_COMPILE_CACHE) shared.NODE_COMPILE_CACHE = process.env.NODE_COMPILE_CACHE;
  return { PATH: process.env.PATH ?? '', ENV_FILE: NO_ENV_FILE, ...shared, ...env };
}
