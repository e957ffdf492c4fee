/**
 * How work a request started reaches a worker. The job and its tasks are already in the store; the queue only makes a
 * worker take them up: in a server, the worker of the same process (`layerInProcess`, through `WorkSignal`) or other
 * processes that poll or listen to the store; on AWS Lambda, a message to the workers' SQS queue
 * (`@webdata/adapter-lambda`), so that the request's own invocation never runs the work.
 *
 * A lost notice never loses work: the store holds it, and the next sweep (a worker's poll, the Lambda schedule) finds
 * it. So `notify` never fails; a deployment that cannot run jobs at all says so before a job is made (`admit`).
 */
import { Context, Effect, Layer } from "effect"
import { RequestError } from "../Errors.js"
import type { JobKind } from "./JobStore.js"
import { WorkSignal } from "./WorkSignal.js"

export interface WorkNotice {
  /** The job that has work; a worker runs any due work, so it only names what the notice is about. */
  readonly jobId: string
  readonly kind: JobKind
}

export class WorkQueue extends Context.Tag("@webdata/core/WorkQueue")<
  WorkQueue,
  {
    /** Fails, before a job is made, when this deployment cannot run jobs; succeeds everywhere else. */
    readonly admit: Effect.Effect<void, RequestError>
    /** The store holds new work for `notice.jobId`: have a worker take it up. Never fails (see above). */
    readonly notify: (notice: WorkNotice) => Effect.Effect<void>
  }
>() {}

/** Wakes this process's worker; workers of other processes learn of the work from the store. */
export const layerInProcess: Layer.Layer<WorkQueue, never, WorkSignal> = Layer.effect(
  WorkQueue,
  Effect.map(WorkSignal, (signal) =>
    WorkQueue.of({ admit: Effect.void, notify: () => signal.publish({ _tag: "WorkAdded" }) }),
  ),
)

/**
 * Refuses jobs with `reason` (a deployment whose store no worker can share, such as the memory store of a Lambda
 * function): crawl, batch scrape, extract and the agent answer 400 `JOBS_NOT_CONFIGURED`; the rest of the API works.
 */
export const layerRefusing = (reason: string): Layer.Layer<WorkQueue> =>
  Layer.succeed(
    WorkQueue,
    WorkQueue.of({
      admit: Effect.fail(new RequestError({ reason: "Unsupported", code: "JOBS_NOT_CONFIGURED", message: reason })),
      notify: () => Effect.void,
    }),
  )
