/** Runs a strict decoder and hands back its value (`ok`) or its 400 (`bad`), failing the test on the other outcome. */
import { Effect as E, type Effect, Either } from "effect"
import type { RequestError } from "../../src/Errors.js"

export const decoding = <A>(decode: (input: unknown) => Effect.Effect<A, RequestError>) => {
  const run = (input: unknown) => E.runSync(E.either(decode(input)))
  return {
    ok: (input: unknown): A => {
      const result = run(input)
      if (Either.isLeft(result)) throw new Error(`expected success, got ${result.left.message}`)
      return result.right
    },
    bad: (input: unknown): RequestError => {
      const result = run(input)
      if (Either.isRight(result)) throw new Error("expected a validation error")
      return result.left
    },
  }
}
