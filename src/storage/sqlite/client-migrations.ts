// Schema of one Client's database: Document Versions, their immutable generations, chunks with vectors,
// metadata leaves, the hard-delete purge journal and the publication log. One file per Client isolates Clients by construction.

export const CLIENT_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE versions (
    document_id TEXT NOT NULL,
    version_key TEXT NOT NULL,
    active_generation INTEGER,
    created_at TEXT NOT NULL,
    PRIMARY KEY (document_id, version_key)
  ) WITHOUT ROWID;
  CREATE TABLE generations (
    generation INTEGER PRIMARY KEY AUTOINCREMENT,
    document_id TEXT NOT NULL,
    version_key TEXT NOT NULL,
    job_id TEXT,
    state TEXT NOT NULL CHECK (state IN ('staged', 'active', 'retired')),
    created_at TEXT NOT NULL,
    staged_at TEXT NOT NULL,
    activated_at TEXT,
    retired_at TEXT,
    canonical_metadata TEXT NOT NULL,
    entities TEXT NOT NULL,
    embedding TEXT NOT NULL,
    deleted INTEGER NOT NULL DEFAULT 0,
    deleted_at TEXT,
    deleted_by TEXT,
    chunk_count INTEGER NOT NULL,
    manifest TEXT NOT NULL
  );
  CREATE INDEX generations_by_version ON generations (document_id, version_key, generation);
  CREATE INDEX generations_by_state ON generations (state);
  CREATE TABLE chunks (
    generation INTEGER NOT NULL REFERENCES generations (generation) ON DELETE CASCADE,
    chunk_index INTEGER NOT NULL,
    page INTEGER,
    page_label TEXT,
    text TEXT NOT NULL,
    entities TEXT NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (generation, chunk_index)
  ) WITHOUT ROWID;
  CREATE TABLE metadata_leaves (
    generation INTEGER NOT NULL REFERENCES generations (generation) ON DELETE CASCADE,
    ordinal INTEGER NOT NULL,
    path TEXT NOT NULL,
    value TEXT NOT NULL,
    value_type TEXT NOT NULL,
    PRIMARY KEY (generation, ordinal)
  ) WITHOUT ROWID;
  CREATE TABLE purge_journal (
    document_id TEXT NOT NULL,
    version_key TEXT NOT NULL,
    started_at TEXT NOT NULL,
    PRIMARY KEY (document_id, version_key)
  ) WITHOUT ROWID;
  `,
  `
  CREATE TABLE publication_log (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL CHECK (kind IN ('activate', 'remove')),
    document_id TEXT NOT NULL,
    version_key TEXT NOT NULL,
    generation INTEGER,
    at TEXT NOT NULL
  );
  CREATE INDEX publication_log_by_time ON publication_log (at);
  CREATE INDEX generations_by_job ON generations (job_id, state);
  `,
  // Per-Client quotas (docs/configuration.md "Limits") count UTF-8 bytes of chunk text per generation without reading the chunks.
  `
  ALTER TABLE generations ADD COLUMN text_bytes INTEGER NOT NULL DEFAULT 0;
  UPDATE generations SET text_bytes = (SELECT COALESCE(SUM(octet_length(c.text)), 0) FROM chunks c WHERE c.generation = generations.generation)
    WHERE state <> 'retired';
  CREATE INDEX generations_usage ON generations (state, document_id, version_key, chunk_count, text_bytes);
  `,
  // Metadata Discovery readiness: generations whose metadata lane was never indexed (imported pre-discovery data).
  // Every generation this service wrote before indexed its leaves inline, hence the default.
  `
  ALTER TABLE generations ADD COLUMN leaves_indexed INTEGER NOT NULL DEFAULT 1;
  CREATE INDEX generations_unindexed ON generations (state, leaves_indexed);
  `,
  // Each generation's lane data in its persisted binary form (codec/lanes-encoding.ts): api processes load
  // it instead of re-indexing chunk text. Generations written before it have none and are indexed from chunks.
  `
  CREATE TABLE generation_lanes (
    generation INTEGER PRIMARY KEY REFERENCES generations (generation) ON DELETE CASCADE,
    lanes BLOB NOT NULL
  );
  `,
  // Content of a retired generation is removed only after a grace period (readers of the snapshot that still
  // served it fetch its chunk texts from here); this marks what is gone.
  `
  ALTER TABLE generations ADD COLUMN content_removed INTEGER NOT NULL DEFAULT 0;
  UPDATE generations SET content_removed = 1 WHERE state = 'retired';
  CREATE INDEX generations_retired_content ON generations (state, content_removed, retired_at);
  `,
  // Quota usage kept as running totals beside the generations, so checking a quota costs the same whatever the
  // Client holds (it summed every active generation: about 1 ms at 100,000 chunks, on every upload and stage).
  // Triggers keep them in the transaction that changes a generation's state (generations are inserted staged,
  // so only a change of state or a deletion moves them); the totals start from the data.
  `
  CREATE TABLE usage_totals (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    documents INTEGER NOT NULL,
    chunks INTEGER NOT NULL,
    text_bytes INTEGER NOT NULL
  );
  CREATE TABLE active_documents (
    document_id TEXT PRIMARY KEY,
    versions INTEGER NOT NULL
  ) WITHOUT ROWID;
  INSERT INTO active_documents (document_id, versions)
    SELECT document_id, COUNT(*) FROM generations WHERE state = 'active' GROUP BY document_id;
  INSERT INTO usage_totals (id, documents, chunks, text_bytes)
    SELECT 1, (SELECT COUNT(*) FROM active_documents), COALESCE(SUM(chunk_count), 0), COALESCE(SUM(text_bytes), 0)
    FROM generations WHERE state = 'active';
  CREATE TRIGGER usage_generation_enters AFTER UPDATE OF state ON generations
    WHEN NEW.state = 'active' AND OLD.state <> 'active'
  BEGIN
    INSERT INTO active_documents (document_id, versions) VALUES (NEW.document_id, 1)
      ON CONFLICT (document_id) DO UPDATE SET versions = versions + 1;
    UPDATE usage_totals SET chunks = chunks + NEW.chunk_count, text_bytes = text_bytes + NEW.text_bytes,
      documents = documents + (SELECT versions = 1 FROM active_documents WHERE document_id = NEW.document_id)
      WHERE id = 1;
  END;
  CREATE TRIGGER usage_generation_leaves AFTER UPDATE OF state ON generations
    WHEN OLD.state = 'active' AND NEW.state <> 'active'
  BEGIN
    UPDATE active_documents SET versions = versions - 1 WHERE document_id = OLD.document_id;
    UPDATE usage_totals SET chunks = chunks - OLD.chunk_count, text_bytes = text_bytes - OLD.text_bytes,
      documents = documents - (SELECT versions = 0 FROM active_documents WHERE document_id = OLD.document_id)
      WHERE id = 1;
    DELETE FROM active_documents WHERE document_id = OLD.document_id AND versions = 0;
  END;
  CREATE TRIGGER usage_active_generation_deleted AFTER DELETE ON generations
    WHEN OLD.state = 'active'
  BEGIN
    UPDATE active_documents SET versions = versions - 1 WHERE document_id = OLD.document_id;
    UPDATE usage_totals SET chunks = chunks - OLD.chunk_count, text_bytes = text_bytes - OLD.text_bytes,
      documents = documents - (SELECT versions = 0 FROM active_documents WHERE document_id = OLD.document_id)
      WHERE id = 1;
    DELETE FROM active_documents WHERE document_id = OLD.document_id AND versions = 0;
  END;
  `,
  // Chunks move to a rowid table with an index on their key. Stored WITHOUT ROWID, a chunk row (text, entities
  // and a vector: about 2.6 KB) was itself the key of its b-tree, so interior pages held a few keys each, spilled
  // to overflow pages, and finding one chunk read about ten pages: 9 us a chunk, 0.28 ms for the 30 evidence
  // texts of a page of answers, against 0.10 ms now. (Rewriting 100,000 chunks takes about 2 s, once.)
  `
  CREATE TABLE chunks_by_rowid (
    generation INTEGER NOT NULL REFERENCES generations (generation) ON DELETE CASCADE,
    chunk_index INTEGER NOT NULL,
    page INTEGER,
    page_label TEXT,
    text TEXT NOT NULL,
    entities TEXT NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (generation, chunk_index)
  );
  INSERT INTO chunks_by_rowid (generation, chunk_index, page, page_label, text, entities, vector)
    SELECT generation, chunk_index, page, page_label, text, entities, vector FROM chunks;
  DROP TABLE chunks;
  ALTER TABLE chunks_by_rowid RENAME TO chunks;
  `,
  // Each chunk's language (en, ms or other), detected at indexing; chunks indexed before have none.
  `
  ALTER TABLE chunks ADD COLUMN language TEXT;
  `,
  // The publication log came in with no entries for the generations already active (the second migration), and
  // a read guard loads a Client only once its log head is above 0: a Client written before the log, and not
  // written to since, served nothing. Its active generations enter the log now, as activations in generation
  // order, stamped with this upgrade's time (an entry's time is when it entered the log). Only an empty log is
  // filled in: once any entry exists, the first load of the Client reads every active generation whatever the
  // log names, so those are served already.
  `
  INSERT INTO publication_log (kind, document_id, version_key, generation, at)
    SELECT 'activate', document_id, version_key, generation, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
    FROM generations
    WHERE state = 'active' AND NOT EXISTS (SELECT 1 FROM publication_log)
    ORDER BY generation;
  `,
  // The position in the publication log that each FENCING pins this Client's reads to, named by the fence's
  // start (sqlite/publication-log.ts): recorded under the file's write lock by the first read in the fence,
  // so that no append can land between it and the fence. Reads no longer compare entry times with the fence.
  `
  CREATE TABLE IF NOT EXISTS fence_positions (
    fenced_at TEXT PRIMARY KEY,
    seq INTEGER NOT NULL
  ) WITHOUT ROWID;
  DROP INDEX IF EXISTS publication_log_by_time;
  `,
  // The spreadsheet rows each chunk holds (first and last, 1-based), recorded at indexing for sheets and CSV/TSV
  // files; other chunks, and every chunk indexed before, have none.
  `
  ALTER TABLE chunks ADD COLUMN row_first INTEGER;
  ALTER TABLE chunks ADD COLUMN row_last INTEGER;
  `,
];
