/**
 * The offline extractor's quality on the committed fixtures (`bench/extract/`), as `npm run extract -w
 * @webdata/bench` prints it, held at the measured level minus a margin so that a regression fails.
 */
import { describe, expect, it } from "vitest"
import { loadFixtures, scoreFixture, totals } from "../extract/score.js"

/** Measured 2026-11-25: precision 0.993, recall 0.864 over 34 fixtures (bench/README.md, "Offline extractor"). */
const MIN_PRECISION = 0.97
const MIN_RECALL = 0.85

describe("offline extractor benchmark", () => {
  const fixtures = loadFixtures()
  const scores = fixtures.map(scoreFixture)

  it("covers every kind of page", () => {
    const count = (kind: string) => fixtures.filter((fixture) => fixture.kind === kind).length
    expect(fixtures.length).toBeGreaterThanOrEqual(30)
    expect(count("product")).toBeGreaterThanOrEqual(8)
    expect(count("article")).toBeGreaterThanOrEqual(6)
    expect(count("event")).toBeGreaterThanOrEqual(5)
    expect(count("recipe")).toBeGreaterThanOrEqual(5)
    expect(count("job")).toBeGreaterThanOrEqual(5)
  })

  it(`keeps precision ≥ ${MIN_PRECISION} and recall ≥ ${MIN_RECALL}`, () => {
    const overall = totals(scores)
    expect(overall.precision).toBeGreaterThanOrEqual(MIN_PRECISION)
    expect(overall.recall).toBeGreaterThanOrEqual(MIN_RECALL)
  })

  it("fills something right on every page", () => {
    for (const score of scores) expect(score.recallCredit, score.fixture.name).toBeGreaterThan(0)
  })
})
