/**
 * How far V8 lets the main heap grow past its live size before the next full collection. V8 sizes that step for
 * throughput (on a machine with plenty of memory it lets garbage reach several times the live heap and keeps the
 * pages it committed): a crawl whose live heap stays at ~36 MB peaked at 318–495 MB RSS. A smaller step keeps the
 * heap near its live size without a hard limit, so a burst of large pages still fits: 50 % bounded the same crawl to
 * ~210 MB for ~9 % of its speed (bench/README.md, crawl soak).
 *
 * The setting is process-wide (every thread's heap): hosts that run the engine as a service apply it from the
 * environment; the library leaves the host's V8 alone unless asked.
 */
import { setFlagsFromString } from "node:v8"
import { Config, Effect, Layer } from "effect"

/** Applied by servers and workers configured from the environment (`WEBDATA_HEAP_GROWTH_PERCENT`). */
export const DEFAULT_PERCENT = 50

/** Sets the growth step to `percent` % of the live heap; 0 keeps V8's own heuristics. */
export const setHeapGrowth = (percent: number): void => {
  // The flag is read at every collection, so setting it after start-up takes effect (measured in the crawl soak).
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${Math.round(percent)}`)
}

export const layer = (percent: number): Layer.Layer<never> =>
  Layer.effectDiscard(Effect.sync(() => setHeapGrowth(percent)))

/** `WEBDATA_HEAP_GROWTH_PERCENT` (default 50; 0 keeps V8's default). */
export const layerConfig: Layer.Layer<never> = Layer.unwrapEffect(
  Config.integer("WEBDATA_HEAP_GROWTH_PERCENT").pipe(
    Config.validate({ message: "must be 0 or more", validation: (percent) => percent >= 0 }),
    Config.withDefault(DEFAULT_PERCENT),
    Effect.map(layer),
  ),
).pipe(Layer.orDie)
