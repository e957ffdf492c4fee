/**
 * The pages of the local search index, one per owner and URL, and their FTS5 index. The FTS table is external
 * content (the text is stored once, in `search_index`), kept in step by triggers; `url_words` is the URL as words
 * (host without `www.`, decoded path), so that `docs` or `install` find `docs.example.com/install-guide`. The column
 * weights are given to bm25() at query time, so changing them needs no migration.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // The owner is '' for keyless callers: UNIQUE treats NULLs as distinct, so NULL would let a page in twice.
  // AUTOINCREMENT: a seq is never handed out twice, so it names one version of one page for good.
  yield* sql`
    CREATE TABLE search_index (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      owner TEXT NOT NULL,
      url TEXT NOT NULL,
      title TEXT,
      description TEXT,
      content TEXT NOT NULL,
      url_words TEXT NOT NULL,
      scraped_at INTEGER NOT NULL,
      UNIQUE (owner, url)
    )`
  yield* sql`CREATE INDEX search_index_scraped_at ON search_index (scraped_at)`

  // porter: `connections` finds `connected`; remove_diacritics 2: `cafe` finds `café`.
  yield* sql`
    CREATE VIRTUAL TABLE search_index_fts USING fts5(
      title, description, content, url_words,
      content = 'search_index', content_rowid = 'seq',
      tokenize = 'porter unicode61 remove_diacritics 2'
    )`
  // The external-content pattern of the FTS5 documentation: the 'delete' command needs the old values, which only
  // the triggers still see. Writers must DELETE then INSERT (not INSERT OR REPLACE, whose implicit delete fires no
  // trigger unless recursive_triggers is on).
  yield* sql`
    CREATE TRIGGER search_index_ai AFTER INSERT ON search_index BEGIN
      INSERT INTO search_index_fts (rowid, title, description, content, url_words)
      VALUES (new.seq, new.title, new.description, new.content, new.url_words);
    END`
  yield* sql`
    CREATE TRIGGER search_index_ad AFTER DELETE ON search_index BEGIN
      INSERT INTO search_index_fts (search_index_fts, rowid, title, description, content, url_words)
      VALUES ('delete', old.seq, old.title, old.description, old.content, old.url_words);
    END`
  yield* sql`
    CREATE TRIGGER search_index_au AFTER UPDATE ON search_index BEGIN
      INSERT INTO search_index_fts (search_index_fts, rowid, title, description, content, url_words)
      VALUES ('delete', old.seq, old.title, old.description, old.content, old.url_words);
      INSERT INTO search_index_fts (rowid, title, description, content, url_words)
      VALUES (new.seq, new.title, new.description, new.content, new.url_words);
    END`
})
