// `hds admin clients ...` and `hds admin keys ...`: the operator's Clients and keys at runtime (DESIGN.md
// "Clients and keys at runtime") from a shell, over the /admin routes with an operator key. A person gets a
// table or fields; --json prints the service's answer as it came.

import { Argument, Command, Option } from 'commander';
import { filtersFromPairs } from '../../clients/typescript/src/index.ts';
import type { OperatorCall } from './operator.ts';
import { UsageError } from './connection.ts';
import type { Paint } from './render.ts';

/** The scopes a key may be issued with (the service refuses any other, 422). */
export const KEY_SCOPE_CHOICES = ['search', 'read', 'write'];
/** What --per-minute and --searches-per-minute take to give a Client the deployment's limit again. */
const DEPLOYMENT_LIMIT = 'default';

export type OperatorRun = (call: OperatorCall, render: (answer: Record<string, unknown>) => string, asJson: boolean) => Promise<void>;

function limitOf(label: string) {
  // "default" stays a string here: commander turns an option value of null into ''.
  return (text: string): number | typeof DEPLOYMENT_LIMIT => {
    if (text === DEPLOYMENT_LIMIT) return DEPLOYMENT_LIMIT;
    const value = Number(text);
    if (!Number.isInteger(value) || value < 1) throw new UsageError(`${label} takes a whole number of at least 1 or "${DEPLOYMENT_LIMIT}", not ${JSON.stringify(text)}`);
    return value;
  };
}

function collect(pair: string, previous: [string, string][] = []): [string, string][] {
  const at = pair.indexOf('=');
  if (at <= 0) throw new UsageError(`--filter takes key=value, not ${JSON.stringify(pair)}`);
  return [...previous, [pair.slice(0, at), pair.slice(at + 1)]];
}

/** Rows as aligned columns under a dimmed header. */
function table(header: string[], rows: string[][], paint: Paint): string {
  const widths = header.map((title, at) => Math.max(title.length, ...rows.map((row) => row[at].length)));
  const line = (cells: string[]) => cells.map((cell, at) => cell.padEnd(widths[at])).join('  ').trimEnd();
  return `${paint('dim', line(header))}\n${rows.map(line).join('\n')}${rows.length > 0 ? '\n' : ''}`;
}

const limitText = (value: unknown) => (value === null || value === undefined ? DEPLOYMENT_LIMIT : String(value));

export function renderClients(answer: Record<string, unknown>, paint: Paint): string {
  const clients = answer.clients as Record<string, unknown>[];
  if (clients.length === 0) return 'no Clients\n';
  return table(
    ['CLIENT', 'STATE', 'DOCUMENTS', 'VERSIONS', 'CHUNKS', 'BYTES', 'RATE/MIN', 'SEARCH/MIN'],
    clients.map((client) => [String(client.client_id), client.disabled ? 'disabled' : 'enabled', String(client.documents), String(client.versions), String(client.chunks), String(client.bytes), limitText(client.rate_limit_per_minute), limitText(client.search_rate_limit_per_minute)]),
    paint,
  );
}

export function renderKeys(answer: Record<string, unknown>, paint: Paint): string {
  const keys = answer.keys as Record<string, unknown>[];
  if (keys.length === 0) return 'no keys issued\n';
  return table(
    ['KEY ID', 'SCOPES', 'EXPIRES', 'LABEL', 'FILTER'],
    keys.map((key) => [String(key.key_id), (key.scopes as string[]).join(','), String(key.expires_at ?? 'never'), String(key.label ?? ''), key.filter ? JSON.stringify(key.filter) : '']),
    paint,
  );
}

/** `hds admin clients ...` and `hds admin keys ...`, under the `admin` command the program made. */
export function registerAdminCommands(admin: Command, run: OperatorRun, fields: (answer: Record<string, unknown>) => string, paint: Paint, note: (text: string) => void): void {
  const json = () => new Option('--json', 'print the answer as JSON');

  const clients = admin.command('clients').description('operator: create, list, disable, enable and limit Clients');
  clients
    .command('list')
    .description('every Client with what it holds')
    .addOption(json())
    .action((options) => run({ method: 'GET', path: '/admin/clients' }, (answer) => renderClients(answer, paint), options.json === true));
  clients
    .command('create')
    .description('create a Client (one named in API_KEY_CLIENTS exists already)')
    .argument('<client_id>')
    .addOption(json())
    .action((clientId: string, options) => run({ method: 'POST', path: '/admin/clients', body: { client_id: clientId } }, fields, options.json === true));
  for (const [name, disabled, what] of [['disable', true, 'every key of the Client answers 401'], ['enable', false, 'the Client\'s keys work again']] as const) {
    clients
      .command(name)
      .description(what)
      .argument('<client_id>')
      .addOption(json())
      .action((clientId: string, options) => run({ method: 'PATCH', path: `/admin/clients/${encodeURIComponent(clientId)}`, body: { disabled } }, fields, options.json === true));
  }
  clients
    .command('limit')
    .description(`set a Client's own rate limits ("${DEPLOYMENT_LIMIT}": the deployment's)`)
    .argument('<client_id>')
    // Not --rate-limit: that is the CLI's own option (the budget it keeps to), read before any command's.
    .option('--per-minute <n>', 'requests a minute (rate_limit_per_minute)', limitOf('--per-minute'))
    .option('--searches-per-minute <n>', 'searches a minute (search_rate_limit_per_minute)', limitOf('--searches-per-minute'))
    .addOption(json())
    .action((clientId: string, options) => {
      const body: Record<string, number | null> = {};
      const limit = (value: number | typeof DEPLOYMENT_LIMIT) => (value === DEPLOYMENT_LIMIT ? null : value);
      if (options.perMinute !== undefined) body.rate_limit_per_minute = limit(options.perMinute);
      if (options.searchesPerMinute !== undefined) body.search_rate_limit_per_minute = limit(options.searchesPerMinute);
      if (Object.keys(body).length === 0) throw new UsageError('limit takes --per-minute, --searches-per-minute or both');
      return run({ method: 'PATCH', path: `/admin/clients/${encodeURIComponent(clientId)}`, body }, fields, options.json === true);
    });

  const keys = admin.command('keys').description('operator: issue, list and revoke keys');
  keys
    .command('issue')
    .description('issue a key to a Client; its secret is printed this once')
    .argument('<client_id>')
    .addOption(new Option('--scope <scope...>', 'what the key may do (default: all three; search and read with --filter)').choices(KEY_SCOPE_CHOICES))
    .option('--filter <key=value>', 'confine every read of the key to the versions matching this (repeatable, POST /search filter keys)', collect)
    .option('--expires-at <time>', 'an ISO 8601 date-time with a time zone')
    .option('--label <text>', 'a note for the operator')
    .addOption(json())
    .action(async (clientId: string, options) => {
      const body: Record<string, unknown> = {};
      if (options.scope) body.scopes = options.scope;
      if (options.filter) body.filter = filtersFromPairs(options.filter);
      if (options.expiresAt) body.expires_at = options.expiresAt;
      if (options.label !== undefined) body.label = options.label;
      await run({ method: 'POST', path: `/admin/clients/${encodeURIComponent(clientId)}/keys`, body }, fields, options.json === true);
      if (options.json !== true) note('the key is shown this once: store it now\n');
    });
  keys
    .command('list')
    .description("a Client's keys, without their secrets")
    .argument('<client_id>')
    .addOption(json())
    .action((clientId: string, options) => run({ method: 'GET', path: `/admin/clients/${encodeURIComponent(clientId)}/keys` }, (answer) => renderKeys(answer, paint), options.json === true));
  keys
    .command('revoke')
    .description('revoke a key: it answers 401 on every api process within 1 s')
    .addArgument(new Argument('<key_id>'))
    .addOption(json())
    // A revocation answers 204 without a body: --json prints what was done instead.
    .action((keyId: string, options) => run({ method: 'DELETE', path: `/admin/keys/${encodeURIComponent(keyId)}` }, () => (options.json === true ? `${JSON.stringify({ key_id: keyId, revoked: true }, null, 2)}\n` : `revoked ${keyId}\n`), false));
}
