/**
 * The engine's `WorkQueue` on SQS: a job a request starts becomes a message to the workers' queue, so that a worker
 * function runs it and the API's invocation returns at once. A message that cannot be sent is logged and left to the
 * schedule's sweep, which finds the job's due work in the store within its period.
 */
import { WorkQueue } from "@webdata/core"
import { Effect, Layer } from "effect"
import type { SqsQueue } from "./SqsQueue.js"
import * as WorkMessage from "./WorkMessage.js"

export const layer = (queue: SqsQueue): Layer.Layer<WorkQueue.WorkQueue> =>
  Layer.succeed(
    WorkQueue.WorkQueue,
    WorkQueue.WorkQueue.of({
      admit: Effect.void,
      notify: (notice) =>
        queue
          .send(WorkMessage.wakes(1, "job", { jobId: notice.jobId }))
          .pipe(
            Effect.catchAll((error) =>
              Effect.logWarning(`Job ${notice.jobId} waits for the schedule's sweep: ${error.message}`),
            ),
          ),
    }),
  )
