/**
 * The FTS index is filled when a search needs it, not as pages are written: tokenizing every crawled page on the
 * crawl's path cost it ~15 % of its pages/s on small pages (bench/README.md, "Crawl"), for an index most crawls never
 * search. `search_index` still gets every page at once; `search_index_fts_state.indexed_through` is the highest `seq`
 * the FTS index holds; a search first indexes the rows past it, as does a process once it has written no page for a
 * while (`SearchBacklog.ts`). `seq` is AUTOINCREMENT, so a row written later always lands past the mark.
 *
 * The delete and update triggers touch the FTS index only for rows it holds: the external-content `delete` command
 * must be given exactly what was indexed, and a row past the mark was never indexed. What is already indexed stays.
 * A process of an older build on the same file searches without indexing the backlog first, so it finds only what a
 * newer one's searches indexed.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE search_index_fts_state (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      indexed_through INTEGER NOT NULL
    )`
  yield* sql`INSERT INTO search_index_fts_state (id, indexed_through) SELECT 1, coalesce(max(seq), 0) FROM search_index`
  yield* sql`DROP TRIGGER search_index_ai`
  yield* sql`DROP TRIGGER search_index_ad`
  yield* sql`DROP TRIGGER search_index_au`
  const indexed = sql`old.seq <= (SELECT indexed_through FROM search_index_fts_state)`
  yield* sql`
    CREATE TRIGGER search_index_ad AFTER DELETE ON search_index WHEN ${indexed} BEGIN
      INSERT INTO search_index_fts (search_index_fts, rowid, title, description, content, url_words)
      VALUES ('delete', old.seq, old.title, old.description, old.content, old.url_words);
    END`
  yield* sql`
    CREATE TRIGGER search_index_au AFTER UPDATE OF title, description, content, url_words ON search_index
    WHEN ${indexed} BEGIN
      INSERT INTO search_index_fts (search_index_fts, rowid, title, description, content, url_words)
      VALUES ('delete', old.seq, old.title, old.description, old.content, old.url_words);
      INSERT INTO search_index_fts (rowid, title, description, content, url_words)
      VALUES (new.seq, new.title, new.description, new.content, new.url_words);
    END`
})
