import { COLUMNS } from './ftsLayout';

/**
 * Bump when the layout or what the parser extracts changes (v3: Markdown links; v4: token_events; v5: chunks_fts
 * without per-row sizes, columns per length bucket; v6: Porter stemming in chunks_fts): older indexes are rebuilt.
 */
export const SCHEMA_VERSION = 6;

/** chunks_fts's tokenizer (see below for why Porter). */
export const FTS_TOKENIZER = 'porter unicode61 remove_diacritics 2';

export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS documents(
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE,          -- relative to the notes root, '/' separators
  hash TEXT NOT NULL,                 -- xxh3-64 hex of the raw bytes
  mtime_ms REAL NOT NULL,
  size INTEGER NOT NULL,
  title TEXT NOT NULL,
  tier TEXT NOT NULL,                 -- L1 | L2 | L3 (see docs/tiers in README)
  category TEXT,
  status TEXT,
  date TEXT,
  tags TEXT NOT NULL DEFAULT '[]',    -- JSON array
  superseded INTEGER NOT NULL DEFAULT 0,
  frontmatter TEXT NOT NULL DEFAULT '{}', -- JSON object
  warnings TEXT                        -- JSON array of 'line: message'
);
CREATE TABLE IF NOT EXISTS chunks(
  id INTEGER PRIMARY KEY AUTOINCREMENT, -- never reused: a batch indexes in FTS every chunk id above its start
  doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  ord INTEGER NOT NULL,
  heading TEXT NOT NULL,
  text TEXT NOT NULL,
  line INTEGER NOT NULL,
  end_line INTEGER NOT NULL,
  hash TEXT NOT NULL,
  fts_bucket INTEGER NOT NULL DEFAULT 0 -- length bucket of the row in chunks_fts (ftsLayout.ts)
);
CREATE INDEX IF NOT EXISTS chunks_doc ON chunks(doc_id);
-- Contentless, without per-row sizes (columnsize=0: bm25 reads no size record per match), and each field once per
-- length bucket so bm25 keeps each row's length normalisation through its weights (ftsLayout.ts, issue #17).
-- A row is removed with FTS5's 'delete' command and the values it was indexed with (store.ts).
-- Porter stemming over unicode61: "charging" finds "charged", "retries" finds "retry" — the largest single gain in
-- paraphrase recall measured on the ADR corpus (docs/embeddings.md); exact-symbol queries score as before.
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
  ${COLUMNS.join(', ')},
  content='', columnsize=0,
  tokenize='${FTS_TOKENIZER}'
);
CREATE TABLE IF NOT EXISTS links(
  from_doc INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  target TEXT NOT NULL,               -- as written, lower-cased, without heading/alias
  heading TEXT,
  line INTEGER NOT NULL,
  embed INTEGER NOT NULL DEFAULT 0,
  to_doc INTEGER                      -- resolved document, NULL while unresolved
);
CREATE INDEX IF NOT EXISTS links_from ON links(from_doc);
CREATE INDEX IF NOT EXISTS links_to ON links(to_doc);
CREATE INDEX IF NOT EXISTS links_target ON links(target);
-- The token scoreboard: one row per ledger line (.k0maru/refs/ledger.jsonl is the durable record, shared through
-- git; this table is rebuilt from it like everything else here). See src/core/scoreboard/ledgerSync.ts.
CREATE TABLE IF NOT EXISTS token_events(
  id INTEGER PRIMARY KEY,
  ts TEXT NOT NULL,
  kind TEXT NOT NULL,                 -- offload | gc
  source TEXT NOT NULL,               -- cli | mcp | gc | api
  ref TEXT NOT NULL,                  -- node id (offload) or session id (gc)
  tokens_before INTEGER NOT NULL,
  tokens_after INTEGER NOT NULL,
  counted INTEGER NOT NULL            -- 1 when it adds to the totals (see ledgerSync.ts for which do not)
);
CREATE INDEX IF NOT EXISTS token_events_ref ON token_events(kind, ref);
-- The counted events summed per UTC day and kind, kept in step with token_events by the sync, so reading the
-- scoreboard costs O(days), not O(events).
CREATE TABLE IF NOT EXISTS token_days(
  day TEXT NOT NULL,
  kind TEXT NOT NULL,
  events INTEGER NOT NULL,
  tokens_before INTEGER NOT NULL,
  tokens_after INTEGER NOT NULL,
  PRIMARY KEY(day, kind)
) WITHOUT ROWID;
`;
