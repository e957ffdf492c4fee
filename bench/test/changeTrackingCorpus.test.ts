/**
 * The change-tracking false-alert corpus (`bench/changeTracking/`), as `npm run change-tracking -w @webdata/bench`
 * prints it, held at its targets: no real edit missed, at most one false alert.
 */
import { describe, expect, it } from "vitest"
import { gitDiff } from "../../packages/core/src/ChangeTracking/Diff.js"
import { judge, loadCases, summarize } from "../changeTracking/corpus.js"

describe("change-tracking corpus", () => {
  const outcomes = loadCases().map(judge)
  const summary = summarize(outcomes)

  it("holds at least 40 pairs, about half of them cosmetic", () => {
    expect(outcomes.length).toBeGreaterThanOrEqual(40)
    expect(summary.cosmetic).toBeGreaterThanOrEqual(20)
    expect(summary.real).toBeGreaterThanOrEqual(20)
  })

  it("misses no real edit", () => {
    expect(summary.missed.map((outcome) => outcome.case.name)).toEqual([])
  })

  it("raises at most one false alert", () => {
    const names = summary.falseAlerts.map((outcome) => outcome.case.name)
    expect(names.length, names.join(", ")).toBeLessThanOrEqual(1)
  })

  it("gives a diff exactly for the pairs read as changed", () => {
    for (const outcome of outcomes)
      expect(gitDiff(outcome.before, outcome.after) === undefined, outcome.case.name).toBe(outcome.verdict === "same")
  })
})
