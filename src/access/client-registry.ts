// What an api process knows of the Clients and keys made at runtime: every recorded Client (disabled or not,
// its own rate limits) and every key not revoked, read from the store on a short interval. Every api process
// on every host reads the same rows, so an issue, a revocation or a disabled Client holds on each within
// ACCESS_MAX_AGE_MS: a request never decides on rows read longer ago than that (it reads them again first).

import type { AccessRepository, ClientRecord, IssuedKeyRecord } from '../storage/port.ts';
import { isKeyScope, keyIdOfSecret, secretMatches } from '../domain/api-keys.ts';
import type { KeyScope } from '../domain/api-keys.ts';
import { compileConfinement } from '../search/key-filter.ts';
import type { Confinement } from '../search/key-filter.ts';

/** How often the rows are read again in the background. */
export const ACCESS_REFRESH_MS = 250;
/** The oldest rows a request decides on (DESIGN.md: within 1 s on every api process). */
export const ACCESS_MAX_AGE_MS = 1_000;

/** Who a key is: its Client, what it may do (null: everything, as a key of API_KEY_CLIENTS), what it may see. */
export interface KeyAccess {
  clientId: string;
  /** Null for a key of API_KEY_CLIENTS, which keeps every right it has (SPEC.md). */
  scopes: ReadonlySet<KeyScope> | null;
  confinement: Confinement | null;
}

/** Per-Client rate limits that override the deployment's (null fields: the deployment's). */
export interface ClientLimits {
  all: number | null;
  search: number | null;
}

interface LoadedKey {
  record: IssuedKeyRecord;
  scopes: ReadonlySet<KeyScope>;
  expiresAtMs: number | null;
  /** Null when the key has no filter; a filter that no longer compiles fails the key closed (`broken`). */
  confinement: Confinement | null;
  broken: boolean;
}

interface AccessView {
  readAt: number;
  clients: Map<string, ClientRecord>;
  keys: Map<string, LoadedKey>;
}

function loadKey(record: IssuedKeyRecord): LoadedKey {
  let confinement: Confinement | null = null;
  let broken = false;
  if (record.filter !== null) {
    try {
      confinement = compileConfinement(record.filter);
    } catch {
      // Validated at issue; a row changed in the store since then confines nothing we can prove, so it admits nothing.
      broken = true;
    }
  }
  const expiresAtMs = record.expiresAt === null ? null : Date.parse(record.expiresAt);
  return { record, scopes: new Set(record.scopes.filter(isKeyScope)), expiresAtMs: expiresAtMs === null || Number.isFinite(expiresAtMs) ? expiresAtMs : 0, confinement, broken };
}

export class ClientRegistry {
  private readonly repository: AccessRepository;
  private readonly envKeys: ReadonlyMap<string, string>;
  private readonly now: () => number;
  private view: AccessView | null = null;
  private reading: Promise<AccessView> | null = null;
  /** The read that starts once the one in flight ends (asked for by a refresh after a write). */
  private following: Promise<AccessView> | null = null;
  private timer: NodeJS.Timeout | null = null;

  /** `envKeys`: API_KEY_CLIENTS (key to Client). */
  constructor(repository: AccessRepository, envKeys: ReadonlyMap<string, string>, now: () => number = Date.now) {
    this.repository = repository;
    this.envKeys = envKeys;
    this.now = now;
  }

  /** Reads the rows every ACCESS_REFRESH_MS until stopped (a failed read is tried again at the next tick). */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.read().catch(() => undefined), ACCESS_REFRESH_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /**
   * Reads the rows now (after this process's own writes, so that its next request sees them). A read already in
   * flight may have started before the caller's write, so it is not joined: a fresh read follows it, one shared by
   * every caller that asks meanwhile.
   */
  refresh(): Promise<AccessView> {
    if (this.reading === null) return this.read();
    this.following ??= this.reading.catch(() => undefined).then(() => {
      this.following = null;
      return this.read();
    });
    return this.following;
  }

  /** One read of the rows, joined by whoever only needs rows read since a moment ago. */
  private read(): Promise<AccessView> {
    this.reading ??= (async () => {
      const readAt = this.now();
      try {
        const { clients, keys } = await this.repository.accessRecords();
        const view: AccessView = { readAt, clients: new Map(clients.map((client) => [client.clientId, client])), keys: new Map(keys.map((key) => [key.keyId, loadKey(key)])) };
        this.view = view;
        return view;
      } finally {
        this.reading = null;
      }
    })();
    return this.reading;
  }

  /** Rows read within ACCESS_MAX_AGE_MS; a store that cannot be read now fails the request as the store's. */
  private async current(): Promise<AccessView> {
    const view = this.view;
    if (view !== null && this.now() - view.readAt < ACCESS_MAX_AGE_MS) return view;
    return this.read();
  }

  /**
   * The access a presented key gives, or null (401): a key of API_KEY_CLIENTS, or an issued key that is not
   * revoked or expired, whose Client is not disabled.
   */
  async resolve(presented: string): Promise<KeyAccess | null> {
    const envClient = this.envKeys.get(presented);
    const keyId = envClient === undefined ? keyIdOfSecret(presented) : null;
    if (envClient === undefined && keyId === null) return null;
    const view = await this.current();
    if (envClient !== undefined) return view.clients.get(envClient)?.disabled ? null : { clientId: envClient, scopes: null, confinement: null };
    const key = view.keys.get(keyId!);
    if (key === undefined || key.broken || !secretMatches(presented, key.record.secretHash)) return null;
    if (key.expiresAtMs !== null && key.expiresAtMs <= this.now()) return null;
    if (view.clients.get(key.record.clientId)?.disabled) return null;
    return { clientId: key.record.clientId, scopes: key.scopes, confinement: key.confinement };
  }

  /** The Clients recorded at runtime (created, or changed once), as the store holds them now. */
  async recordedClientIds(): Promise<string[]> {
    return [...(await this.refresh()).clients.keys()];
  }

  /** The Client's own rate limits as last read (the deployment's where it has none). */
  limitsOf(clientId: string): ClientLimits {
    const client = this.view?.clients.get(clientId);
    return { all: client?.rateLimitPerMinute ?? null, search: client?.searchRateLimitPerMinute ?? null };
  }
}
