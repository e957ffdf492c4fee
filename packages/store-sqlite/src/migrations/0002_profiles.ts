/** Browser profiles that interact sessions save (cookies and storage, JSON), by owner and name. */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // The owner is '' for keyless callers: a primary key column cannot hold NULL the way a lookup needs.
  yield* sql`
    CREATE TABLE profiles (
      owner TEXT NOT NULL,
      name TEXT NOT NULL,
      state TEXT NOT NULL,
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (owner, name)
    )`
})
