/**
 * Finding the file parsers at run time: `@webdata/parse` when the app has it installed. Core does not depend on
 * that package (it depends on core); the import names it through a variable so that neither the compiler nor a
 * bundler pulls it in.
 */
import { Effect, type Layer } from "effect"
import type { FileParser } from "./FileParser.js"

interface ParsePackage {
  readonly layerConfig: () => Effect.Effect<Layer.Layer<FileParser>>
}

const PACKAGE = "@webdata/parse"

/** The parsers' layer when the package is installed; undefined otherwise. */
export const discoverParser: Effect.Effect<Layer.Layer<FileParser> | undefined> = Effect.promise(() =>
  import(PACKAGE).then(
    (module: ParsePackage) => module,
    () => undefined,
  ),
).pipe(Effect.flatMap((module) => (module === undefined ? Effect.succeed(undefined) : module.layerConfig())))
