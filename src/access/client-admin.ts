// The operator's Clients and keys (DESIGN.md "Clients and keys at runtime"): create, list with usage, disable,
// enable and set a Client's rate limits; issue a key (its secret returned this once, only its hash stored),
// list and revoke keys. Clients named in API_KEY_CLIENTS exist without being created. Requests are validated by
// the routes; this service answers not-found and conflicts, and reads the store itself (not the registry's
// rows, which may be a moment old) so that an operator reads what was just written on any api process.

import type { JsonObject } from '../domain/canonical-metadata.ts';
import { ServiceError } from '../domain/service-error.ts';
import { newIssuedKey, secretHash } from '../domain/api-keys.ts';
import type { KeyScope } from '../domain/api-keys.ts';
import type { ClientChanges, ClientRecord, IssuedKeyRecord, StoragePort } from '../storage/port.ts';
import type { ClientRegistry } from './client-registry.ts';

export interface ClientView {
  client_id: string;
  /** Null for a Client of API_KEY_CLIENTS that was never changed at runtime. */
  created_at: string | null;
  disabled: boolean;
  rate_limit_per_minute: number | null;
  search_rate_limit_per_minute: number | null;
  documents: number;
  versions: number;
  chunks: number;
  bytes: number;
}

export interface KeyView {
  key_id: string;
  client_id: string;
  scopes: string[];
  expires_at: string | null;
  filter: JsonObject | null;
  label: string | null;
  created_at: string;
}

export interface KeyRequest {
  scopes: KeyScope[];
  expiresAt: string | null;
  filter: JsonObject | null;
  label: string | null;
}

function keyView(key: IssuedKeyRecord): KeyView {
  return { key_id: key.keyId, client_id: key.clientId, scopes: key.scopes, expires_at: key.expiresAt, filter: key.filter, label: key.label, created_at: key.createdAt };
}

export class ClientAdmin {
  private readonly storage: StoragePort;
  private readonly registry: ClientRegistry;
  private readonly envClients: ReadonlySet<string>;
  private readonly now: () => number;

  constructor(storage: StoragePort, registry: ClientRegistry, envClients: ReadonlySet<string>, now: () => number = Date.now) {
    this.storage = storage;
    this.registry = registry;
    this.envClients = envClients;
    this.now = now;
  }

  private stamp(): string {
    return new Date(this.now()).toISOString();
  }

  async createClient(clientId: string): Promise<{ client_id: string; created_at: string }> {
    const createdAt = this.stamp();
    if (this.envClients.has(clientId) || !(await this.storage.access.createClient(clientId, createdAt))) {
      throw new ServiceError('client_exists', `Client ${clientId} exists`);
    }
    await this.registry.refresh();
    return { client_id: clientId, created_at: createdAt };
  }

  /** Every Client, those of API_KEY_CLIENTS first in their order, then the recorded ones by id, with what each holds. */
  async listClients(): Promise<{ clients: ClientView[] }> {
    const { clients } = await this.storage.access.accessRecords();
    const recorded = new Map(clients.map((client) => [client.clientId, client]));
    const ids = [...new Set([...this.envClients, ...recorded.keys()])];
    // A Client that never stored anything has no store to read: reading it would create one.
    const stored = new Set(await this.storage.knownClientIds());
    const views: ClientView[] = [];
    for (const clientId of ids) views.push(await this.clientView(clientId, recorded.get(clientId) ?? null, stored.has(clientId)));
    return { clients: views };
  }

  private async clientView(clientId: string, record: ClientRecord | null, hasStore: boolean): Promise<ClientView> {
    const usage = { documents: 0, versions: 0, chunks: 0, bytes: 0 };
    if (hasStore) {
      const generations = this.storage.client(clientId).generations;
      // No Document Version has the empty document id: "besides" it is the whole Client.
      const held = await generations.usage({ documentId: '', versionKey: '' });
      Object.assign(usage, { documents: held.documents, versions: await generations.activeVersionCount(), chunks: held.chunks, bytes: held.textBytes });
    }
    return {
      client_id: clientId,
      created_at: record?.createdAt ?? null,
      disabled: record?.disabled ?? false,
      rate_limit_per_minute: record?.rateLimitPerMinute ?? null,
      search_rate_limit_per_minute: record?.searchRateLimitPerMinute ?? null,
      ...usage,
    };
  }

  async changeClient(clientId: string, changes: ClientChanges): Promise<ClientView> {
    // A Client of API_KEY_CLIENTS is recorded by its first change; any other must have been created.
    const record = await this.storage.access.changeClient(clientId, changes, this.envClients.has(clientId) ? this.stamp() : undefined);
    if (record === null) throw new ServiceError('not_found', 'Client not found');
    await this.registry.refresh();
    return this.clientView(clientId, record, (await this.storage.knownClientIds()).includes(clientId));
  }

  private async requireClient(clientId: string): Promise<IssuedKeyRecord[]> {
    const { clients, keys } = await this.storage.access.accessRecords();
    if (!this.envClients.has(clientId) && !clients.some((client) => client.clientId === clientId)) throw new ServiceError('not_found', 'Client not found');
    return keys.filter((key) => key.clientId === clientId);
  }

  /** Issues a key: the answer carries its secret (`key`), which is never stored nor shown again. */
  async issueKey(clientId: string, request: KeyRequest): Promise<KeyView & { key: string }> {
    await this.requireClient(clientId);
    const { keyId, secret } = newIssuedKey();
    const record: IssuedKeyRecord = { keyId, clientId, secretHash: secretHash(secret), scopes: request.scopes, expiresAt: request.expiresAt, filter: request.filter, label: request.label, createdAt: this.stamp() };
    await this.storage.access.issueKey(record);
    await this.registry.refresh();
    return { ...keyView(record), key: secret };
  }

  /** A Client's keys not revoked (expired ones too, until revoked), without their secrets. */
  async listKeys(clientId: string): Promise<{ keys: KeyView[] }> {
    return { keys: (await this.requireClient(clientId)).map(keyView) };
  }

  async revokeKey(keyId: string): Promise<void> {
    if (!(await this.storage.access.revokeKey(keyId))) throw new ServiceError('not_found', 'Key not found');
    await this.registry.refresh();
  }
}
