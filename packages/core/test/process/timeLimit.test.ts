import { describe, expect, it } from "@effect/vitest"
import { Cause, Deferred, Effect, Exit, Fiber } from "effect"
import { timeLimit } from "../../src/Process/TimeLimit.js"

const late = () => "late" as const

describe("timeLimit", () => {
  it.live("gives the effect's value, and its failure, when it ends in time", () =>
    Effect.gen(function* () {
      expect(yield* timeLimit(Effect.delay(Effect.succeed(7), 5), 1_000, late)).toBe(7)
      expect(yield* Effect.flip(timeLimit(Effect.fail("boom" as const), 1_000, late))).toBe("boom")
      const died = yield* Effect.exit(timeLimit(Effect.die("defect"), 1_000, late))
      expect(Exit.isFailure(died) && Cause.isDie(died.cause)).toBe(true)
    }),
  )

  it.live("fails with the timeout's error once the time is up, after interrupting the effect", () =>
    Effect.gen(function* () {
      let interrupted = false
      const started = Date.now()
      const error = yield* Effect.flip(
        timeLimit(
          Effect.never.pipe(
            Effect.onInterrupt(() =>
              Effect.sync(() => {
                interrupted = true
              }),
            ),
          ),
          50,
          late,
        ),
      )
      expect(error).toBe("late")
      expect(interrupted).toBe(true)
      expect(Date.now() - started).toBeGreaterThanOrEqual(45)
    }),
  )

  it.live("interrupts the effect when its caller is interrupted", () =>
    Effect.gen(function* () {
      const began = yield* Deferred.make<void>()
      const stopped = yield* Deferred.make<void>()
      const caller = yield* Effect.fork(
        timeLimit(
          Effect.zipRight(Deferred.succeed(began, undefined), Effect.never).pipe(
            Effect.onInterrupt(() => Deferred.succeed(stopped, undefined)),
          ),
          10_000,
          late,
        ),
      )
      yield* Deferred.await(began)
      const exit = yield* Fiber.interrupt(caller)
      expect(Exit.isInterrupted(exit)).toBe(true)
      expect(yield* Deferred.isDone(stopped)).toBe(true)
    }),
  )

  it.live("clears its timer when the effect ends in time", () =>
    Effect.gen(function* () {
      const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length
      const before = timers()
      expect(yield* timeLimit(Effect.succeed("ok"), 60_000, late)).toBe("ok")
      expect(timers()).toBe(before)
    }),
  )
})
