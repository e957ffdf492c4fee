/**
 * The engine in the CLI's own process, configured from the environment, with the file parsers, and the browser
 * engine when Chromium is found.
 */
import { Engine, type EngineServices } from "@webdata/core/engine"
import type { JobStore } from "@webdata/core/jobs"
import { Effect, Layer } from "effect"

export const localEngine = (store: Layer.Layer<JobStore, unknown>): Layer.Layer<EngineServices> =>
  Layer.unwrapEffect(
    // The browser package loads only when an engine is built (Playwright itself only when a page needs it).
    Effect.promise(() => Promise.all([import("@webdata/browser"), import("@webdata/parse")])).pipe(
      Effect.flatMap(([browser, parse]) =>
        Effect.zipWith(browser.layerConfig(), parse.layerConfig(), (browserLayer, parser) =>
          Engine.layerConfig(store, browserLayer, parser),
        ),
      ),
    ),
  )
