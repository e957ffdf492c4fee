/** The `jobs` limit's second count, for a request that has just made its job (see `Quotas.confirmJob`). */
import { Effect } from "effect"
import { JobControl } from "../Jobs/JobControl.js"
import type { Job } from "../Jobs/JobStore.js"
import { KeyRing } from "../Tenants/KeyRing.js"
import { Quotas } from "../Tenants/Quotas.js"
import { Caller } from "./Api.js"

export const confirmJobSlot = (job: Job) =>
  Effect.gen(function* () {
    const caller = yield* Caller
    const keys = yield* KeyRing
    const quotas = yield* Quotas
    const control = yield* JobControl
    yield* quotas.confirmJob(caller.owner, keys.limitsOf(caller.key)).pipe(
      // Past the limit, the job just made is withdrawn: cancelled, and its tasks in this process stopped at once.
      Effect.tapError((refusal) =>
        refusal._tag === "QuotaExceeded" ? Effect.asVoid(control.cancel(job.kind, job.id, job.owner)) : Effect.void,
      ),
    )
  })
