/** Monitor checks with two workers, each with a pool of its own on one Postgres schema. */
import { Effect } from "effect"
import { runMonitorClaims } from "../../core/test/monitor/claims.js"
import { PostgresJobStore } from "../src/index.js"
import { raw, TEST_URL } from "./support.js"

const schema = `webdata_claims_${process.pid}_${Date.now()}`
runMonitorClaims(
  "postgres",
  () => PostgresJobStore.layer({ url: TEST_URL, schema }),
  () => Effect.runPromise(raw((sql) => sql`DROP SCHEMA IF EXISTS ${sql(schema)} CASCADE`).pipe(Effect.asVoid)),
)
