/**
 * @webdata/adapter-lambda — webdata's Firecrawl-compatible v2 API on AWS Lambda.
 *
 * Ready handlers configured from the environment (`handler`, `streamingHandler`, `workHandler`, `scheduleHandler`),
 * and factories over an engine layer of your own: `toLambdaHandler` and `toStreamingLambdaHandler` for the API,
 * `toWorkerHandler` for the SQS-triggered workers, `toScheduleHandler` for the scheduled sweep, `SqsWorkQueue` for the
 * engine's side of the queue.
 */
export {
  apiEngine,
  handler,
  LAMBDA_DEFAULT_STORE,
  scheduleFromEnvironment,
  scheduleHandler,
  streamingHandler,
  workerFromEnvironment,
  workHandler,
} from "./fromEnvironment.js"
export * from "./http/index.js"
export type { LambdaContext, ScheduledEvent, SqsBatchResponse, SqsEvent } from "./workers/events.js"
export * as SqsQueue from "./workers/SqsQueue.js"
export * as SqsWorkQueue from "./workers/SqsWorkQueue.js"
export {
  type ScheduleHandler,
  type ScheduleHandlerOptions,
  type SweepResult,
  toScheduleHandler,
} from "./workers/toScheduleHandler.js"
export { toWorkerHandler, type WorkerHandler, type WorkerHandlerOptions } from "./workers/toWorkerHandler.js"
export * as WorkMessage from "./workers/WorkMessage.js"
