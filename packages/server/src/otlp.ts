/**
 * OpenTelemetry over OTLP/HTTP (JSON): the engine's spans (`Effect.fn` and `Effect.withSpan` names, the HTTP server's
 * `http.server` spans) and its metrics (Effect's registry, the same that `GET /metrics` renders) sent to
 * `<endpoint>/v1/traces` and `<endpoint>/v1/metrics`. Loaded only when an endpoint is set (`telemetry.ts`).
 */
import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import { OTLPMetricExporter } from "@opentelemetry/exporter-metrics-otlp-http"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics"
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { VERSION } from "@webdata/core"
import type { Layer } from "effect"

/** Metrics are pushed this often (and once more when the process stops). */
const METRICS_INTERVAL_MS = 30_000

export const layer = (endpoint: string): Layer.Layer<never> => {
  const base = endpoint.replace(/\/+$/, "")
  return NodeSdk.layer(() => ({
    resource: { serviceName: "webdata", serviceVersion: VERSION },
    // Batched: a span costs the request nothing but a push onto a buffer; the rest is sent every few seconds.
    spanProcessor: new BatchSpanProcessor(new OTLPTraceExporter({ url: `${base}/v1/traces` })),
    metricReader: new PeriodicExportingMetricReader({
      exporter: new OTLPMetricExporter({ url: `${base}/v1/metrics` }),
      exportIntervalMillis: METRICS_INTERVAL_MS,
    }),
  }))
}
