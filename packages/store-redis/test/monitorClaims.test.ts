/** Monitor checks with two workers, each with connections of its own under one Redis prefix. */
import { Effect } from "effect"
import { runMonitorClaims } from "../../core/test/monitor/claims.js"
import { RedisJobStore } from "../src/index.js"
import { deleteKeys, REDIS_URL, uniquePrefix } from "./support/redis.js"

const prefix = uniquePrefix()
runMonitorClaims(
  "redis",
  () => RedisJobStore.layer({ url: REDIS_URL, prefix }),
  () => Effect.runPromise(Effect.orDie(deleteKeys(prefix))),
)
