// Clients and keys made at runtime in the store (AccessRepository), on both adapters with the same tests, and the
// registry an api process resolves keys with, reading another adapter instance of the same store as a second
// process would. The registry's clock is injected for expiry; the rows are real.

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { STORE_ADAPTERS, stopPostgres } from '../helpers/storage-adapters.ts';
import type { OpenedStore, StoreAdapter } from '../helpers/storage-adapters.ts';
import type { IssuedKeyRecord } from '../../src/storage/port.ts';
import { ClientRegistry, ACCESS_MAX_AGE_MS } from '../../src/access/client-registry.ts';
import { newIssuedKey, secretHash } from '../../src/domain/api-keys.ts';

after(stopPostgres);

async function withStore(adapter: StoreAdapter, fn: (store: OpenedStore) => Promise<void>): Promise<void> {
  const store = await adapter.open();
  try {
    await fn(store);
  } finally {
    await store.close();
  }
}

function keyRecord(clientId: string, changes: Partial<IssuedKeyRecord> = {}): { record: IssuedKeyRecord; secret: string } {
  const { keyId, secret } = newIssuedKey();
  return { secret, record: { keyId, clientId, secretHash: secretHash(secret), scopes: ['search', 'read'], expiresAt: null, filter: null, label: null, createdAt: '2026-03-14T09:00:00.000Z', ...changes } };
}

for (const adapter of STORE_ADAPTERS) {
  describe(`runtime Clients and keys: ${adapter.name}`, () => {
    test('a Client is recorded once; changes, issued keys and revocations are read back by another process', async () => {
      await withStore(adapter, async ({ storage, openAnother }) => {
        const other = await openAnother();
        assert.equal(await storage.access.createClient('team-a', '2026-03-14T08:00:00.000Z'), true);
        assert.equal(await other.access.createClient('team-a', '2026-03-14T08:30:00.000Z'), false);
        assert.equal(await storage.access.changeClient('nobody', { disabled: true }), null, 'no record is made without createdAt');
        const changed = await other.access.changeClient('team-a', { disabled: true, rateLimitPerMinute: 5 });
        assert.deepEqual(changed, { clientId: 'team-a', createdAt: '2026-03-14T08:00:00.000Z', disabled: true, rateLimitPerMinute: 5, searchRateLimitPerMinute: null });
        const reset = await storage.access.changeClient('team-a', { rateLimitPerMinute: null, searchRateLimitPerMinute: 9 });
        assert.deepEqual([reset?.disabled, reset?.rateLimitPerMinute, reset?.searchRateLimitPerMinute], [true, null, 9], 'absent fields stay as they were');

        const { record } = keyRecord('team-a', { filter: { 'metadata.custom.team': ['a', 'b'] }, expiresAt: '2030-01-01T00:00:00.000Z', label: 'portal' });
        await storage.access.issueKey(record);
        // A key for a Client that was never recorded (one of API_KEY_CLIENTS) records it with the key.
        const { record: envKey } = keyRecord('from-settings');
        await storage.access.issueKey(envKey);
        const read = await other.access.accessRecords();
        assert.deepEqual(read.keys.find((key) => key.keyId === record.keyId), record);
        assert.deepEqual(read.clients.map((client) => [client.clientId, client.disabled]), [['from-settings', false], ['team-a', true]]);

        assert.equal(await other.access.revokeKey(record.keyId), true);
        assert.equal(await storage.access.revokeKey(record.keyId), false);
        assert.deepEqual((await storage.access.accessRecords()).keys.map((key) => key.keyId), [envKey.keyId]);
      });
    });

    test('the registry resolves keys of the settings and issued ones, and refuses revoked, expired, tampered and disabled ones', async () => {
      await withStore(adapter, async ({ storage, openAnother }) => {
        const other = await openAnother();
        let now = Date.parse('2026-03-14T10:00:00.000Z');
        const registry = new ClientRegistry(other.access, new Map([['settings-key', 'team-env']]), () => now);
        const { record, secret } = keyRecord('team-env', { expiresAt: '2026-03-14T10:00:05.000Z', filter: { document_id: 'd1' } });
        await storage.access.issueKey(record);
        const access = await registry.resolve(secret);
        assert.equal(access?.clientId, 'team-env');
        assert.deepEqual([...access!.scopes!], ['search', 'read']);
        assert.ok(access?.confinement);
        assert.equal((await registry.resolve('settings-key'))?.scopes, null, 'a key of API_KEY_CLIENTS has every right');
        assert.equal(await registry.resolve(secret.slice(0, -1) + (secret.endsWith('x') ? 'y' : 'x')), null, 'a secret with the right id and a wrong tail');
        assert.equal(await registry.resolve('no-such-key'), null);

        now += 4_999;
        assert.ok(await registry.resolve(secret), 'not before expires_at');
        now += 1;
        assert.equal(await registry.resolve(secret), null, 'expired at expires_at');

        // The registry decides on rows at most ACCESS_MAX_AGE_MS old: a change is seen once they are that old.
        const lasting = keyRecord('team-env');
        await storage.access.issueKey(lasting.record);
        await storage.access.changeClient('team-env', { disabled: true }, '2026-03-14T10:00:00.000Z');
        assert.equal(await registry.resolve(lasting.secret), null, 'rows read a moment ago do not know the new key yet');
        now += ACCESS_MAX_AGE_MS;
        assert.equal(await registry.resolve('settings-key'), null, "a disabled Client's settings key");
        assert.equal(await registry.resolve(lasting.secret), null, "a disabled Client's issued key");
        await storage.access.changeClient('team-env', { disabled: false, searchRateLimitPerMinute: 3 });
        await registry.refresh();
        assert.ok(await registry.resolve('settings-key'));
        assert.ok(await registry.resolve(lasting.secret));
        assert.deepEqual(registry.limitsOf('team-env'), { all: null, search: 3 });
        await storage.access.revokeKey(lasting.record.keyId);
        await registry.refresh();
        assert.equal(await registry.resolve(lasting.secret), null, 'revoked');
      });
    });

    test("a refresh after a write reads after it, even while a read that began before the write is in flight", async () => {
      await withStore(adapter, async ({ storage }) => {
        await storage.access.createClient('team-r', '2026-03-14T08:00:00.000Z');
        await storage.access.changeClient('team-r', { rateLimitPerMinute: 2 });
        // The real repository, its first read held once it has its rows, until the write below has been made.
        let release!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        let firstRowsRead!: () => void;
        const rowsRead = new Promise<void>((resolve) => (firstRowsRead = resolve));
        let reads = 0;
        const repository = Object.create(storage.access) as typeof storage.access;
        repository.accessRecords = async () => {
          const rows = await storage.access.accessRecords();
          if (++reads === 1) {
            firstRowsRead();
            await held;
          }
          return rows;
        };
        const registry = new ClientRegistry(repository, new Map());
        const early = registry.refresh();
        await rowsRead;
        await storage.access.changeClient('team-r', { rateLimitPerMinute: null });
        const afterWrite = registry.refresh();
        assert.equal(registry.refresh(), afterWrite, 'callers meanwhile share the one read that follows');
        release();
        assert.equal((await early).clients.get('team-r')?.rateLimitPerMinute, 2, 'the early read saw the rows before the write');
        await afterWrite;
        assert.deepEqual(registry.limitsOf('team-r'), { all: null, search: null }, "the Client's own limit was removed");
        assert.equal(reads, 2);
      });
    });
  });
}
