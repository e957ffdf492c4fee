/**
 * Effect's metric registry as Prometheus text (exposition format 0.0.4). Effect keeps the metrics (`Metric`); this
 * only writes its snapshot out, so no client library with a registry of its own is needed.
 */

import type { MetricPair } from "effect"
import { Effect, Metric, MetricState } from "effect"

export const CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

const escapeLabel = (value: string) => value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"')
const escapeHelp = (value: string) => value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")

const labels = (tags: ReadonlyArray<readonly [string, string]>): string =>
  tags.length === 0 ? "" : `{${tags.map(([key, value]) => `${key}="${escapeLabel(value)}"`).join(",")}}`

const number = (value: number | bigint): string =>
  typeof value === "bigint"
    ? value.toString()
    : value === Number.POSITIVE_INFINITY
      ? "+Inf"
      : value === Number.NEGATIVE_INFINITY
        ? "-Inf"
        : String(value)

/** The sample lines of one metric and its Prometheus type; none for the kinds not exported (frequency, summary). */
const samples = (
  name: string,
  tags: ReadonlyArray<readonly [string, string]>,
  state: MetricPair.MetricPair.Untyped["metricState"],
): { readonly type: string; readonly lines: ReadonlyArray<string> } | undefined => {
  if (MetricState.isCounterState(state))
    return { type: "counter", lines: [`${name}${labels(tags)} ${number(state.count)}`] }
  if (MetricState.isGaugeState(state))
    return { type: "gauge", lines: [`${name}${labels(tags)} ${number(state.value)}`] }
  if (MetricState.isHistogramState(state)) {
    const buckets = [...state.buckets].filter(([bound]) => bound !== Number.POSITIVE_INFINITY)
    return {
      type: "histogram",
      lines: [
        ...buckets.map(([bound, count]) => `${name}_bucket${labels([...tags, ["le", number(bound)]])} ${count}`),
        `${name}_bucket${labels([...tags, ["le", "+Inf"]])} ${state.count}`,
        `${name}_sum${labels(tags)} ${number(state.sum)}`,
        `${name}_count${labels(tags)} ${state.count}`,
      ],
    }
  }
  return undefined
}

/** The metrics as one exposition document: each family once with its HELP and TYPE, then its samples. */
export const render = (pairs: ReadonlyArray<MetricPair.MetricPair.Untyped>): string => {
  const families = new Map<string, { help: string | undefined; type: string; lines: Array<string> }>()
  const sorted = [...pairs].sort((a, b) => a.metricKey.name.localeCompare(b.metricKey.name))
  for (const { metricKey, metricState } of sorted) {
    const tags = metricKey.tags.map((tag) => [tag.key, tag.value] as const)
    const written = samples(metricKey.name, tags, metricState)
    if (written === undefined) continue
    const family = families.get(metricKey.name)
    if (family === undefined)
      families.set(metricKey.name, {
        help: metricKey.description._tag === "Some" ? metricKey.description.value : undefined,
        type: written.type,
        lines: [...written.lines],
      })
    else family.lines.push(...written.lines)
  }
  const text: Array<string> = []
  for (const [name, family] of families) {
    if (family.help !== undefined) text.push(`# HELP ${name} ${escapeHelp(family.help)}`)
    text.push(`# TYPE ${name} ${family.type}`, ...family.lines)
  }
  return text.length === 0 ? "" : `${text.join("\n")}\n`
}

/** Every metric of this process now, rendered. */
export const exposition: Effect.Effect<string> = Effect.map(Metric.snapshot, render)
