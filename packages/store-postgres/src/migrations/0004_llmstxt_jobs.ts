/**
 * Jobs of kind `llmstxt` (llms.txt generation). The kind's check is replaced, not dropped: a row of an unknown kind
 * is still refused. Builds before this one never write the new kind, so they run on a store migrated this far.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE jobs DROP CONSTRAINT jobs_kind_check`
  yield* sql`
    ALTER TABLE jobs ADD CONSTRAINT jobs_kind_check
      CHECK (kind IN ('crawl', 'batch', 'extract', 'agent', 'monitor', 'llmstxt'))`
})
