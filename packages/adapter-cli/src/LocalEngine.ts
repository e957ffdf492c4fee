/**
 * The engine in the CLI's own process, configured from the environment, with the file parsers, and the browser
 * engine when Chromium is found. What it logs while it is built and from its own fibers (the language model it found,
 * the worker's warnings) goes to stderr: stdout is the command's output (markdown, JSON), which must stay clean for a
 * pipe.
 */
import { Engine, type EngineServices } from "@webdata/core/engine"
import type { JobStore } from "@webdata/core/jobs"
import { type Console, Effect, Layer } from "effect"

/** `console` with `log` and `info` (what Effect's loggers write with) sent to its `error`. */
const toStderr = (console: Console.Console): Console.Console => ({
  ...console,
  log: console.error,
  info: console.error,
  unsafe: { ...console.unsafe, log: console.unsafe.error, info: console.unsafe.error },
})

/** Builds `layer` with that console: fibers forked meanwhile keep it; the command's own console is left as it is. */
export const logsToStderr = <A, E, R>(layer: Layer.Layer<A, E, R>): Layer.Layer<A, E, R> =>
  Layer.locallyEffect(layer, (build) =>
    Effect.flatMap(Effect.console, (console) => Effect.withConsole(build, toStderr(console))),
  )

export const localEngine = (store: Layer.Layer<JobStore, unknown>): Layer.Layer<EngineServices> =>
  Layer.unwrapEffect(
    // The browser package loads only when an engine is built (Playwright itself only when a page needs it).
    Effect.promise(() => Promise.all([import("@webdata/browser"), import("@webdata/parse")])).pipe(
      Effect.flatMap(([browser, parse]) =>
        Effect.zipWith(browser.layerConfig(), parse.layerConfig(), (browserLayer, parser) =>
          // A command stopped with Ctrl-C gives its running tasks back at once rather than after a grace period.
          Engine.layerConfig(store, browserLayer, parser, { shutdownGraceMs: 0 }),
        ),
      ),
    ),
  ).pipe(logsToStderr)
