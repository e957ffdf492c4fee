/**
 * A time limit for an effect that runs once per request (a scrape): what `Effect.timeoutFail` gives, without keeping
 * the effect's result alive after it is used.
 *
 * `Effect.timeoutFail` races the effect against a sleep, on two fibers, and the effect's fiber ends holding its result.
 * Such a fiber that lives through a young-generation collection while its page is fetched is promoted; once finished
 * it is garbage in the old generation until the next full collection, and what it still points to (a scrape's
 * document) survives every young collection meanwhile and is promoted in turn. Measured on the server's engine scraping
 * 100 KB pages one at a time, with the race as the only such holder: a median of 2.9 MB promoted per young collection, 0.3 MB
 * without it (bench/README.md, "Scrapes: what outlived its request").
 *
 * Here the effect runs on one forked fiber that hands its result over through a variable and ends with nothing; a
 * timer stands for the sleep. The caller does not take over the fiber's FiberRefs (a scrape sets none its caller
 * reads).
 */
import { Effect, Exit, Fiber } from "effect"

/**
 * `effect`, failing with `onTimeout()` once `ms` have passed without it ending; it is then interrupted (and
 * awaited). An interruption of the caller interrupts it too.
 */
export const timeLimit = <A, E, R, E2>(
  effect: Effect.Effect<A, E, R>,
  ms: number,
  onTimeout: () => E2,
): Effect.Effect<A, E | E2, R> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.suspend(() => {
      let result: Exit.Exit<A, E> | undefined
      const run = Effect.flatMap(Effect.exit(restore(effect)), (exit) =>
        Effect.sync(() => {
          result = exit
        }),
      )
      return Effect.flatMap(Effect.fork(run), (fiber) =>
        restore(
          Effect.async<A, E | E2>((resume) => {
            let settled = false
            const settle = (outcome: Effect.Effect<A, E | E2>) => {
              if (settled) return
              settled = true
              resume(outcome)
            }
            const timer = setTimeout(
              () => settle(Effect.zipRight(Fiber.interrupt(fiber), Effect.fail(onTimeout()))),
              ms,
            )
            fiber.addObserver((exit) => {
              clearTimeout(timer)
              // A fiber that ended with success has set its result; one that did not was interrupted or died.
              const outcome = Exit.isSuccess(exit) ? result! : Effect.failCause(exit.cause)
              result = undefined
              settle(outcome)
            })
            return Effect.suspend(() => {
              clearTimeout(timer)
              settled = true
              return Fiber.interrupt(fiber)
            })
          }),
        ),
      )
    }),
  )
