/**
 * Change-tracking false alerts: every pair of the corpus (`corpus.ts`) compared as the `changeTracking` format
 * compares them, against the hand-written expectation. Prints cosmetic pairs read as changed (false alerts), real
 * edits read as same (missed), and the same counts on the markdown without normalization; each wrong verdict with
 * its diff; `VERBOSE=1` lists every pair.
 *
 * `npm run change-tracking -w @webdata/bench`
 */
import { gitDiff } from "../../packages/core/src/ChangeTracking/Diff.js"
import { judge, loadCases, summarize } from "./corpus.js"

const started = performance.now()
const outcomes = loadCases().map(judge)
const millis = performance.now() - started
const summary = summarize(outcomes)

if (process.env.VERBOSE === "1") {
  console.log("| pair | expected | verdict | raw markdown | edit |")
  console.log("| --- | --- | --- | --- | --- |")
  for (const outcome of outcomes)
    console.log(
      `| ${outcome.case.name} | ${outcome.case.expected} | ${outcome.verdict} | ${outcome.rawVerdict} | ${outcome.case.edit} |`,
    )
  console.log()
}

console.log("| compared text | pairs (cosmetic / real) | false alerts | missed real edits |")
console.log("| --- | --- | --- | --- |")
const pairs = `${outcomes.length} (${summary.cosmetic} / ${summary.real})`
console.log(`| pipeline markdown as is | ${pairs} | ${summary.rawFalseAlerts} | ${summary.rawMissed} |`)
console.log(
  `| title and normalized markdown, ignore patterns applied | ${pairs} | ${summary.falseAlerts.length} | ${summary.missed.length} |`,
)
console.log(`\n${outcomes.length} pairs in ${millis.toFixed(0)} ms`)

for (const outcome of [...summary.falseAlerts, ...summary.missed]) {
  console.log(`\n${outcome.case.name} (expected ${outcome.case.expected}): ${outcome.case.edit}`)
  console.log(gitDiff(outcome.before, outcome.after)?.text ?? "(the compared texts are equal)")
}
