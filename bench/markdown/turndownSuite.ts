/**
 * webdata's markdown writer against turndown's public test cases (and those of turndown-plugin-gfm), compared by
 * what the markdown shows: the expected markdown, turndown's output and webdata's output are rendered with
 * markdown-it and normalised (`render.ts`), and a case passes when webdata's rendering is the expected one. A report,
 * not a test: it always exits 0 once it ran; read the differing cases to judge "equal or better".
 *
 * Run: `npm run turndown-suite -w @webdata/bench`. Environment:
 * - TURNDOWN_REPO: git directory of a clone of https://github.com/mixmark-io/turndown (its `test/index.html`);
 * - TURNDOWN_GFM_REPO: git directory of a clone of https://github.com/mixmark-io/turndown-plugin-gfm (the plugin is
 *   not installed, so these cases are compared with their expected markdown only, without turndown's count);
 * - JSON: a path to write every case's result to, as JSON.
 * A suite whose variable is unset is skipped; with neither set the script exits 1.
 */
import { writeFileSync } from "node:fs"
import { extractHtml } from "@webdata/core/content"
import TurndownService from "turndown"
import { normalizedRendering } from "./render.js"
import { loadCases, type TurndownCase } from "./turndownCases.js"

const BASE = "https://example.com/page"

const webdataMarkdown = (html: string): string =>
  extractHtml(html, {
    url: BASE,
    onlyMainContent: false,
    includeTags: [],
    excludeTags: [],
    removeBase64Images: false,
    formats: { markdown: true, html: false, links: false, images: false },
  }).markdown ?? ""

interface CaseResult {
  readonly suite: string
  readonly name: string
  readonly options: Record<string, unknown>
  readonly input: string
  readonly expected: string
  readonly webdata: string
  readonly expectedRendering: string
  readonly webdataRendering: string
  readonly webdataSame: boolean
  /** Absent for the GFM suite (its plugin is not installed). */
  readonly turndown?: string
  readonly turndownRendering?: string
  readonly turndownSame?: boolean
}

const runCase = (suite: string, withTurndown: boolean, testCase: TurndownCase): CaseResult => {
  const expectedRendering = normalizedRendering(testCase.expected, BASE)
  let webdata: string
  try {
    webdata = webdataMarkdown(testCase.input)
  } catch (error) {
    webdata = `(extractHtml threw: ${String(error)})`
  }
  const webdataRendering = normalizedRendering(webdata, BASE)
  const result = {
    suite,
    name: testCase.name,
    options: testCase.options,
    input: testCase.input,
    expected: testCase.expected,
    webdata,
    expectedRendering,
    webdataRendering,
    webdataSame: webdataRendering === expectedRendering,
  }
  if (!withTurndown) return result
  const turndown = new TurndownService(testCase.options as TurndownService.Options).turndown(testCase.input)
  const turndownRendering = normalizedRendering(turndown, BASE)
  return { ...result, turndown, turndownRendering, turndownSame: turndownRendering === expectedRendering }
}

const indent = (text: string) =>
  text
    .trim()
    .split("\n")
    .map((line) => `    ${line}`)
    .join("\n")

const report = (suite: string, results: ReadonlyArray<CaseResult>, withTurndown: boolean) => {
  const differing = results.filter((result) => !result.webdataSame)
  console.log(`\n## ${suite}: ${results.length} cases`)
  console.log(`webdata:  ${results.length - differing.length} same rendering as expected, ${differing.length} differ`)
  if (withTurndown) {
    const same = results.filter((result) => result.turndownSame).length
    console.log(`turndown: ${same} same rendering as expected, ${results.length - same} differ (same normalisation)`)
  } else console.log("turndown: not run (the plugin is not installed; compared with the expected markdown only)")
  for (const result of differing) {
    const options = Object.keys(result.options).length > 0 ? ` ${JSON.stringify(result.options)}` : ""
    const turndown =
      result.turndownSame === undefined ? "" : result.turndownSame ? " (turndown: same)" : " (turndown: differs too)"
    console.log(`\n### ${result.name}${options}${turndown}`)
    console.log(`input:\n${indent(result.input)}`)
    console.log(`expected markdown:\n${indent(result.expected)}`)
    console.log(`webdata markdown:\n${indent(result.webdata)}`)
    console.log(`expected rendering:\n${indent(result.expectedRendering)}`)
    console.log(`webdata rendering:\n${indent(result.webdataRendering)}`)
  }
  return differing.map((result) => result.name)
}

const suites = [
  { suite: "turndown", variable: "TURNDOWN_REPO", source: "mixmark-io/turndown", withTurndown: true },
  {
    suite: "turndown-plugin-gfm",
    variable: "TURNDOWN_GFM_REPO",
    source: "mixmark-io/turndown-plugin-gfm",
    withTurndown: false,
  },
]

if (suites.every(({ variable }) => !process.env[variable])) {
  console.error(
    "Set TURNDOWN_REPO and/or TURNDOWN_GFM_REPO to the git directory of a clone of turndown / turndown-plugin-gfm",
  )
  process.exit(1)
}

const all: Array<CaseResult> = []
const summary: Array<string> = []
for (const { suite, variable, source, withTurndown } of suites) {
  const repo = process.env[variable]
  if (!repo) {
    console.log(`\n## ${suite}: skipped (set ${variable} to the git directory of a clone of ${source})`)
    continue
  }
  const results = loadCases(repo).map((testCase) => runCase(suite, withTurndown, testCase))
  all.push(...results)
  const differing = report(suite, results, withTurndown)
  summary.push(
    `${suite}: ${results.length - differing.length}/${results.length} same; differ: ${differing.join(" | ")}`,
  )
}
console.log(`\n## Summary\n${summary.join("\n")}`)
if (process.env.JSON) writeFileSync(process.env.JSON, `${JSON.stringify(all, null, 2)}\n`)
