/**
 * The server soak (`bench/soak/soak.ts`) in short: the real server against the hostile fixture site for 20 s of
 * scrapes and crawls. Every answer in time, no undocumented 5xx, every error the envelope, no defect logged, the
 * server up, every hostile route answered, and its heap after full collections back within a bound of the baseline.
 * `npm run soak -w @webdata/bench` runs it for minutes (bench/README.md has the numbers).
 */
import { describe, expect, it } from "vitest"
import { HOSTILE_PATHS, runSoak } from "../soak/soak.js"

/** Measured: about +3 MB after 20 s, +10 MB after 10 min (bench/README.md, "Server soak"). */
const HEAP_GROWTH_MB = 32

describe("server soak (short)", () => {
  it("answers hostile sites in time without defects and returns to its baseline memory", async () => {
    const result = await runSoak({ durationMs: 20_000, scrapers: 3, crawlers: 1 })
    const { scrapes, crawls, crawledPages, outcomes, baseline, final, peakRss } = result
    console.log(JSON.stringify({ scrapes, crawls, crawledPages, outcomes, baseline, final, peakRss }))
    expect(result.problems).toEqual([])
    expect(result.scrapes).toBeGreaterThan(HOSTILE_PATHS.length * 2)
    expect(result.crawls.completed + result.crawls.cancelled).toBeGreaterThanOrEqual(2)
    expect(result.crawledPages).toBeGreaterThan(30)
    // The timeouts, the refusals of oversized pages and redirect loops each happened.
    expect(Object.keys(result.outcomes)).toEqual(
      expect.arrayContaining([
        "200",
        "408 SCRAPE_TIMEOUT",
        "500 SCRAPE_TOO_MANY_REDIRECTS",
        "500 SCRAPE_RESPONSE_TOO_LARGE",
      ]),
    )
    expect((result.final.heapUsed - result.baseline.heapUsed) / 1024 / 1024).toBeLessThan(HEAP_GROWTH_MB)
  }, 120_000)
})
