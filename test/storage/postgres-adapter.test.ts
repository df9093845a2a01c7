// What only the PostgreSQL adapter has to prove, on a real server (postgres-cluster.ts): migrations applied
// once when several processes open a fresh database at once; Client isolation by row-level security, even
// for SQL that forgets its client_id filter; no start on a role that bypasses it; and writers on several
// connections that keep one active generation per version and a gapless log that followers never skip.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { PostgresStorage } from '../../src/storage/postgres/postgres-storage.ts';
import { clientTransaction } from '../../src/storage/postgres/database.ts';
import { CLIENT_TABLES, POSTGRES_MIGRATIONS } from '../../src/storage/postgres/migrations.ts';
import { generationInput, postgresCluster, stopPostgres } from '../helpers/storage-adapters.ts';
import type { PostgresCluster } from '../helpers/postgres-cluster.ts';
import { until } from '../helpers/processes.ts';
import { PublicationPaused } from '../../src/domain/jobs.ts';

let cluster: PostgresCluster;
before(async () => {
  cluster = await postgresCluster();
});
after(stopPostgres);

describe('PostgreSQL adapter', () => {
  test('several processes opening a fresh database at once all start, and each migration is applied once', async () => {
    const url = await cluster.createDatabase();
    const opened = await Promise.all(Array.from({ length: 4 }, () => PostgresStorage.open(url, { poolMax: 2 })));
    try {
      const { rows } = await opened[0].pool.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
      assert.deepEqual(rows.map((row) => row.version), POSTGRES_MIGRATIONS.map((_, index) => index + 1));
      const authorities = await Promise.all(opened.map((storage) => storage.authority.authority()));
      assert.equal(new Set(authorities.map((record) => record.authorityId)).size, 1, 'one authority record, created once');
    } finally {
      await Promise.all(opened.map((storage) => storage.end()));
    }
    // Opening again finds everything applied.
    const again = await PostgresStorage.open(url);
    await again.end();
  });

  test("a Client's transaction reads and writes that Client's rows only, whatever its SQL forgets to filter", async () => {
    const storage = await PostgresStorage.open(await cluster.createDatabase());
    try {
      for (const clientId of ['acme', 'globex']) {
        const client = storage.client(clientId);
        await client.generations.stageAndActivate(generationInput('doc', [`${clientId} one`, `${clientId} two`], { custom: { owner: clientId }, lanes: new Uint8Array([1]) }));
        await client.generations.stageAndActivate(generationInput('doc', [`${clientId} three`]));
        await client.purges.begin('gone', ['gone']);
      }
      const counts = await clientTransaction(storage.pool, 'acme', 'read', async (sql) => {
        const seen: Record<string, string[]> = {};
        for (const table of CLIENT_TABLES) {
          const { rows } = await sql.query<{ client_id: string }>(`SELECT DISTINCT client_id FROM ${table}`);
          seen[table] = rows.map((row) => row.client_id);
        }
        return seen;
      });
      for (const table of CLIENT_TABLES) assert.deepEqual(counts[table], ['acme'], `${table} shows acme's rows only`);
      const texts = await clientTransaction(storage.pool, 'acme', 'read', async (sql) => (await sql.query<{ text: string }>('SELECT text FROM chunks ORDER BY text')).rows.map((row) => row.text));
      assert.deepEqual(texts, ['acme one', 'acme three', 'acme two']);

      // Outside a Client's transaction the Client tables show nothing at all.
      const { rows: unscoped } = await storage.pool.query('SELECT * FROM generations');
      assert.equal(unscoped.length, 0);

      // Writing or changing another Client's rows is refused or touches nothing.
      await assert.rejects(
        clientTransaction(storage.pool, 'acme', 'write', (sql) =>
          sql.query(`INSERT INTO purge_journal (client_id, document_id, version_key, started_at) VALUES ('globex', 'x', 'x', now())`),
        ),
        /row-level security/,
      );
      const deleted = await clientTransaction(storage.pool, 'acme', 'write', (sql) => sql.query(`DELETE FROM chunks WHERE client_id = 'globex'`));
      assert.equal(deleted.rowCount, 0);
      const moved = await clientTransaction(storage.pool, 'acme', 'write', (sql) => sql.query(`UPDATE generations SET client_id = 'globex'`).catch((error: Error) => error));
      assert.match(String(moved), /row-level security/, 'a row cannot be moved to another Client');
      assert.deepEqual(await storage.client('globex').generations.chunkTexts([{ generation: (await storage.client('globex').generations.activeGeneration('doc', 'doc'))!.generation, chunkIndex: 0 }]), [{ text: 'globex three', language: 'en', rows: null }]);
    } finally {
      await storage.end();
    }
  });

  test("the reads every search makes in one round trip (log head, chunk texts) see their Client's rows only and leave no Client named on the connection", async () => {
    // One connection, so every read below runs on the one the previous read used.
    const storage = await PostgresStorage.open(await cluster.createDatabase(), { poolMax: 1 });
    try {
      const keys: Record<string, { generation: number; chunkIndex: number }> = {};
      for (const [clientId, activations] of [['acme', 1], ['globex', 3]] as const) {
        for (let n = 0; n < activations; n++) await storage.client(clientId).generations.stageAndActivate(generationInput(`doc-${n}`, [`${clientId} ${n}`]));
        keys[clientId] = { generation: (await storage.client(clientId).generations.activeGeneration('doc-0', 'doc-0'))!.generation, chunkIndex: 0 };
      }
      const texts = await storage.client('acme').generations.chunkTexts([keys.globex, keys.acme, { generation: keys.acme.generation, chunkIndex: 9 }]);
      assert.deepEqual(texts.map((text) => text?.text ?? null), [null, 'acme 0', null], "another Client's chunk reads as gone");
      for (const clientId of ['acme', 'globex']) {
        const expected = await clientTransaction(storage.pool, clientId, 'read', async (sql) => (await sql.query<{ head: number }>('SELECT max(seq) AS head FROM publication_log')).rows[0].head);
        assert.equal(await storage.client(clientId).publicationLog.head(), expected, `${clientId}'s own head`);
      }
      assert.notEqual(await storage.client('acme').publicationLog.head(), await storage.client('globex').publicationLog.head());
      // The Client's name ended with the read: the connection shows no Client's rows afterwards.
      const { rows: named } = await storage.pool.query<{ client: string | null }>("SELECT current_setting('app.client_id', true) AS client");
      assert.ok(named[0].client === null || named[0].client === '', `no Client left named on the connection (${named[0].client})`);
      const { rows: unscoped } = await storage.pool.query('SELECT * FROM chunks');
      assert.equal(unscoped.length, 0);
    } finally {
      await storage.end();
    }
  });

  test('the adapter refuses a role that bypasses row-level security', async () => {
    const url = await cluster.createDatabase();
    const database = new URL(url).pathname.slice(1);
    await assert.rejects(PostgresStorage.open(cluster.superuserUrl(database)), /bypasses row-level security/);
  });

  test('writers on several connections keep one active generation per version and a gapless log a follower never skips', async () => {
    const url = await cluster.createDatabase();
    const writers = [await PostgresStorage.open(url), await PostgresStorage.open(url)];
    const reader = await PostgresStorage.open(url);
    try {
      const seen: number[] = [];
      let done = false;
      const follower = (async () => {
        let position = 0;
        while (!done || position < 40) {
          const changes = await reader.client('acme').publicationLog.changesSince(position, 1000);
          for (const entry of changes.entries) seen.push(entry.seq);
          position = changes.head;
          await new Promise((resolve) => setImmediate(resolve));
        }
      })();
      await Promise.all(
        Array.from({ length: 40 }, (_, index) =>
          writers[index % 2].client('acme').generations.stageAndActivate(generationInput(index % 4 === 0 ? 'contested' : `doc-${index}`, [`text ${index}`])),
        ),
      );
      done = true;
      await follower;
      assert.deepEqual(seen, Array.from({ length: 40 }, (_, index) => index + 1), 'every entry, in order, none skipped');
      const { rows } = await clientTransaction(reader.pool, 'acme', 'read', (sql) =>
        sql.query<{ n: number }>(`SELECT count(*) AS n FROM generations WHERE document_id = 'contested' AND state = 'active'`),
      );
      assert.equal(rows[0].n, 1, 'one active generation of the contested version');
      const changes = await reader.client('acme').publicationLog.changesSince(0, 1000);
      const lastContested = changes.entries.filter((entry) => entry.documentId === 'contested').at(-1)!;
      assert.equal((await reader.client('acme').generations.activeGeneration('contested', 'contested'))!.generation, lastContested.generation, 'the last activation logged is the active one');
      assert.equal((await reader.client('acme').generations.usage({ documentId: 'x', versionKey: 'x' })).documents, 31, 'running totals agree with what is active');
    } finally {
      await Promise.all([...writers, reader].map((storage) => storage.end()));
    }
  });

  test('a writer racing a fence is refused once the fence commits: no entry lands after it, whatever the clocks say', async () => {
    const url = await cluster.createDatabase();
    const storage = await PostgresStorage.open(url);
    const operator = new pg.Client({ connectionString: url });
    try {
      const client = storage.client('acme');
      await client.generations.stageAndActivate(generationInput('doc-1', ['x']));
      // An operator's fence, begun and not yet committed: its UPDATE holds the authority row.
      await operator.connect();
      await operator.query('BEGIN');
      await operator.query(`UPDATE authority SET mode = 'FENCING', changed_at = db_now() WHERE id = 1`);
      // A writer that passed the publisher's READY check before the fence now activates.
      const activation = client.generations.stageAndActivate(generationInput('doc-2', ['y']));
      await until('the activation waits for the authority row', async () => {
        const { rows } = await storage.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%FROM authority WHERE id = 1 FOR SHARE%'`,
        );
        return rows[0].n === 1;
      });
      // Expected before the fence commits: the activation may be refused while COMMIT's answer is still on its way.
      const refused = assert.rejects(activation, PublicationPaused);
      await operator.query('COMMIT');
      await refused;
      assert.equal(await client.publicationLog.head(), 1, 'the fenced position is what was committed before the fence');
      assert.equal(await client.generations.activeGeneration('doc-2', 'doc-2'), null);
      // The head is the pin, not a time: an entry's time later than the fence's changes nothing once READY returns.
      await storage.authority.setAuthorityMode('READY');
      await client.generations.stageAndActivate(generationInput('doc-2', ['y']));
      assert.equal(await client.publicationLog.head(), 2);
    } finally {
      await operator.end().catch(() => {});
      await storage.end();
    }
  });

  test('without publication, activations are never refused, whatever the stored mode', async () => {
    const url = await cluster.createDatabase();
    const storage = await PostgresStorage.open(url, { publicationEnabled: false });
    try {
      await storage.authority.setAuthorityMode('MAINTENANCE');
      assert.ok(await storage.client('acme').generations.stageAndActivate(generationInput('doc-1', ['x'])));
      assert.equal(await storage.client('acme').publicationLog.head(), 1);
    } finally {
      await storage.end();
    }
  });

  test('leases and job times are read from the database clock', async () => {
    const storage = await PostgresStorage.open(await cluster.createDatabase());
    try {
      await storage.authority.acquireLease('fence', 'a', 60_000);
      const job = await storage.jobs.enqueue({ clientId: 'c', operation: 'embed', documentId: 'd', versionKey: 'd', request: { source: 'text', filename: null, metadata: {} }, maxAttempts: 3 });
      const { rows } = await storage.pool.query<{ now: number }>('SELECT db_now_ms() AS now');
      const databaseNow = rows[0].now;
      const holder = (await storage.authority.leaseHolder('fence'))!;
      assert.ok(Math.abs(holder.expiresAt - 60_000 - databaseNow) < 5_000);
      assert.ok(Math.abs(job.nextRunAt - databaseNow) < 5_000);
      // Move the lease's expiry to the database's past: it is free at once, whatever this process's clock says.
      await storage.pool.query(`UPDATE leases SET expires_at = db_now_ms() - 1 WHERE name = 'fence'`);
      assert.equal(await storage.authority.leaseHolder('fence'), null);
      assert.equal(await storage.authority.acquireLease('fence', 'b', 60_000), true);
    } finally {
      await storage.end();
    }
  });

  test('a connection string that reaches no server fails the open with the driver error, not a hang', async () => {
    const client = new pg.Client({ connectionString: `postgres://app@127.0.0.1:${cluster.port}/postgres` });
    await client.connect();
    await client.end();
    await assert.rejects(PostgresStorage.open('postgres://app@127.0.0.1:1/nothing'), /ECONNREFUSED|connect/);
  });
});
