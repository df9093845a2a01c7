// Where the CLI sends its requests and with which key: --url and --key first, then HDS_URL and HDS_API_KEY, then
// the service's own settings on this machine (HOST and PORT; the first key of API_KEY_CLIENTS, or of
// OPERATOR_API_KEYS for the operator commands), so that a person beside a local service needs neither.

import { loadConfig } from '../config.ts';

export interface ConnectionOptions {
  url?: string;
  key?: string;
}

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export function serviceUrl(options: ConnectionOptions, env: NodeJS.ProcessEnv = process.env): string {
  if (options.url) return options.url;
  if (env.HDS_URL) return env.HDS_URL;
  const config = loadConfig(env);
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return `http://${host}:${config.port}`;
}

/** A Client key: --key, HDS_API_KEY, or the first key API_KEY_CLIENTS names. */
export function clientKey(options: ConnectionOptions, env: NodeJS.ProcessEnv = process.env): string {
  const key = options.key ?? env.HDS_API_KEY ?? [...loadConfig(env).apiKeyClients.keys()][0];
  if (!key) throw new UsageError('no API key: pass --key or set HDS_API_KEY');
  return key;
}

/** An operator key: --key, HDS_OPERATOR_KEY, or the first of OPERATOR_API_KEYS. */
export function operatorKey(options: ConnectionOptions, env: NodeJS.ProcessEnv = process.env): string {
  const key = options.key ?? env.HDS_OPERATOR_KEY ?? [...loadConfig(env).operatorApiKeys][0];
  if (!key) throw new UsageError('no operator key: pass --key or set OPERATOR_API_KEYS');
  return key;
}
