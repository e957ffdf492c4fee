/** Monitor checks with two workers, each on a connection of its own to one SQLite file. */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { runMonitorClaims } from "../../core/test/monitor/claims.js"
import { SqliteJobStore } from "../src/index.js"

const dir = mkdtempSync(join(tmpdir(), "webdata-monitor-claims-"))
const filename = join(dir, "claims.db")
runMonitorClaims(
  "sqlite",
  () => SqliteJobStore.layer({ filename }),
  async () => rmSync(dir, { recursive: true, force: true }),
)
