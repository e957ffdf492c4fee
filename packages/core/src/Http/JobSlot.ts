/** The `jobs` limit's second count, for a request that has just made its job (see `Quotas.confirmJob`). */
import { Effect } from "effect"
import { KeyRing } from "../Tenants/KeyRing.js"
import { Quotas } from "../Tenants/Quotas.js"
import { Caller } from "./Api.js"

export const confirmJobSlot = (jobId: string) =>
  Effect.gen(function* () {
    const caller = yield* Caller
    const keys = yield* KeyRing
    const quotas = yield* Quotas
    yield* quotas.confirmJob(caller.owner, keys.limitsOf(caller.key), jobId)
  })
