/**
 * File parsing: quality against docling's ground-truth markdown, and speed.
 *
 * Quality: docling's public test documents (PDF, DOCX, XLSX, PPTX with their `groundtruth/*.md`), from a checkout of
 * github.com/docling-project/docling given as `DOCLING_DATA=<checkout>/tests/data`. Each file is read by webdata's
 * parsers (the markdown a user gets), by a plain unpdf text dump (PDF only) and by officeparser (its markdown
 * conversion), and scored with `score.ts`.
 * Speed: text-PDF pages per second on one core (the parser on this thread, against unpdf's plain text extraction in
 * the same run, lanes interleaved) and OCR pages per minute.
 *
 * `npm run parse -w @webdata/bench` (ROUNDS=5; ONLY=pdf|docx|xlsx|pptx scores one format; DETAIL=1 prints each file's
 * scores on stderr; SPEED=0 skips the timings)
 */
import { readdirSync, readFileSync } from "node:fs"
import { basename, join } from "node:path"
import { sniffFile } from "@webdata/core/engine"
import { OfficeConverter } from "officeparser"
import { extractText, getDocumentProxy } from "unpdf"
import { parseFile } from "../../packages/parse/src/parseFile.js"
// What a user gets from a parsed file, as the parser's tests read it.
import { markdownOf } from "../../packages/parse/test/support/markdownOf.js"
import { orderF1, tableF1, textF1 } from "./score.js"

const data = process.env.DOCLING_DATA
if (data === undefined) throw new Error("Set DOCLING_DATA to the tests/data folder of a docling checkout")
const ROUNDS = Number(process.env.ROUNDS ?? 5)

const webdata = async (bytes: Uint8Array, name: string) => {
  const parsed = await parseFile({ bytes, kind: sniffFile(bytes, undefined, name), pdf: { mode: "fast" } })
  return markdownOf(parsed)
}

const unpdfText = async (bytes: Uint8Array) => (await extractText(bytes.slice(), { mergePages: true })).text

const officeparser = async (bytes: Uint8Array) =>
  String((await OfficeConverter.convert(Buffer.from(bytes), "md")).value)

/** (source file, its ground truth) of a format, by docling's naming: `sources/x.ext` ↔ `groundtruth/x[.ext].md`. */
const pairs = (format: string) => {
  const folder = join(data, format)
  const truths = readdirSync(join(folder, "groundtruth")).filter((name) => name.endsWith(".md"))
  const sources = readdirSync(join(folder, "sources")).filter((name) => name.endsWith(`.${format}`))
  return sources
    .map((source) => {
      const stem = source.slice(0, -format.length - 1)
      const truth = truths.find((name) => name === `${source}.md` || name === `${stem}.md`)
      return truth === undefined
        ? undefined
        : { source: join(folder, "sources", source), truth: join(folder, "groundtruth", truth) }
    })
    .filter((pair) => pair !== undefined)
}

interface Scores {
  text: Array<number>
  order: Array<number>
  table: Array<number>
  failed: number
}
const empty = (): Scores => ({ text: [], order: [], table: [], failed: 0 })
const mean = (values: ReadonlyArray<number>) =>
  values.length === 0 ? "—" : (values.reduce((sum, value) => sum + value, 0) / values.length).toFixed(3)

const quality = async () => {
  const only = process.env.ONLY
  console.log("| format | files | system | text F1 | order F1 | table F1 (files with tables) | failed |")
  console.log("| --- | --- | --- | --- | --- | --- | --- |")
  for (const format of ["pdf", "docx", "xlsx", "pptx"].filter((format) => only === undefined || only === format)) {
    const list = pairs(format)
    // officeparser first: its pdf.js (6.x) refuses to run once unpdf's (5.x) has set up pdf.js's worker globals.
    const systems: Record<string, (bytes: Uint8Array, name: string) => Promise<string>> = {
      officeparser,
      webdata,
      ...(format === "pdf" ? { "unpdf text": unpdfText } : {}),
    }
    const scores: Record<string, Scores> = Object.fromEntries(Object.keys(systems).map((name) => [name, empty()]))
    for (const [system, read] of Object.entries(systems))
      for (const { source, truth } of list) {
        const expected = readFileSync(truth, "utf8")
        const bytes = new Uint8Array(readFileSync(source))
        const score = scores[system]!
        const markdown = await read(bytes, basename(source)).catch((error: Error) => {
          if (process.env.DETAIL === "1") console.error(`${system}\t${basename(source)}\tFAILED ${error.message}`)
          return undefined
        })
        if (markdown === undefined) {
          score.failed++
          score.text.push(0)
          score.order.push(0)
          const table = tableF1("", expected)
          if (table !== undefined) score.table.push(table)
          continue
        }
        if (process.env.DETAIL === "1")
          console.error(
            `${system}\t${basename(source)}\ttext ${textF1(markdown, expected).toFixed(3)}\torder ${orderF1(markdown, expected).toFixed(3)}\ttable ${tableF1(markdown, expected)?.toFixed(3) ?? "-"}`,
          )
        score.text.push(textF1(markdown, expected))
        score.order.push(orderF1(markdown, expected))
        const table = tableF1(markdown, expected)
        if (table !== undefined) score.table.push(table)
      }
    for (const [system, score] of Object.entries(scores))
      console.log(
        `| ${format} | ${list.length} | ${system} | ${mean(score.text)} | ${mean(score.order)} | ${mean(score.table)} (${score.table.length}) | ${score.failed} |`,
      )
  }
}

/** Pages per second of one thread: webdata's parser and unpdf's text extraction, interleaved rounds. */
const speed = async () => {
  const file = join(data, "pdf", "sources", "redp5110_sampled.pdf")
  const bytes = new Uint8Array(readFileSync(file))
  const pages = (await getDocumentProxy(bytes.slice())).numPages
  const lanes: Record<string, () => Promise<unknown>> = {
    webdata: () => parseFile({ bytes: bytes.slice(), kind: "pdf", pdf: { mode: "fast" } }),
    "unpdf text": () => extractText(bytes.slice(), { mergePages: true }),
  }
  const rates: Record<string, Array<number>> = { webdata: [], "unpdf text": [] }
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? Object.keys(lanes) : Object.keys(lanes).reverse()
    for (const lane of order) {
      const started = performance.now()
      for (let repeat = 0; repeat < 5; repeat++) await lanes[lane]!()
      rates[lane]!.push((5 * pages) / ((performance.now() - started) / 1000))
    }
  }
  const median = (values: Array<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
  console.log(`\ntext PDF (${basename(file)}, ${pages} pages), one thread, median of ${ROUNDS} rounds:`)
  for (const [lane, values] of Object.entries(rates))
    console.log(
      `  ${lane}: ${median(values).toFixed(1)} pages/s (${values.map((value) => value.toFixed(0)).join(", ")})`,
    )
  console.log(`  ratio webdata / unpdf text: ${(median(rates.webdata!) / median(rates["unpdf text"]!)).toFixed(2)}`)

  const ocrPages = 3
  await parseFile({ bytes: bytes.slice(), kind: "pdf", pdf: { mode: "ocr", maxPages: 1 } }) // the recognizer starts
  const started = performance.now()
  await parseFile({ bytes: bytes.slice(), kind: "pdf", pdf: { mode: "ocr", maxPages: ocrPages } })
  const seconds = (performance.now() - started) / 1000
  console.log(
    `OCR (every page of the same PDF at ~300 DPI): ${((ocrPages / seconds) * 60).toFixed(1)} pages/min (${ocrPages} pages in ${seconds.toFixed(1)} s)`,
  )
}

await quality()
if (process.env.SPEED !== "0") await speed()
process.exit(0)
