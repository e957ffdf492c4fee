/** The `FileParser` of `@webdata/parse`: every supported kind, parsed on `ParseThreads`. */
import { availableParallelism } from "node:os"
import { FileParser, PARSED_KINDS, ScrapeError } from "@webdata/core/engine"
import { Config, Effect, Layer } from "effect"
import { ParseThreads, type ThreadOptions } from "./ParseThreads.js"

export const make = (options: ThreadOptions) =>
  Effect.map(
    Effect.acquireRelease(
      Effect.sync(() => new ParseThreads(options)),
      (threads) => Effect.promise(() => threads.close()),
    ),
    (threads): FileParser["Type"] => ({
      kinds: PARSED_KINDS,
      parse: (file) =>
        PARSED_KINDS.has(file.kind)
          ? Effect.tryPromise({
              try: (signal) => threads.parse(file, signal),
              catch: (error) =>
                error instanceof ScrapeError
                  ? error
                  : new ScrapeError({ reason: "ParseFailed", url: file.name, message: String(error) }),
            }).pipe(Effect.withSpan("FileParser.parse", { attributes: { kind: file.kind } }))
          : Effect.fail(
              new ScrapeError({
                reason: "UnsupportedContent",
                url: file.name,
                message: `${file.name} is a ${file.kind.toUpperCase()} file, which is not parsed.`,
              }),
            ),
    }),
  )

/** On `threads` parse threads of `maxHeapMb` each (defaults: one thread per core but one, at most 2; 1024 MiB). */
export const layer = (options: Partial<ThreadOptions> = {}): Layer.Layer<FileParser> =>
  Layer.scoped(
    FileParser,
    make({
      threads: options.threads ?? Math.max(1, Math.min(2, availableParallelism() - 1)),
      maxHeapMb: options.maxHeapMb ?? 1024,
    }),
  )

/** From `WEBDATA_PARSE_THREADS` and `WEBDATA_PARSE_THREAD_MB`. */
export const layerConfig = (): Effect.Effect<Layer.Layer<FileParser>> =>
  Effect.gen(function* () {
    const threads = yield* Config.option(Config.integer("WEBDATA_PARSE_THREADS"))
    const maxHeapMb = yield* Config.option(Config.integer("WEBDATA_PARSE_THREAD_MB"))
    return layer({
      ...(threads._tag === "Some" ? { threads: Math.max(1, threads.value) } : {}),
      ...(maxHeapMb._tag === "Some" ? { maxHeapMb: maxHeapMb.value } : {}),
    })
  }).pipe(Effect.orDie)
