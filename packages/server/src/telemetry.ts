/**
 * Traces and metrics for an OpenTelemetry collector when `OTEL_EXPORTER_OTLP_ENDPOINT` is set; nothing otherwise.
 * The OpenTelemetry SDK is imported only then, so that a process without it (a Lambda cold start) never loads it.
 */
import { Config, Effect, Layer, Option } from "effect"

/** The endpoint's layer (the tracer the engine's fibers use, the metric reader), or an empty one. */
export const telemetryFromEnvironment: Layer.Layer<never> = Layer.unwrapEffect(
  Effect.gen(function* () {
    const endpoint = yield* Config.option(Config.string("OTEL_EXPORTER_OTLP_ENDPOINT"))
    if (Option.isNone(endpoint) || endpoint.value.trim() === "") return Layer.empty
    const otlp = yield* Effect.promise(() => import("./otlp.js"))
    return otlp.layer(endpoint.value.trim())
  }).pipe(Effect.orDie),
)
