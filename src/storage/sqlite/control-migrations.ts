// Schema of the control database: durable jobs with their leases, per-Client discovery readiness, the
// publication authority record, named leases (fences, single-writer locks) and rate-limit windows.
// Append new migrations; never edit one that has shipped.

export const CONTROL_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE jobs (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    job_id TEXT NOT NULL UNIQUE,
    client_id TEXT NOT NULL,
    operation TEXT NOT NULL,
    document_id TEXT NOT NULL,
    version_key TEXT,
    status TEXT NOT NULL,
    request TEXT NOT NULL,
    result TEXT,
    error TEXT,
    error_details TEXT,
    attempts INTEGER NOT NULL DEFAULT 0,
    max_attempts INTEGER NOT NULL,
    next_run_at INTEGER NOT NULL,
    lease_owner TEXT,
    lease_expires_at INTEGER,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    completed_at TEXT
  );
  CREATE INDEX jobs_runnable ON jobs (status, next_run_at);
  CREATE INDEX jobs_by_version ON jobs (client_id, document_id, version_key, seq);
  CREATE TABLE readiness (
    client_id TEXT PRIMARY KEY,
    state TEXT NOT NULL,
    backfill_job_id TEXT,
    updated_at TEXT NOT NULL
  );
  `,
  `
  ALTER TABLE jobs ADD COLUMN publication_wait_since INTEGER;
  CREATE TABLE IF NOT EXISTS client_files (client_id TEXT PRIMARY KEY, file TEXT NOT NULL);
  CREATE TABLE authority (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    mode TEXT NOT NULL CHECK (mode IN ('READY', 'FENCING', 'MAINTENANCE')),
    authority_id TEXT NOT NULL,
    changed_at TEXT NOT NULL
  );
  CREATE TABLE leases (
    name TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    expires_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE rate_hits (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    client_id TEXT NOT NULL,
    bucket TEXT NOT NULL,
    at INTEGER NOT NULL
  );
  CREATE INDEX rate_hits_window ON rate_hits (client_id, bucket, at);
  `,
  `
  CREATE TABLE deployment_secrets (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
  ) WITHOUT ROWID;
  `,
  `
  CREATE TABLE rate_counts (
    client_id TEXT NOT NULL,
    bucket TEXT NOT NULL,
    hits INTEGER NOT NULL,
    PRIMARY KEY (client_id, bucket)
  ) WITHOUT ROWID;
  INSERT INTO rate_counts (client_id, bucket, hits) SELECT client_id, bucket, COUNT(*) FROM rate_hits GROUP BY client_id, bucket;
  `,
  // The authority record is created with the store, once, in READY (a store made before this migration has
  // it already). No process recreates it later: a record that goes missing is corrupted publication state,
  // which fails closed until an operator sets a mode (SqliteAuthorityRepository.setAuthorityMode).
  `
  INSERT OR IGNORE INTO authority (id, mode, authority_id, changed_at)
  VALUES (1, 'READY', lower(hex(randomblob(16))), strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
  `,
  // A job's request moves to a table of its own, written once: SQLite rewrites a whole row (overflow pages
  // included) on every update, and a job's row is updated at each step (claim, heartbeats, progress, outcome)
  // while a text upload's request holds its whole text. Deleting a job deletes its request (foreign keys are on).
  `
  CREATE TABLE job_requests (
    seq INTEGER PRIMARY KEY REFERENCES jobs (seq) ON DELETE CASCADE,
    request TEXT NOT NULL
  );
  INSERT INTO job_requests (seq, request) SELECT seq, request FROM jobs;
  ALTER TABLE jobs DROP COLUMN request;
  `,
  // Clients and keys made at runtime (operator routes). A key row keeps its secret's SHA-256, never the secret;
  // revoking a key deletes its row. A Client of API_KEY_CLIENTS gets a row once an operator changes it.
  `
  CREATE TABLE runtime_clients (
    client_id TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    disabled INTEGER NOT NULL DEFAULT 0,
    rate_limit_per_minute INTEGER,
    search_rate_limit_per_minute INTEGER
  ) WITHOUT ROWID;
  CREATE TABLE issued_keys (
    key_id TEXT PRIMARY KEY,
    client_id TEXT NOT NULL REFERENCES runtime_clients (client_id),
    secret_hash TEXT NOT NULL UNIQUE,
    scopes TEXT NOT NULL,
    expires_at TEXT,
    filter TEXT,
    label TEXT,
    created_at TEXT NOT NULL
  ) WITHOUT ROWID;
  `,
  // Webhooks and their outbox (storage/shared/webhook-rows.ts): a job's outcome and its deliveries commit together.
  // The secret is kept as given: signing needs it in clear (docs/api.md "Webhooks" says so). Times a sender's
  // lease and backoff compare are milliseconds.
  `
  CREATE TABLE webhooks (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    webhook_id TEXT NOT NULL UNIQUE,
    client_id TEXT NOT NULL,
    url TEXT NOT NULL,
    events TEXT NOT NULL,
    secret TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE INDEX webhooks_by_client ON webhooks (client_id, seq);
  CREATE TABLE webhook_deliveries (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    delivery_id TEXT NOT NULL UNIQUE,
    webhook_id TEXT NOT NULL REFERENCES webhooks (webhook_id) ON DELETE CASCADE,
    client_id TEXT NOT NULL,
    job_id TEXT NOT NULL,
    document_id TEXT NOT NULL,
    event TEXT NOT NULL,
    body TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    lease_owner TEXT,
    lease_expires_at INTEGER,
    last_status_code INTEGER,
    last_error TEXT,
    created_at TEXT NOT NULL,
    created_at_ms INTEGER NOT NULL,
    delivered_at TEXT
  );
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
  CREATE INDEX webhook_deliveries_in_order ON webhook_deliveries (webhook_id, document_id, seq);
  CREATE INDEX webhook_deliveries_log ON webhook_deliveries (webhook_id, seq);
  `,
  // Each Client's synonym set (PUT /settings/synonyms), whole, with a version every accepted change increments:
  // a search reads the version alone and parses the set only when it changed (search/synonym-cache.ts).
  `
  CREATE TABLE client_synonyms (
    client_id TEXT PRIMARY KEY,
    rules TEXT NOT NULL,
    version INTEGER NOT NULL
  ) WITHOUT ROWID;
  `,
];
