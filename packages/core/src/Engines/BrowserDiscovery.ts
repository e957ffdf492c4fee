/**
 * Finding the browser engine at run time: `@webdata/browser` when the app has it installed and it finds a Chromium.
 * Core does not depend on that package (it depends on core); the import names it through a variable so that neither
 * the compiler nor a bundler pulls it in.
 */
import { Effect, type Layer } from "effect"
import type { UrlGuard } from "../Net/UrlGuard.js"
import type { BrowserEngine } from "./Browser.js"

interface BrowserPackage {
  readonly layerConfig: () => Effect.Effect<Layer.Layer<BrowserEngine, never, UrlGuard> | undefined>
}

const PACKAGE = "@webdata/browser"

/** The browser engine's layer when the package is installed and a Chromium is found; undefined otherwise. */
export const discoverBrowser: Effect.Effect<Layer.Layer<BrowserEngine, never, UrlGuard> | undefined> = Effect.promise(
  () =>
    import(PACKAGE).then(
      (module: BrowserPackage) => module,
      () => undefined,
    ),
).pipe(Effect.flatMap((module) => (module === undefined ? Effect.succeed(undefined) : module.layerConfig())))
