/**
 * webdata's markdown writer against turndown on the same HTML: the main content of each page of the article corpus
 * (webdata's own selection, as its `html` output gives it). Both parse that HTML and write markdown.
 *
 * - Throughput: MB of content HTML per CPU-second, rounds alternating between the lanes: each writer from the HTML
 *   text (its parser included: htmlparser2 for webdata, turndown's own for turndown), and each writer alone on a tree
 *   parsed beforehand (webdata's `toMarkdown` on htmlparser2's tree; turndown on linkedom's, which it clones first).
 * - Correctness, by what a renderer shows (markdown-it, `render.ts`): pages whose rendered text is the content's
 *   visible text (modulo whitespace; image titles count as text on both sides, since webdata writes a figure's caption
 *   as its image's title), and pages where the rendering shows markdown characters the page does not
 *   have (`*`, `_`, `#`, `` ` ``, `~`, `[`, `]`, `<`, `>`, `&`): stray delimiters and escapes.
 *
 * Run: `npm run markdown-writer -w @webdata/bench` with ARTICLE_BENCHMARK_REPO (see content/corpora.ts); RUNS
 * (default 5), DETAILS=N (print N pages where a writer's rendering differs from the page), BASELINE (the `Content`
 * directory of another build's sources, e.g. `git archive <commit> packages/core/src | tar -x -C <dir>` next to a
 * `node_modules` link: adds the lane "baseline writer", that build's writer on its own parser's trees).
 */
import { existsSync } from "node:fs"
import { extractHtml, parsePage, toMarkdown } from "@webdata/core/content"
import { parseHTML } from "linkedom"
import TurndownService from "turndown"
import { loadCorpora } from "../content/corpora.js"
import { renderMarkdown, textWithTitles } from "./render.js"

const RUNS = Number(process.env.RUNS ?? 5)
const DETAILS = Number(process.env.DETAILS ?? 0)

const [corpus] = loadCorpora("article")
if (corpus === undefined) throw new Error("no corpus")
// Inline images as a plain URL for both writers: markdown-it refuses to render `data:image/svg+xml` destinations.
const contents = corpus.pages.map(
  (page) =>
    extractHtml(page.source, {
      url: page.url,
      onlyMainContent: true,
      includeTags: [],
      excludeTags: [],
      removeBase64Images: true,
      formats: { markdown: false, html: true, links: false, images: false },
    }).html?.replace(/src="data:[^"]*"/g, 'src="https://example.com/inline-image"') ?? "",
)

const turndownService = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced" })
const writers: Record<string, (html: string) => string> = {
  webdata: (html) =>
    extractHtml(html, {
      url: "https://example.com/",
      onlyMainContent: false,
      includeTags: [],
      excludeTags: [],
      removeBase64Images: false,
      formats: { markdown: true, html: false, links: false, images: false },
    }).markdown ?? "",
  turndown: (html) => turndownService.turndown(html),
}

const squash = (text: string) => text.replace(/\s+/g, "")
const SYNTAX = /[*_#`~[\]<>&]/g
const syntaxCounts = (text: string) => {
  const counts = new Map<string, number>()
  for (const [char] of text.matchAll(SYNTAX)) counts.set(char, (counts.get(char) ?? 0) + 1)
  return counts
}
/** Markdown characters the rendering shows more often than the page does. */
const stray = (page: string, shown: string): Array<string> => {
  const expected = syntaxCounts(page)
  return [...syntaxCounts(shown)].filter(([char, count]) => count > (expected.get(char) ?? 0)).map(([char]) => char)
}

const megabytes = contents.reduce((total, html) => total + Buffer.byteLength(html), 0) / 1024 / 1024
console.log(`article corpus: ${contents.length} pages, ${megabytes.toFixed(2)} MB of main-content HTML`)

for (const [name, write] of Object.entries(writers)) {
  let same = 0
  const strays: Array<{ index: number; chars: Array<string> }> = []
  const differing: Array<number> = []
  contents.forEach((html, index) => {
    const visible = textWithTitles(html)
    const shown = textWithTitles(renderMarkdown(write(html)))
    if (squash(shown) === squash(visible)) same++
    else differing.push(index)
    const chars = stray(visible, shown)
    if (chars.length > 0) strays.push({ index, chars })
  })
  const tally = new Map<string, number>()
  for (const { chars } of strays) for (const char of chars) tally.set(char, (tally.get(char) ?? 0) + 1)
  console.log(
    `${name.padEnd(8)} rendered text = page text on ${same}/${contents.length} pages; stray markdown characters on ` +
      `${strays.length} pages (${[...tally].map(([char, count]) => `${char} ${count}`).join(", ") || "none"})`,
  )
  for (const index of differing.slice(0, DETAILS)) {
    const visible = squash(textWithTitles(contents[index]!))
    const shown = squash(textWithTitles(renderMarkdown(write(contents[index]!))))
    let at = 0
    while (at < visible.length && visible[at] === shown[at]) at++
    console.log(
      `  ${corpus.pages[index]!.name}: page …${visible.slice(at, at + 60)}… shown …${shown.slice(at, at + 60)}…`,
    )
  }
}

const ourTrees = contents.map((html) => parsePage(html).body)
const theirTrees = contents.map((html) => parseHTML(`<html><body>${html}</body></html>`).document.body)
const lanes: Record<string, () => void> = {
  webdata: () => {
    for (const html of contents) writers.webdata!(html)
  },
  turndown: () => {
    for (const html of contents) writers.turndown!(html)
  },
  "webdata writer": () => {
    for (const tree of ourTrees) toMarkdown(tree)
  },
  "turndown writer": () => {
    for (const tree of theirTrees) turndownService.turndown(tree as unknown as HTMLElement)
  },
}
if (process.env.BASELINE) {
  type Build = { toMarkdown: typeof toMarkdown; parsePage: typeof parsePage }
  const directory = process.env.BASELINE
  const writerModule = existsSync(`${directory}/Markdown.ts`) ? "Markdown.ts" : "Markdown/ToMarkdown.ts"
  const { toMarkdown: baselineWriter } = (await import(`${directory}/${writerModule}`)) as Build
  const { parsePage: baselineParse } = (await import(`${directory}/Dom.ts`)) as Build
  const baselineTrees = contents.map((html) => baselineParse(html).body)
  lanes["baseline writer"] = () => {
    for (const tree of baselineTrees) baselineWriter(tree)
  }
}
const speeds: Record<string, Array<number>> = Object.fromEntries(Object.keys(lanes).map((name) => [name, []]))
for (let round = 0; round < RUNS; round++)
  for (const [name, lane] of Object.entries(lanes)) {
    const started = process.cpuUsage()
    lane()
    const used = process.cpuUsage(started)
    speeds[name]!.push(megabytes / ((used.user + used.system) / 1e6))
  }
const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0
if (RUNS > 0) {
  for (const [name, runs] of Object.entries(speeds))
    console.log(
      `${name.padEnd(15)} ${median(runs).toFixed(2)} MB/s (runs ${runs.map((run) => run.toFixed(2)).join(" ")})`,
    )
  const ratio = (ours: string, theirs: string) => (median(speeds[ours]!) / median(speeds[theirs]!)).toFixed(1)
  console.log(
    `from HTML: ${ratio("webdata", "turndown")}×; writer alone: ${ratio("webdata writer", "turndown writer")}×`,
  )
  if (speeds["baseline writer"])
    console.log(`writer against the baseline's: ${ratio("webdata writer", "baseline writer")}×`)
}
