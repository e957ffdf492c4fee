/** The engine in the CLI's own process, configured from the environment, with the browser engine when Chromium is found. */
import { Engine, type EngineServices } from "@webdata/core/engine"
import type { JobStore } from "@webdata/core/jobs"
import { Effect, Layer } from "effect"

export const localEngine = (store: Layer.Layer<JobStore, unknown>): Layer.Layer<EngineServices> =>
  Layer.unwrapEffect(
    // The browser package loads only when an engine is built (Playwright itself only when a page needs it).
    Effect.promise(() => import("@webdata/browser")).pipe(
      Effect.flatMap((browser) => browser.layerConfig()),
      Effect.map((browser) => Engine.layerConfig(store, browser)),
    ),
  )
