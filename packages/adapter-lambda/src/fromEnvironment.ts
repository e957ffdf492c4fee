/**
 * The ready handlers, configured from the environment as the server is (docs/configuration.md: `WEBDATA_STORE`,
 * `WEBDATA_API_KEYS`, `WEBDATA_LLM`, …), so that a function deploys with `Handler: index.handler` and no code:
 *
 * - `handler`: the API for API Gateway (REST or HTTP API), function URLs and ALB; `streamingHandler` for function URLs
 *   in invoke mode RESPONSE_STREAM.
 * - `workHandler`: the workers, triggered by the SQS queue `WEBDATA_WORK_QUEUE_URL`.
 * - `scheduleHandler`: the sweep, triggered by an EventBridge rule every minute.
 *
 * Unlike the server, `WEBDATA_STORE` unset means `memory:` (a function's file system is read-only but for its temporary folder, and
 * a file there is one container's). The memory store serves scrape, map, search and parse; jobs need a store the
 * functions share (`postgres://…`, `redis://…`) and answer 400 `JOBS_NOT_CONFIGURED` without one. With a shared store
 * but no `WEBDATA_WORK_QUEUE_URL`, jobs wait in the store for workers that poll it (`webdata-worker` processes).
 */
import { type EngineServices, WorkQueue } from "@webdata/core"
import { type EnvironmentHostOptions, engineFromEnvironment, StoreFromEnvironment } from "@webdata/server/environment"
import { Effect, Layer } from "effect"
import { checkSettings } from "./checkSettings.js"
import { releaseOnShutdown } from "./http/shutdown.js"
import { toLambdaHandler, toStreamingLambdaHandler } from "./http/toLambdaHandler.js"
import type { LambdaContext, ScheduledEvent, SqsBatchResponse, SqsEvent } from "./workers/events.js"
import * as SqsQueue from "./workers/SqsQueue.js"
import * as SqsWorkQueue from "./workers/SqsWorkQueue.js"
import { type ScheduleHandler, type SweepResult, toScheduleHandler } from "./workers/toScheduleHandler.js"
import { toWorkerHandler, type WorkerHandler } from "./workers/toWorkerHandler.js"

/** What `WEBDATA_STORE` unset means on Lambda. */
export const LAMBDA_DEFAULT_STORE = "memory:"

const storeSpec = () => process.env.WEBDATA_STORE?.trim() || LAMBDA_DEFAULT_STORE

/** Whether every function of the deployment reaches the same store (memory and SQLite are one container's). */
const isShared = (spec: string) => /^(postgres(ql)?|rediss?):\/\//.test(spec)

const queueOf = (): SqsQueue.SqsQueue | undefined => {
  const url = process.env.WEBDATA_WORK_QUEUE_URL?.trim()
  return url ? SqsQueue.fromEnvironment(url) : undefined
}

const engine = (host: EnvironmentHostOptions) => engineFromEnvironment({ defaultStore: LAMBDA_DEFAULT_STORE, ...host })

/**
 * The API function's engine: no worker in it; jobs go to the queue, or are refused where no worker can see them.
 * `statusPageBytes` bounds a job status page (the buffered handler's answers are at most 6 MB).
 */
export const apiEngine = (statusPageBytes?: number): Layer.Layer<EngineServices> =>
  Layer.suspend(() => {
    const spec = storeSpec()
    const queue = queueOf()
    const workQueue = !isShared(spec)
      ? WorkQueue.layerRefusing(
          `Jobs need a store every function of this deployment shares: WEBDATA_STORE=postgres://… or redis://… (${StoreFromEnvironment.redact(spec)} is one Lambda container's)`,
        )
      : queue !== undefined
        ? SqsWorkQueue.layer(queue)
        : undefined
    if (isShared(spec) && queue === undefined)
      Effect.runSync(
        Effect.logWarning(
          "WEBDATA_WORK_QUEUE_URL is not set: jobs wait in the store for workers that poll it (webdata-worker)",
        ),
      )
    return engine({
      worker: false,
      deliverWebhooks: false,
      ...(workQueue !== undefined ? { workQueue } : {}),
      ...(statusPageBytes !== undefined ? { jobs: { statusPageBytes } } : {}),
    })
  })

/** The queue and engine of the worker and schedule functions; a one-line error when the settings cannot work. */
const workerParts = (what: string) => {
  const spec = storeSpec()
  if (!isShared(spec))
    throw new Error(
      `The ${what} needs the store the API function uses: WEBDATA_STORE=postgres://… or redis://… (not ${StoreFromEnvironment.redact(spec)})`,
    )
  const queue = queueOf()
  if (queue === undefined) throw new Error(`The ${what} needs WEBDATA_WORK_QUEUE_URL: the workers' SQS queue`)
  return {
    queue,
    engine: engine({ worker: false, deliverWebhooks: true, workQueue: SqsWorkQueue.layer(queue) }),
  }
}

/** A handler made at its first invocation (settings are read then), released with `dispose`. */
const madeOnFirstUse = <Event, Result>(
  make: () => ((event: Event, context: LambdaContext) => Promise<Result>) & { readonly dispose: () => Promise<void> },
) => {
  let made: ReturnType<typeof make> | undefined
  // Async, so that settings that cannot work reject the invocation rather than throw past the runtime's handling.
  const handler = async (event: Event, context: LambdaContext) => {
    made ??= make()
    return made(event, context)
  }
  return Object.assign(handler, { dispose: async () => made?.dispose() })
}

/** The worker function's handler, over the environment's settings as they are at its first invocation. */
export const workerFromEnvironment = (): WorkerHandler =>
  madeOnFirstUse<SqsEvent, SqsBatchResponse>(() => {
    const { queue, engine } = workerParts("worker function")
    return toWorkerHandler(engine, { queue })
  })

/** The schedule function's handler, over the environment's settings as they are at its first invocation. */
export const scheduleFromEnvironment = (): ScheduleHandler =>
  madeOnFirstUse<ScheduledEvent, SweepResult>(() => {
    const { queue, engine } = workerParts("schedule function")
    return toScheduleHandler(engine, { queue })
  })

/** Status pages of the buffered handler: well under 6 MB, since a character of JSON may take several bytes. */
const BUFFERED_STATUS_PAGE_BYTES = 4 * 1024 * 1024

export const handler = toLambdaHandler(apiEngine(BUFFERED_STATUS_PAGE_BYTES))
export const streamingHandler = toStreamingLambdaHandler(apiEngine())
export const workHandler = workerFromEnvironment()
export const scheduleHandler = scheduleFromEnvironment()

// In a Lambda container the environment is fixed: checked as the module loads, so that a bad setting fails the
// container's initialisation, naming it. The engine one of these built is released when the runtime shuts down.
if (process.env.AWS_LAMBDA_FUNCTION_NAME !== undefined) {
  checkSettings()
  releaseOnShutdown(async () => {
    await Promise.all([handler, streamingHandler, workHandler, scheduleHandler].map((ready) => ready.dispose()))
  })
}
