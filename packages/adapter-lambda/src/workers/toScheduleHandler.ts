/**
 * The scheduled function (an EventBridge rule, every minute): what a long-running worker does in the background, for
 * a deployment whose workers run on demand. It purges expired jobs, sends the webhook deliveries that are due, and
 * wakes workers for work nobody is running: tasks whose worker died (an invocation that hit its timeout leaves leases
 * that run out) and work queued when a message could not be sent.
 */
import { Drain, type EngineServices } from "@webdata/core"
import { Effect, type Layer, Option } from "effect"
import * as EngineRuntime from "./EngineRuntime.js"
import type { LambdaContext, ScheduledEvent } from "./events.js"
import { type SqsQueue, secondsUntil } from "./SqsQueue.js"
import * as WorkMessage from "./WorkMessage.js"

export interface ScheduleHandlerOptions {
  readonly queue: SqsQueue
  /** Most workers one sweep wakes. Default 10. */
  readonly maxWakes?: number
  /** The rule's period: work due later than this is left to the next sweep. Default 60 s. */
  readonly periodMs?: number
  /** Time kept free at the end of an invocation. Default 5 s. */
  readonly marginMs?: number
}

export interface SweepResult {
  /** Tasks due when the sweep ended. */
  readonly due: number
  /** Workers woken. */
  readonly woken: number
}

export type ScheduleHandler = ((event: ScheduledEvent, context: LambdaContext) => Promise<SweepResult>) & {
  readonly dispose: () => Promise<void>
}

export const toScheduleHandler = (
  engine: Layer.Layer<EngineServices>,
  options: ScheduleHandlerOptions,
): ScheduleHandler => {
  const runtime = EngineRuntime.make(engine)
  const maxWakes = options.maxWakes ?? 10
  const periodMs = options.periodMs ?? 60_000
  const marginMs = options.marginMs ?? 5000

  const sweep = Effect.fn("LambdaSchedule.sweep")(function* (remainingMs: number) {
    const drain = yield* Drain.Drain
    const { due, nextDue } = yield* drain.sweep(Date.now() + remainingMs - marginMs)
    // Work due later than the next sweep is that sweep's.
    const later = Option.filter(nextDue, (at) => at - Date.now() < periodMs)
    const woken =
      due > 0
        ? yield* WorkMessage.wakeUpTo(options.queue, Math.min(drain.runsFor(due), maxWakes), "sweep")
        : Option.isSome(later)
          ? yield* Effect.as(
              options.queue.send(WorkMessage.wakes(1, "sweep", { delaySeconds: secondsUntil(later.value) })),
              1,
            )
          : 0
    return { due, woken } satisfies SweepResult
  })

  const handler = (_event: ScheduledEvent, context: LambdaContext): Promise<SweepResult> =>
    runtime.run(sweep(context.getRemainingTimeInMillis()))
  return Object.assign(handler, { dispose: runtime.dispose })
}
