// The PostgreSQL schema, as numbered migrations applied once at start-up under an advisory lock (several
// processes starting at once apply each exactly once). One schema for every Client: the Client tables carry
// client_id in every key and row-level security shows a transaction its own Client's rows only (database.ts).
// What the SQLite adapter keeps (sqlite/client-migrations.ts, sqlite/control-migrations.ts) is the reference for what is here.
// Append new migrations; never edit one that has shipped.

import type pg from 'pg';
import { checkOut, MIGRATION_LOCK, RATE_WINDOW_LOCK } from './database.ts';

/** The tables of one Client's data; each gets the isolation policy. */
export const CLIENT_TABLES = [
  'versions',
  'generations',
  'chunks',
  'metadata_leaves',
  'generation_lanes',
  'purge_journal',
  'publication_heads',
  'publication_log',
  'usage_totals',
  'active_documents',
] as const;

/** The Client a transaction was opened for (database.ts clientTransaction); NULL outside one, so nothing matches. */
const CURRENT_CLIENT = `NULLIF(current_setting('app.client_id', true), '')`;

/**
 * Row-level security on every Client table. FORCE makes it bind the tables' owner too (the role that ran the
 * migrations is the role the service connects as); a superuser or BYPASSRLS role would still see everything,
 * which is why the adapter refuses to start on one (database.ts assertIsolatingRole).
 */
const isolation = CLIENT_TABLES.map(
  (table) => `
  ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY;
  ALTER TABLE ${table} FORCE ROW LEVEL SECURITY;
  CREATE POLICY client_isolation ON ${table} USING (client_id = ${CURRENT_CLIENT}) WITH CHECK (client_id = ${CURRENT_CLIENT});`,
).join('\n');

export const POSTGRES_MIGRATIONS: readonly string[] = [
  // Shared tables of the deployment: the Client registry, jobs with leases, readiness, the authority record,
  // named leases, rate windows, secrets, uploads. Times that leases and windows compare are milliseconds of
  // the database's clock (db_now_ms), so that hosts whose clocks disagree still agree on who holds what.
  `
  CREATE FUNCTION db_now_ms() RETURNS bigint LANGUAGE sql STABLE AS $$ SELECT floor(extract(epoch FROM statement_timestamp()) * 1000)::bigint $$;
  CREATE FUNCTION db_now() RETURNS timestamptz LANGUAGE sql STABLE AS $$ SELECT date_trunc('milliseconds', statement_timestamp()) $$;

  CREATE TABLE clients (
    client_id text PRIMARY KEY,
    ordinal bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    provisioned_at timestamptz NOT NULL DEFAULT db_now()
  );
  CREATE TABLE jobs (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    job_id text NOT NULL UNIQUE,
    client_id text NOT NULL,
    operation text NOT NULL,
    document_id text COLLATE "C" NOT NULL,
    version_key text,
    status text NOT NULL,
    request text NOT NULL,
    result text,
    error text,
    error_details text,
    attempts integer NOT NULL DEFAULT 0,
    max_attempts integer NOT NULL,
    next_run_at bigint NOT NULL,
    lease_owner text,
    lease_expires_at bigint,
    publication_wait_since bigint,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    completed_at timestamptz
  );
  CREATE INDEX jobs_runnable ON jobs (status, next_run_at);
  CREATE INDEX jobs_by_version ON jobs (client_id, document_id, version_key, seq);
  CREATE TABLE readiness (
    client_id text PRIMARY KEY,
    state text NOT NULL,
    backfill_job_id text,
    updated_at timestamptz NOT NULL
  );
  CREATE TABLE authority (
    id integer PRIMARY KEY CHECK (id = 1),
    mode text NOT NULL CHECK (mode IN ('READY', 'FENCING', 'MAINTENANCE')),
    authority_id text NOT NULL,
    changed_at timestamptz NOT NULL
  );
  CREATE TABLE leases (
    name text PRIMARY KEY,
    owner text NOT NULL,
    expires_at bigint NOT NULL
  );
  CREATE TABLE rate_hits (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    client_id text NOT NULL,
    bucket text NOT NULL,
    at bigint NOT NULL
  );
  CREATE INDEX rate_hits_window ON rate_hits (client_id, bucket, at);
  CREATE TABLE rate_counts (
    client_id text NOT NULL,
    bucket text NOT NULL,
    hits integer NOT NULL,
    PRIMARY KEY (client_id, bucket)
  );
  CREATE TABLE deployment_secrets (
    name text PRIMARY KEY,
    value text NOT NULL
  );
  -- Uploads live in the database, not in a directory: a worker on any host must read the file an api process
  -- on another host accepted, and the database is the one store every host already shares (no shared file
  -- system to provision, back up and keep consistent with the job that names the file).
  CREATE TABLE uploads (
    name text PRIMARY KEY,
    bytes bytea NOT NULL,
    saved_at timestamptz NOT NULL DEFAULT db_now()
  );

  -- One sliding window per (Client, bucket): counts one request in every bucket if each has room, all or
  -- nothing, in one round trip (every protected request calls it). The Client's lock serializes its deciders.
  CREATE FUNCTION take_rate_slots(p_client text, p_buckets text[], p_limits integer[], p_window bigint, OUT allowed boolean, OUT retry_after_ms bigint)
  LANGUAGE plpgsql AS $$
  DECLARE
    now_ms bigint := db_now_ms();
    i integer;
    expired integer;
    held integer;
    oldest bigint;
  BEGIN
    PERFORM pg_advisory_xact_lock(${RATE_WINDOW_LOCK}, hashtext(p_client));
    allowed := true;
    retry_after_ms := 0;
    FOR i IN 1 .. coalesce(array_length(p_buckets, 1), 0) LOOP
      DELETE FROM rate_hits WHERE client_id = p_client AND bucket = p_buckets[i] AND at <= now_ms - p_window;
      GET DIAGNOSTICS expired = ROW_COUNT;
      IF expired > 0 THEN
        UPDATE rate_counts SET hits = greatest(0, hits - expired) WHERE client_id = p_client AND bucket = p_buckets[i];
      END IF;
      SELECT hits INTO held FROM rate_counts WHERE client_id = p_client AND bucket = p_buckets[i];
      IF coalesce(held, 0) >= p_limits[i] THEN
        SELECT min(at) INTO oldest FROM rate_hits WHERE client_id = p_client AND bucket = p_buckets[i];
        allowed := false;
        retry_after_ms := greatest(retry_after_ms, coalesce(oldest, now_ms) + p_window - now_ms);
      END IF;
    END LOOP;
    IF NOT allowed THEN
      RETURN;
    END IF;
    FOR i IN 1 .. coalesce(array_length(p_buckets, 1), 0) LOOP
      INSERT INTO rate_hits (client_id, bucket, at) VALUES (p_client, p_buckets[i], now_ms);
      INSERT INTO rate_counts (client_id, bucket, hits) VALUES (p_client, p_buckets[i], 1)
        ON CONFLICT (client_id, bucket) DO UPDATE SET hits = rate_counts.hits + 1;
    END LOOP;
  END $$;
  `,
  // The Client tables. Generation numbers come from one sequence for every Client (unique across Clients);
  // a Client's writers are serialized (database.ts), so its numbers grow in the order its writes commit. The
  // publication log's sequence is per Client: publication_heads holds each Client's head, and the row lock of
  // the append keeps the sequence gapless and committed in order, so a follower that read head N has every
  // entry up to N. Identities compare bytewise (COLLATE "C", as SQLite compares them), so that scans in identity
  // order do not depend on the database's locale.
  `
  CREATE TABLE versions (
    client_id text NOT NULL,
    document_id text COLLATE "C" NOT NULL,
    version_key text COLLATE "C" NOT NULL,
    active_generation bigint,
    created_at text NOT NULL,
    PRIMARY KEY (client_id, document_id, version_key)
  );
  CREATE TABLE generations (
    client_id text NOT NULL,
    generation bigint GENERATED ALWAYS AS IDENTITY,
    document_id text COLLATE "C" NOT NULL,
    version_key text COLLATE "C" NOT NULL,
    job_id text,
    state text NOT NULL CHECK (state IN ('staged', 'active', 'retired')),
    created_at text NOT NULL,
    staged_at timestamptz NOT NULL,
    activated_at timestamptz,
    retired_at timestamptz,
    canonical_metadata text NOT NULL,
    entities text NOT NULL,
    embedding text NOT NULL,
    deleted boolean NOT NULL DEFAULT false,
    deleted_at text,
    deleted_by text,
    chunk_count integer NOT NULL,
    manifest text NOT NULL,
    text_bytes bigint NOT NULL DEFAULT 0,
    leaves_indexed boolean NOT NULL DEFAULT true,
    content_removed boolean NOT NULL DEFAULT false,
    PRIMARY KEY (client_id, generation)
  );
  CREATE INDEX generations_by_version ON generations (client_id, document_id, version_key, generation);
  CREATE INDEX generations_by_state ON generations (client_id, state, leaves_indexed);
  CREATE INDEX generations_by_job ON generations (client_id, job_id, state);
  CREATE INDEX generations_retired_content ON generations (client_id, state, content_removed, retired_at);
  CREATE TABLE chunks (
    client_id text NOT NULL,
    generation bigint NOT NULL,
    chunk_index integer NOT NULL,
    page integer,
    page_label text,
    text text NOT NULL,
    entities text NOT NULL,
    vector bytea NOT NULL,
    PRIMARY KEY (client_id, generation, chunk_index),
    FOREIGN KEY (client_id, generation) REFERENCES generations (client_id, generation) ON DELETE CASCADE
  );
  CREATE TABLE metadata_leaves (
    client_id text NOT NULL,
    generation bigint NOT NULL,
    ordinal integer NOT NULL,
    path text NOT NULL,
    value text NOT NULL,
    value_type text NOT NULL,
    PRIMARY KEY (client_id, generation, ordinal),
    FOREIGN KEY (client_id, generation) REFERENCES generations (client_id, generation) ON DELETE CASCADE
  );
  CREATE TABLE generation_lanes (
    client_id text NOT NULL,
    generation bigint NOT NULL,
    lanes bytea NOT NULL,
    PRIMARY KEY (client_id, generation),
    FOREIGN KEY (client_id, generation) REFERENCES generations (client_id, generation) ON DELETE CASCADE
  );
  CREATE TABLE purge_journal (
    client_id text NOT NULL,
    document_id text COLLATE "C" NOT NULL,
    version_key text COLLATE "C" NOT NULL,
    started_at timestamptz NOT NULL,
    PRIMARY KEY (client_id, document_id, version_key)
  );
  CREATE TABLE publication_heads (
    client_id text PRIMARY KEY,
    seq bigint NOT NULL
  );
  CREATE TABLE publication_log (
    client_id text NOT NULL,
    seq bigint NOT NULL,
    kind text NOT NULL CHECK (kind IN ('activate', 'remove')),
    document_id text COLLATE "C" NOT NULL,
    version_key text COLLATE "C" NOT NULL,
    generation bigint,
    at timestamptz NOT NULL,
    PRIMARY KEY (client_id, seq)
  );
  CREATE INDEX publication_log_by_time ON publication_log (client_id, at);

  -- Quota usage as running totals beside the generations (as sqlite/client-migrations.ts keeps them), moved
  -- by triggers in the transaction that changes a generation's state or deletes an active one. The triggers
  -- run as the writer, under the same isolation policy.
  CREATE TABLE usage_totals (
    client_id text PRIMARY KEY,
    documents bigint NOT NULL,
    chunks bigint NOT NULL,
    text_bytes bigint NOT NULL
  );
  CREATE TABLE active_documents (
    client_id text NOT NULL,
    document_id text COLLATE "C" NOT NULL,
    versions integer NOT NULL,
    PRIMARY KEY (client_id, document_id)
  );
  CREATE FUNCTION usage_generation_enters(g generations) RETURNS void LANGUAGE plpgsql AS $$
  DECLARE held integer;
  BEGIN
    INSERT INTO active_documents (client_id, document_id, versions) VALUES (g.client_id, g.document_id, 1)
      ON CONFLICT (client_id, document_id) DO UPDATE SET versions = active_documents.versions + 1
      RETURNING versions INTO held;
    INSERT INTO usage_totals (client_id, documents, chunks, text_bytes)
      VALUES (g.client_id, CASE WHEN held = 1 THEN 1 ELSE 0 END, g.chunk_count, g.text_bytes)
      ON CONFLICT (client_id) DO UPDATE SET documents = usage_totals.documents + EXCLUDED.documents,
        chunks = usage_totals.chunks + EXCLUDED.chunks, text_bytes = usage_totals.text_bytes + EXCLUDED.text_bytes;
  END $$;
  CREATE FUNCTION usage_generation_leaves(g generations) RETURNS void LANGUAGE plpgsql AS $$
  DECLARE held integer;
  BEGIN
    UPDATE active_documents SET versions = versions - 1 WHERE client_id = g.client_id AND document_id = g.document_id
      RETURNING versions INTO held;
    UPDATE usage_totals SET chunks = chunks - g.chunk_count, text_bytes = text_bytes - g.text_bytes,
      documents = documents - CASE WHEN held = 0 THEN 1 ELSE 0 END
      WHERE client_id = g.client_id;
    DELETE FROM active_documents WHERE client_id = g.client_id AND document_id = g.document_id AND versions = 0;
  END $$;
  CREATE FUNCTION usage_on_state_change() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF NEW.state = 'active' AND OLD.state <> 'active' THEN
      PERFORM usage_generation_enters(NEW);
    ELSIF OLD.state = 'active' AND NEW.state <> 'active' THEN
      PERFORM usage_generation_leaves(OLD);
    END IF;
    RETURN NULL;
  END $$;
  CREATE FUNCTION usage_on_delete() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM usage_generation_leaves(OLD);
    RETURN NULL;
  END $$;
  CREATE TRIGGER usage_generation_state AFTER UPDATE OF state ON generations
    FOR EACH ROW WHEN (OLD.state IS DISTINCT FROM NEW.state) EXECUTE FUNCTION usage_on_state_change();
  CREATE TRIGGER usage_active_generation_deleted AFTER DELETE ON generations
    FOR EACH ROW WHEN (OLD.state = 'active') EXECUTE FUNCTION usage_on_delete();
  ${isolation}
  `,
  // The authority record is created with the store, once, in READY. No process recreates it later: a record
  // that goes missing is corrupted publication state, which fails closed until an operator sets a mode
  // (PgAuthorityRepository.setAuthorityMode writes it again).
  `
  INSERT INTO authority (id, mode, authority_id, changed_at) VALUES (1, 'READY', gen_random_uuid()::text, db_now()) ON CONFLICT (id) DO NOTHING;
  `,
  // Each chunk's language (en, ms or other), detected at indexing; chunks indexed before have none.
  `
  ALTER TABLE chunks ADD COLUMN language text;
  `,
  // Runnable jobs in the order a claim takes them (status, then run time, then acceptance), so that a claim
  // reads the first eligible row of each status instead of sorting the whole backlog (PgJobRepository.claim).
  `
  CREATE INDEX jobs_claim_order ON jobs (status, next_run_at, seq);
  DROP INDEX jobs_runnable;
  `,
  // Rate windows that count a batch of slots at once (RateBatchPolicy): take_rate_slots with, per bucket, the
  // slots wanted; a bucket with at least p_min_room left counts up to wanted (at most room / p_room_share),
  // stamped p_lifetime ms later, and the decision says how many and when. return_rate_slots uncounts the ones
  // a taker did not hand out. take_rate_slots stays for processes of the previous release during an upgrade.
  `
  CREATE FUNCTION take_rate_batch(p_client text, p_buckets text[], p_limits integer[], p_wanted integer[], p_window bigint, p_lifetime bigint, p_room_share integer, p_min_room integer,
    OUT allowed boolean, OUT retry_after_ms bigint, OUT granted integer[], OUT stamped_at bigint)
  LANGUAGE plpgsql AS $$
  DECLARE
    now_ms bigint := db_now_ms();
    i integer;
    expired integer;
    held integer;
    oldest bigint;
    rooms integer[] := '{}';
    slots integer;
  BEGIN
    PERFORM pg_advisory_xact_lock(${RATE_WINDOW_LOCK}, hashtext(p_client));
    allowed := true;
    retry_after_ms := 0;
    granted := '{}';
    stamped_at := now_ms;
    FOR i IN 1 .. coalesce(array_length(p_buckets, 1), 0) LOOP
      DELETE FROM rate_hits WHERE client_id = p_client AND bucket = p_buckets[i] AND at <= now_ms - p_window;
      GET DIAGNOSTICS expired = ROW_COUNT;
      IF expired > 0 THEN
        UPDATE rate_counts SET hits = greatest(0, hits - expired) WHERE client_id = p_client AND bucket = p_buckets[i];
      END IF;
      SELECT hits INTO held FROM rate_counts WHERE client_id = p_client AND bucket = p_buckets[i];
      rooms := rooms || (p_limits[i] - coalesce(held, 0));
      IF coalesce(held, 0) >= p_limits[i] THEN
        SELECT min(at) INTO oldest FROM rate_hits WHERE client_id = p_client AND bucket = p_buckets[i];
        allowed := false;
        retry_after_ms := greatest(retry_after_ms, coalesce(oldest, now_ms) + p_window - now_ms);
      END IF;
    END LOOP;
    IF NOT allowed THEN
      RETURN;
    END IF;
    stamped_at := now_ms + p_lifetime;
    FOR i IN 1 .. coalesce(array_length(p_buckets, 1), 0) LOOP
      slots := CASE WHEN p_room_share > 0 AND p_wanted[i] > 1 AND rooms[i] >= p_min_room THEN greatest(1, least(p_wanted[i], rooms[i] / p_room_share)) ELSE 1 END;
      INSERT INTO rate_hits (client_id, bucket, at)
        SELECT p_client, p_buckets[i], CASE WHEN slots > 1 THEN stamped_at ELSE now_ms END FROM generate_series(1, slots);
      INSERT INTO rate_counts (client_id, bucket, hits) VALUES (p_client, p_buckets[i], slots)
        ON CONFLICT (client_id, bucket) DO UPDATE SET hits = rate_counts.hits + slots;
      granted := granted || slots;
    END LOOP;
  END $$;

  CREATE FUNCTION return_rate_slots(p_client text, p_bucket text, p_count integer, p_at bigint) RETURNS void
  LANGUAGE plpgsql AS $$
  DECLARE
    returned integer;
  BEGIN
    PERFORM pg_advisory_xact_lock(${RATE_WINDOW_LOCK}, hashtext(p_client));
    DELETE FROM rate_hits WHERE seq IN (SELECT seq FROM rate_hits WHERE client_id = p_client AND bucket = p_bucket AND at = p_at LIMIT p_count);
    GET DIAGNOSTICS returned = ROW_COUNT;
    IF returned > 0 THEN
      UPDATE rate_counts SET hits = greatest(0, hits - returned) WHERE client_id = p_client AND bucket = p_bucket;
    END IF;
  END $$;
  `,
  // Clients and keys made at runtime (operator routes): shared rows, as in the SQLite control database. A key row
  // keeps its secret's SHA-256, never the secret; revoking a key deletes its row.
  `
  CREATE TABLE runtime_clients (
    client_id text COLLATE "C" PRIMARY KEY,
    created_at text NOT NULL,
    disabled boolean NOT NULL DEFAULT false,
    rate_limit_per_minute integer,
    search_rate_limit_per_minute integer
  );
  CREATE TABLE issued_keys (
    key_id text PRIMARY KEY,
    client_id text COLLATE "C" NOT NULL REFERENCES runtime_clients (client_id),
    secret_hash text NOT NULL UNIQUE,
    scopes text NOT NULL,
    expires_at text,
    filter text,
    label text,
    created_at text NOT NULL
  );
  `,
  // Webhooks and their outbox (storage/shared/webhook-rows.ts), shared tables like the jobs whose outcomes they
  // carry: an outcome and its deliveries commit together. The secret is kept as given (signing needs it in clear).
  `
  CREATE TABLE webhooks (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    webhook_id text NOT NULL UNIQUE,
    client_id text NOT NULL,
    url text NOT NULL,
    events text NOT NULL,
    secret text NOT NULL,
    created_at timestamptz NOT NULL
  );
  CREATE INDEX webhooks_by_client ON webhooks (client_id, seq);
  CREATE TABLE webhook_deliveries (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    delivery_id text NOT NULL UNIQUE,
    webhook_id text NOT NULL REFERENCES webhooks (webhook_id) ON DELETE CASCADE,
    client_id text NOT NULL,
    job_id text NOT NULL,
    document_id text COLLATE "C" NOT NULL,
    event text NOT NULL,
    body text NOT NULL,
    status text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts integer NOT NULL DEFAULT 0,
    next_attempt_at bigint NOT NULL,
    lease_owner text,
    lease_expires_at bigint,
    last_status_code integer,
    last_error text,
    created_at timestamptz NOT NULL,
    created_at_ms bigint NOT NULL,
    delivered_at timestamptz
  );
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
  CREATE INDEX webhook_deliveries_in_order ON webhook_deliveries (webhook_id, document_id, seq);
  CREATE INDEX webhook_deliveries_log ON webhook_deliveries (webhook_id, seq);
  `,
  // Each Client's synonym set (PUT /settings/synonyms): a shared row, as in the SQLite control database, with a
  // version every accepted change increments (a search reads the version alone: search/synonym-cache.ts).
  `
  CREATE TABLE client_synonyms (
    client_id text COLLATE "C" PRIMARY KEY,
    rules text NOT NULL,
    version bigint NOT NULL
  );
  `,
  // The spreadsheet rows each chunk holds (first and last, 1-based), recorded at indexing for sheets and CSV/TSV
  // files; other chunks, and every chunk indexed before, have none.
  `
  ALTER TABLE chunks ADD COLUMN row_first integer, ADD COLUMN row_last integer;
  `,
];

/**
 * Applies the missing migrations, each in its own transaction, holding the migration lock on one connection
 * meanwhile: a process that starts while another migrates waits, then finds them applied.
 */
export async function migrate(pool: pg.Pool, migrations: readonly string[] = POSTGRES_MIGRATIONS): Promise<void> {
  const connection = await checkOut(pool);
  try {
    await connection.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await connection.query('CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
      const { rows } = await connection.query<{ version: number }>('SELECT version FROM schema_migrations');
      const applied = new Set(rows.map((row) => row.version));
      for (let version = 1; version <= migrations.length; version++) {
        if (applied.has(version)) continue;
        await connection.query('BEGIN');
        try {
          await connection.query(migrations[version - 1]);
          await connection.query('INSERT INTO schema_migrations (version) VALUES ($1)', [version]);
          await connection.query('COMMIT');
        } catch (error) {
          await connection.query('ROLLBACK');
          throw new Error(`PostgreSQL migration ${version} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
        }
      }
    } finally {
      await connection.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    connection.release();
  }
}
