/**
 * The search index's update trigger fires only for the indexed columns: a page crawled again unchanged has its row's
 * `scraped_at` moved forward without the FTS index re-reading its text (a delete and an insert of every word of it).
 * The trigger is replaced as a whole (SQLite has no ALTER TRIGGER); older processes never update the table's indexed
 * columns, so they keep working on it.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`DROP TRIGGER search_index_au`
  yield* sql`
    CREATE TRIGGER search_index_au AFTER UPDATE OF title, description, content, url_words ON search_index BEGIN
      INSERT INTO search_index_fts (search_index_fts, rowid, title, description, content, url_words)
      VALUES ('delete', old.seq, old.title, old.description, old.content, old.url_words);
      INSERT INTO search_index_fts (rowid, title, description, content, url_words)
      VALUES (new.seq, new.title, new.description, new.content, new.url_words);
    END`
})
