/**
 * Content pipeline benchmark: HTML → markdown throughput (MB of HTML per CPU-second, one thread) and extraction
 * quality of webdata's `extractHtml` (main content on) and of the naive pipeline `linkedom + @mozilla/readability +
 * turndown`, in the same run, on public corpora with a gold main text (see corpora.ts for how to get them).
 *
 * Run: `npm run content -w @webdata/bench`. Environment: CORPUS (comma-separated, default "article,readability"),
 * RUNS (throughput rounds, default 5; 0 measures quality only), DETAILS (print the N pages where webdata trails the
 * naive pipeline most), WORST (print the N pages with webdata's lowest rendered F1, with the words it has that the
 * gold lacks: a guide for main-content tuning),
 * BASELINE (path of another build's `Content/ExtractHtml.ts`, e.g. a commit's sources unpacked with `git archive`
 * next to a `node_modules` link: adds it as the pipeline "baseline", to compare changes within one run), VIA=scrape
 * (adds the pipeline "scrape": each page served over loopback HTTP and scraped through the engine, as `/v2/scrape`
 * returns it; use with RUNS=0).
 */
import { Readability } from "@mozilla/readability"
import { extractHtml } from "@webdata/core/content"
import { parseHTML } from "linkedom"
import TurndownService from "turndown"
import { type Corpus, loadCorpora, type Page } from "./corpora.js"
import { type Counts, type PageQuality, pageF1, pageQuality, precision, recall, summarize } from "./quality.js"
import { scrapeAll } from "./viaScrape.js"

const RUNS = Number(process.env.RUNS ?? 5)
const DETAILS = Number(process.env.DETAILS ?? 0)
const WORST = Number(process.env.WORST ?? 0)

type Extract = typeof extractHtml
const options = (page: Page): Parameters<Extract>[1] => ({
  url: page.url,
  onlyMainContent: true,
  includeTags: [],
  excludeTags: [],
  removeBase64Images: true,
  formats: { markdown: true, html: false, links: false, images: false },
})
const markdownOf = (extract: Extract) => (page: Page) => extract(page.source, options(page)).markdown ?? ""

const turndown = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced" })
const naive = (page: Page) => {
  const { document } = parseHTML(page.source)
  try {
    const article = new Readability(document as unknown as Document).parse()
    return article?.content ? turndown.turndown(article.content) : ""
  } catch {
    return ""
  }
}

const pipelines: Record<string, (page: Page) => string> = { webdata: markdownOf(extractHtml), naive }
if (process.env.BASELINE)
  pipelines.baseline = markdownOf(((await import(process.env.BASELINE)) as { extractHtml: Extract }).extractHtml)

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0
const fixed = (value: number, digits = 3) => value.toFixed(digits)

/** Rounds alternate between the pipelines so that heap state and CPU frequency treat both alike. Time is the
 * process's CPU time (user + system, GC threads included), so other load on a shared machine does not skew it. */
const throughput = (corpus: Corpus): Record<string, Array<number>> => {
  const megabytes = corpus.pages.reduce((total, page) => total + Buffer.byteLength(page.source), 0) / 1024 / 1024
  const runs = Object.fromEntries(Object.keys(pipelines).map((name) => [name, [] as Array<number>]))
  for (let round = 0; round < RUNS; round++)
    for (const [name, run] of Object.entries(pipelines)) {
      const started = process.cpuUsage()
      for (const page of corpus.pages) run(page)
      const used = process.cpuUsage(started)
      runs[name]?.push(megabytes / ((used.user + used.system) / 1e6))
    }
  return runs
}

/** webdata's pages with the lowest rendered F1, and the start of the words it shows that the gold does not have. */
const worst = (corpus: Corpus, quality: ReadonlyArray<PageQuality>) => {
  const pages = corpus.pages.map((page, i) => ({ page, quality: quality[i] as PageQuality }))
  pages.sort((a, b) => pageF1(a.quality.rendered) - pageF1(b.quality.rendered))
  console.log(`webdata's ${Math.min(WORST, pages.length)} pages with the lowest rendered F1:`)
  for (const { page, quality } of pages.slice(0, WORST)) {
    const { rendered } = quality
    console.log(
      `  ${page.name.padEnd(40)} rendered F1 ${fixed(pageF1(rendered))} (P ${fixed(precision(rendered))} R ` +
        `${fixed(recall(rendered))}; tp ${rendered.tp} fp ${rendered.fp} fn ${rendered.fn}) ${page.url}`,
    )
    const extra = quality.renderedExtra()
    if (extra.length > 0) console.log(`    not in gold: ${extra.join(" ").slice(0, 300)}`)
  }
}

/** The measures reported, each as F1 (precision, recall). */
const MEASURES = [
  ["token", "token"],
  ["rendered", "rendered"],
  ["shingle", "shingle"],
  ["renderedShingle", "rendered shingle"],
] as const

const report = (corpus: Corpus) => {
  const megabytes = corpus.pages.reduce((total, page) => total + Buffer.byteLength(page.source), 0) / 1024 / 1024
  console.log(`\n## ${corpus.name}: ${corpus.pages.length} pages, ${fixed(megabytes, 2)} MB, ${RUNS} runs`)
  const quality: Record<string, Array<PageQuality>> = {}
  for (const [name, run] of Object.entries(pipelines))
    quality[name] = corpus.pages.map((page) => pageQuality(page.gold, run(page)))
  const speeds = RUNS > 0 ? throughput(corpus) : {}
  const measure = (label: string, counts: ReadonlyArray<Counts>) => {
    const summary = summarize(counts)
    return `${label} F1 ${fixed(summary.f1)} (P ${fixed(summary.precision)} R ${fixed(summary.recall)})`
  }
  for (const name of Object.keys(pipelines)) {
    const pages = quality[name] ?? []
    const runs = speeds[name] ?? []
    const speed = RUNS > 0 ? `${fixed(median(runs), 2)} MB/s (runs ${runs.map((t) => fixed(t, 2)).join(" ")})` : "-"
    const columns = MEASURES.map(([key, label]) =>
      measure(
        label,
        pages.map((q) => q[key]),
      ),
    )
    console.log(`${name.padEnd(8)} ${speed} | ${columns.join(" | ")}`)
  }
  if (DETAILS > 0) {
    const gaps = corpus.pages.map((page, i) => ({
      page,
      ours: quality.webdata?.[i] as PageQuality,
      theirs: quality.naive?.[i] as PageQuality,
    }))
    gaps.sort((a, b) => pageF1(a.ours.token) - pageF1(a.theirs.token) - (pageF1(b.ours.token) - pageF1(b.theirs.token)))
    for (const { page, ours, theirs } of gaps.slice(0, DETAILS))
      console.log(
        `  ${page.name.padEnd(40)} webdata ${fixed(pageF1(ours.token))} (tp ${ours.token.tp} fp ${ours.token.fp} fn ` +
          `${ours.token.fn}) naive ${fixed(pageF1(theirs.token))} (tp ${theirs.token.tp} fp ${theirs.token.fp} fn ${theirs.token.fn})`,
      )
  }
  if (WORST > 0) worst(corpus, quality.webdata ?? [])
}

for (const corpus of loadCorpora(process.env.CORPUS ?? "article,readability")) {
  if (process.env.VIA === "scrape") {
    // Quality only: served over loopback HTTP and scraped through the engine, as `/v2/scrape` returns it.
    const scraped = await scrapeAll(corpus.pages)
    pipelines.scrape = (page) => scraped.get(page) ?? ""
  }
  report(corpus)
}
