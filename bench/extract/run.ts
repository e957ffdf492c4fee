/**
 * Offline extractor quality: every fixture page in `fixtures/` through `extractOffline` with its schema, scored field
 * by field against the hand-written expected values (`score.ts`). Prints precision, recall and F1 per kind of page
 * and overall; `VERBOSE=1` also lists each fixture's wrong, missing and extra fields.
 *
 * `npm run extract -w @webdata/bench`
 */
import { loadFixtures, scoreFixture, totals } from "./score.js"

const verbose = process.env.VERBOSE === "1"
const scores = loadFixtures().map(scoreFixture)

const kinds = [...new Set(scores.map((score) => score.fixture.kind))].sort()
const format = (value: number) => value.toFixed(3)

console.log("| kind | fixtures | fields expected | fields filled | precision | recall | F1 |")
console.log("| --- | --- | --- | --- | --- | --- | --- |")
const row = (label: string, subset: typeof scores) => {
  const result = totals(subset)
  const expected = subset.reduce((sum, score) => sum + score.expectedLeaves, 0)
  const filled = subset.reduce((sum, score) => sum + score.filled, 0)
  console.log(
    `| ${label} | ${result.fixtures} | ${expected} | ${filled} | ${format(result.precision)} | ${format(result.recall)} | ${format(result.f1)} |`,
  )
}
for (const kind of kinds)
  row(
    kind,
    scores.filter((score) => score.fixture.kind === kind),
  )
row("**overall**", scores)

const millis = scores.map((score) => score.millis).sort((a, b) => a - b)
console.log(
  `\n${scores.length} pages, median ${millis[Math.floor(millis.length / 2)]!.toFixed(1)} ms a page (first includes warm-up)`,
)

if (verbose)
  for (const score of scores) {
    if (score.misses.length === 0) continue
    console.log(`\n${score.fixture.name}`)
    for (const miss of score.misses) {
      const what = miss.expected === undefined ? "extra" : miss.actual === undefined ? "missing" : "wrong"
      console.log(
        `  ${what.padEnd(7)} ${miss.path}: expected ${JSON.stringify(miss.expected)}, got ${JSON.stringify(miss.actual)}` +
          (miss.actual === undefined ? "" : ` (${score.sources[miss.path.split(/[.[]/)[0]!] ?? "?"})`),
      )
    }
  }
