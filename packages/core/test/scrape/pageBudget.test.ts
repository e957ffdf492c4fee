/**
 * What one hostile page may cost (docs/architecture.md, "Limits on one page"): at most 200 MB of memory over the
 * process's state before it, and its request's timeout. Measured in a child process, whose peak RSS only the pages
 * under test move.
 */
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { expect, it } from "vitest"

const BUDGET_MB = 200
const child = fileURLToPath(new URL("../support/pageBudgetChild.ts", import.meta.url))

interface Measured {
  readonly path: string
  readonly outcome: string
  readonly ms: number
  readonly rssGrowthMb: number
}

const measure = async (path: string): Promise<Measured> => {
  const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", child, path], {
    timeout: 60_000,
  })
  return JSON.parse(stdout.trim()) as Measured
}

it.each([
  ["/table", /^document /],
  ["/line", /^document /],
  ["/stacked", /^SCRAPE_UNSUPPORTED_FILE_ERROR$/],
])(
  "a page %s stays within the budget",
  async (path, outcome) => {
    const measured = await measure(path)
    console.log(JSON.stringify(measured))
    expect(measured.outcome).toMatch(outcome)
    expect(measured.rssGrowthMb).toBeLessThan(BUDGET_MB)
    expect(measured.ms).toBeLessThan(30_000)
  },
  90_000,
)
