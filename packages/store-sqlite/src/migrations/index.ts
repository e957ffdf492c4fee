/** The schema migrations, in order; applied by `@effect/sql`'s Migrator when a store opens. */
import * as Migrator from "@effect/sql/Migrator"
import initial from "./0001_initial.js"
import profiles from "./0002_profiles.js"
import cachedFiles from "./0003_cached_files.js"
import searchIndex from "./0004_search_index.js"
import outboxAndGates from "./0005_outbox_and_gates.js"
import records from "./0006_records.js"
import counters from "./0007_counters.js"
import indexTouch from "./0008_index_touch.js"
import indexOnSearch from "./0009_index_on_search.js"

export const loader = Migrator.fromRecord({
  "0001_initial": initial,
  "0002_profiles": profiles,
  "0003_cached_files": cachedFiles,
  "0004_search_index": searchIndex,
  "0005_outbox_and_gates": outboxAndGates,
  "0006_records": records,
  "0007_counters": counters,
  "0008_index_touch": indexTouch,
  "0009_index_on_search": indexOnSearch,
})
