/** Parsed files (PDF, office documents) in the scrape cache: their pages and properties as JSON beside the body. */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE scrape_cache ADD COLUMN file TEXT`
})
