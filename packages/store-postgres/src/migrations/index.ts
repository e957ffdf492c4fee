/** The schema migrations, in order; applied by `@effect/sql`'s Migrator (see `PostgresJobStore.migrate`). */
import * as Migrator from "@effect/sql/Migrator"
import initial from "./0001_initial.js"
import records from "./0002_records.js"
import counters from "./0003_counters.js"
import llmsTxtJobs from "./0004_llmstxt_jobs.js"

export const loader = Migrator.fromRecord({
  "0001_initial": initial,
  "0002_records": records,
  "0003_counters": counters,
  "0004_llmstxt_jobs": llmsTxtJobs,
})
