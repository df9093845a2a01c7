// Where the CLI sends its requests and with which key: --url and --key first, then HDS_URL and HDS_API_KEY, then
// the service's own settings on this machine (HOST and PORT; the first key of API_KEY_CLIENTS, or of
// OPERATOR_API_KEYS for the operator commands), so that a person beside a local service needs neither. A service
// that cannot be reached is named with the cause, never a bare "fetch failed".

import { loadConfig } from '../config.ts';

export interface ConnectionOptions {
  url?: string;
  key?: string;
  rateLimit?: number;
}

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The service could not be reached at all (no answer, not a refusal). */
export class ConnectionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConnectionError';
  }
}

export function serviceUrl(options: ConnectionOptions, env: NodeJS.ProcessEnv = process.env): string {
  const url = options.url ?? env.HDS_URL ?? localUrl(env);
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) throw new UsageError(`${JSON.stringify(url)} is not an http(s) URL (--url or HDS_URL)`);
  return url.replace(/\/+$/, '');
}

function localUrl(env: NodeJS.ProcessEnv): string {
  const config = loadConfig(env);
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return `http://${host}:${config.port}`;
}

/** The requests a minute the CLI assumes its Client may send: --rate-limit, else this machine's RATE_LIMIT_PER_MINUTE. */
export function assumedRateLimit(options: ConnectionOptions, env: NodeJS.ProcessEnv = process.env): number {
  return options.rateLimit ?? loadConfig(env).rateLimitPerMinute;
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

/** What the socket errors a person meets mean, in words. */
const CAUSES: Record<string, string> = {
  ECONNREFUSED: 'connection refused (is the service running? `npm start` starts it)',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the host name could not be resolved now',
  ETIMEDOUT: 'the connection timed out',
  ECONNRESET: 'the connection was reset',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
  UND_ERR_SOCKET: 'the connection closed before an answer',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'the certificate is self-signed',
  CERT_HAS_EXPIRED: 'the certificate has expired',
};

/** fetch's "fetch failed" as an error naming the service and why it could not be reached. */
export function connectionFailure(url: string, error: unknown): ConnectionError {
  let cause = error instanceof Error && error.cause !== undefined ? error.cause : error;
  if (cause instanceof AggregateError && cause.errors.length > 0) cause = cause.errors[0];
  const code = typeof cause === 'object' && cause !== null && 'code' in cause ? String((cause as { code: unknown }).code) : '';
  const said = CAUSES[code] ?? (cause instanceof Error ? cause.message : String(cause));
  return new ConnectionError(`cannot reach the service at ${url}: ${said}${code && CAUSES[code] ? ` [${code}]` : ''}`);
}
