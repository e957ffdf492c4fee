/**
 * Content pipeline benchmark: HTML → markdown throughput (MB per CPU-second, one thread) and extraction quality (token F1 against
 * the gold main text) of webdata's pipeline and of the naive pipeline `linkedom + @mozilla/readability + turndown`,
 * in the same run, on Mozilla's Readability test pages (130 real pages with hand-checked expected output).
 *
 * The corpus is not committed. Get it with any clone of https://github.com/mozilla/readability and point
 * READABILITY_REPO at its git directory (default: the bare mirror at /work/.mirror/mozilla+readability/repo).
 * Run: `npm run content -w @webdata/bench` (RUNS=5 by default).
 */
import { execFileSync } from "node:child_process"
import { Readability } from "@mozilla/readability"
import { extractHtml } from "@webdata/core/content"
import { parseHTML } from "linkedom"
import TurndownService from "turndown"

const repo = process.env.READABILITY_REPO ?? "/work/.mirror/mozilla+readability/repo"
const RUNS = Number(process.env.RUNS ?? 5)

const git = (...args: Array<string>) =>
  execFileSync("git", [`--git-dir=${repo}`, ...args], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })

interface Page {
  readonly name: string
  readonly source: string
  readonly gold: string
}

const loadCorpus = (): Array<Page> =>
  git("ls-tree", "--name-only", "HEAD:test/test-pages")
    .split("\n")
    .filter((name) => name !== "")
    .map((name) => ({
      name,
      source: git("show", `HEAD:test/test-pages/${name}/source.html`),
      gold: git("show", `HEAD:test/test-pages/${name}/expected.html`),
    }))

const textOf = (html: string) => parseHTML(`<html><body>${html}</body></html>`).document.body?.textContent ?? ""

/** Words of a markdown text: link targets and markup dropped, so both pipelines are judged on the same footing. */
const markdownWords = (markdown: string) =>
  words(markdown.replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1").replace(/\]\([^)]*\)/g, "]"))
const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []

const f1 = (candidate: ReadonlyArray<string>, gold: ReadonlyArray<string>) => {
  const counts = new Map<string, number>()
  for (const word of gold) counts.set(word, (counts.get(word) ?? 0) + 1)
  let overlap = 0
  for (const word of candidate) {
    const left = counts.get(word) ?? 0
    if (left > 0) {
      overlap++
      counts.set(word, left - 1)
    }
  }
  if (overlap === 0) return { precision: 0, recall: 0, f1: 0 }
  const precision = overlap / candidate.length
  const recall = overlap / gold.length
  return { precision, recall, f1: (2 * precision * recall) / (precision + recall) }
}

const url = "http://fakehost/test/page.html"
const webdata = (html: string) =>
  extractHtml(html, {
    url,
    onlyMainContent: true,
    includeTags: [],
    excludeTags: [],
    removeBase64Images: true,
    formats: { markdown: true, html: false, links: false, images: false },
  }).markdown ?? ""

const turndown = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced" })
const naive = (html: string) => {
  const { document } = parseHTML(html)
  try {
    const article = new Readability(document as unknown as Document).parse()
    return article?.content ? turndown.turndown(article.content) : ""
  } catch {
    return ""
  }
}

const pipelines = { webdata, naive } as const
const corpus = loadCorpus()
const bytes = corpus.reduce((total, page) => total + Buffer.byteLength(page.source), 0)
console.log(`corpus: ${corpus.length} pages, ${(bytes / 1024 / 1024).toFixed(2)} MB, ${RUNS} runs`)

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0
const mean = (values: ReadonlyArray<number>) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length)

// Rounds alternate between the pipelines so that heap state and CPU frequency treat both alike. Time is the process's
// CPU time (user + system, GC threads included), so other load on a shared machine does not skew the comparison.
const throughputs: Record<string, Array<number>> = { webdata: [], naive: [] }
for (let round = 0; round < RUNS; round++)
  for (const [name, run] of Object.entries(pipelines)) {
    const started = process.cpuUsage()
    for (const page of corpus) run(page.source)
    const used = process.cpuUsage(started)
    throughputs[name]?.push(bytes / 1024 / 1024 / ((used.user + used.system) / 1e6))
  }
for (const [name, run] of Object.entries(pipelines)) {
  const quality = corpus.map((page) => f1(markdownWords(run(page.source)), words(textOf(page.gold))))
  const runs = throughputs[name] ?? []
  console.log(
    `${name.padEnd(8)} throughput median ${median(runs).toFixed(2)} MB/s (runs: ${runs.map((t) => t.toFixed(2)).join(", ")}) | ` +
      `F1 mean ${mean(quality.map((q) => q.f1)).toFixed(3)}, precision ${mean(quality.map((q) => q.precision)).toFixed(3)}, ` +
      `recall ${mean(quality.map((q) => q.recall)).toFixed(3)}, median F1 ${median(quality.map((q) => q.f1)).toFixed(3)}`,
  )
}
