/**
 * In-process news for the worker: new work was queued, or a job was cancelled. It only shortens waits; a worker in
 * another process learns the same from the store by polling.
 */
import { Context, Effect, Layer, PubSub, type Queue, type Scope } from "effect"

export type WorkEvent = { readonly _tag: "WorkAdded" } | { readonly _tag: "JobCancelled"; readonly jobId: string }

export class WorkSignal extends Context.Tag("@webdata/core/WorkSignal")<
  WorkSignal,
  {
    readonly publish: (event: WorkEvent) => Effect.Effect<void>
    readonly subscribe: Effect.Effect<Queue.Dequeue<WorkEvent>, never, Scope.Scope>
  }
>() {}

export const layer: Layer.Layer<WorkSignal> = Layer.effect(
  WorkSignal,
  Effect.map(PubSub.sliding<WorkEvent>(1024), (pubsub) => ({
    publish: (event: WorkEvent) => Effect.asVoid(PubSub.publish(pubsub, event)),
    subscribe: PubSub.subscribe(pubsub),
  })),
)
