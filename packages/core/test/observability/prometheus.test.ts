import { Effect, Metric, MetricBoundaries } from "effect"
import { describe, expect, it } from "vitest"
import { labelled } from "../../src/Observability/Metrics.js"
import { exposition } from "../../src/Observability/Prometheus.js"

describe("the Prometheus exposition", () => {
  it("writes counters, gauges and cumulative histograms with HELP and TYPE once per family", async () => {
    const counter = Metric.counter("test_events_total", { description: "Events\nseen", incremental: true })
    const gauge = Metric.gauge("test_depth")
    const histogram = Metric.histogram("test_seconds", MetricBoundaries.fromIterable([0.1, 1]), "Latency")
    const text = await Effect.runPromise(
      Effect.gen(function* () {
        yield* Metric.incrementBy(labelled(counter, { kind: "a" }), 2)
        yield* Metric.increment(labelled(counter, { kind: 'quote"back\\slash' }))
        yield* Metric.set(gauge, -3)
        for (const seconds of [0.05, 0.5, 0.7, 5]) yield* Metric.update(histogram, seconds)
        return yield* exposition
      }),
    )
    expect(text.endsWith("\n")).toBe(true)
    expect(text).toContain(
      [
        "# HELP test_events_total Events\\nseen",
        "# TYPE test_events_total counter",
        'test_events_total{kind="a"} 2',
        'test_events_total{kind="quote\\"back\\\\slash"} 1',
      ].join("\n"),
    )
    expect(text).toContain("# TYPE test_depth gauge\ntest_depth -3\n")
    expect(text).toContain(
      [
        "# HELP test_seconds Latency",
        "# TYPE test_seconds histogram",
        'test_seconds_bucket{le="0.1"} 1',
        'test_seconds_bucket{le="1"} 3',
        'test_seconds_bucket{le="+Inf"} 4',
        "test_seconds_sum 6.25",
        "test_seconds_count 4",
      ].join("\n"),
    )
    expect(text.match(/^# TYPE test_events_total /gm)).toHaveLength(1)
    // Every line is a comment or `name{labels} value`: what a Prometheus server parses.
    for (const line of text.trimEnd().split("\n"))
      expect(line).toMatch(
        /^(# (HELP|TYPE) [a-z_]+ .+|[a-z_]+(\{[a-z_]+="(?:[^"\\]|\\.)*"(,[a-z_]+="(?:[^"\\]|\\.)*")*\})? -?[0-9.e+Inf-]+)$/,
      )
  })
})
