import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { lazyModule } from "../../src/Process/LazyModule.js"

describe("lazyModule", () => {
  it.effect("loads once, even when the first uses race, and then answers without loading", () =>
    Effect.gen(function* () {
      let loads = 0
      const module = lazyModule(async () => {
        loads++
        await new Promise((resolve) => setTimeout(resolve, 10))
        return { answer: 42 }
      })
      expect(loads).toBe(0)
      const first = yield* Effect.all([module, module, module], { concurrency: "unbounded" })
      expect(first.map((loaded) => loaded.answer)).toEqual([42, 42, 42])
      expect(yield* module).toBe(first[0])
      expect(loads).toBe(1)
    }),
  )
})
