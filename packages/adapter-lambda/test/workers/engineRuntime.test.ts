/** The worker functions' engine: built once per container, built again after a build that failed. */
import { Drain, Engine } from "@webdata/core"
import { Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import * as EngineRuntime from "../../src/workers/EngineRuntime.js"

describe("EngineRuntime", () => {
  it("builds at the first run, reuses the engine after, and builds again after a failed build", async () => {
    let attempts = 0
    const engine = Layer.merge(
      Engine.layer({ worker: false }),
      Layer.effectDiscard(Effect.suspend(() => (++attempts === 1 ? Effect.die("store unreachable") : Effect.void))),
    )
    const runtime = EngineRuntime.make(engine)
    const sweep = Effect.flatMap(Drain.Drain, (drain) => drain.sweep(Date.now() + 1000))
    await expect(runtime.run(sweep)).rejects.toThrow(/store unreachable/)
    expect(await runtime.run(sweep)).toMatchObject({ due: 0 })
    expect(await runtime.run(sweep)).toMatchObject({ due: 0 })
    expect(attempts).toBe(2)
    await runtime.dispose()
  })
})
