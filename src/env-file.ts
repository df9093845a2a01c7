// Settings from a file: a `.env` in the working directory is read into the environment before the settings are
// parsed, so a deployment can keep them in one file instead of a long command line. A variable already in the
// environment wins over the file (Node's loadEnvFile leaves it alone), so a file never hides what an operator or a
// service manager set. Children of the supervisor inherit the result with the rest of the environment.

import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { ConfigError } from './config.ts';

/** The file read when ENV_FILE is unset: `.env` in the working directory (`npm start` runs in the checkout). */
export const DEFAULT_ENV_FILE = '.env';
/** ENV_FILE=none reads no file: the tests start services with only the environment they give them. */
export const NO_ENV_FILE = 'none';

type Env = Record<string, string | undefined>;

/**
 * Reads the settings file into `env` (process.env by default). The default `.env` may be absent; a file named by
 * ENV_FILE must exist, since a deployment that names one and runs without it would start on defaults.
 * Returns the absolute path read, or null when none was.
 */
export function loadEnvFile(env: Env = process.env, cwd: string = process.cwd()): string | null {
  const named = env.ENV_FILE?.trim() || undefined;
  if (named === NO_ENV_FILE) return null;
  const path = resolve(cwd, named ?? DEFAULT_ENV_FILE);
  if (named === undefined && !existsSync(path)) return null;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const cause = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    throw new ConfigError('ENV_FILE', `cannot read ${path}: ${cause}`);
  }
  // Node's own .env grammar (comments, quotes, `export`); parsed here rather than by process.loadEnvFile so that
  // the file can be read into an environment other than process.env.
  for (const [name, value] of Object.entries(parseEnv(text))) if (env[name] === undefined) env[name] = value;
  return path;
}
