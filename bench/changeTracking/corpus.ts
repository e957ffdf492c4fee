/**
 * The change-tracking false-alert corpus (`corpus/NAME/`: `before.html`, `after.html` and `case.json` =
 * `{ expected: "same" | "changed", edit, ignore? }`) and its verdicts. Each page goes through the markdown conversion
 * a default scrape runs (`extractHtml` with main content on, as `BuildDocument.ts` calls it), then through what
 * change tracking compares (`comparedText`: the title and the normalized markdown) and the case's ignore patterns;
 * the two texts are equal or not.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { extractHtml } from "@webdata/core/content"
import { compileIgnore } from "../../packages/core/src/ChangeTracking/Normalize.js"
import { comparedText } from "../../packages/core/src/ChangeTracking/Track.js"

export const CORPUS = join(import.meta.dirname, "corpus")

export type Verdict = "same" | "changed"

export interface Case {
  readonly name: string
  readonly expected: Verdict
  /** What differs between the two pages, in words. */
  readonly edit: string
  readonly ignore: ReadonlyArray<string>
  readonly before: string
  readonly after: string
}

export const loadCases = (folder = CORPUS): Array<Case> =>
  readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const read = (file: string) => readFileSync(join(folder, name, file), "utf8")
      const spec = JSON.parse(read("case.json")) as {
        readonly expected: Verdict
        readonly edit: string
        readonly ignore?: ReadonlyArray<string>
      }
      return { name, ...spec, ignore: spec.ignore ?? [], before: read("before.html"), after: read("after.html") }
    })

/** The page's markdown, and the text change tracking compares (its title and normalized markdown). */
const convert = (html: string, name: string) => {
  const extracted = extractHtml(html, {
    url: `https://example.test/${name}`,
    onlyMainContent: true,
    includeTags: [],
    excludeTags: [],
    removeBase64Images: true,
    formats: { markdown: true, html: false, links: false, images: false },
  })
  const markdown = extracted.markdown ?? ""
  return { markdown, compared: comparedText(extracted.metadata.title, markdown) }
}

export interface Outcome {
  readonly case: Case
  /** The verdict on the normalized text with the ignore patterns applied. */
  readonly verdict: Verdict
  /** The verdict on the pipeline's markdown as is, for comparison. */
  readonly rawVerdict: Verdict
  /** The compared texts. */
  readonly before: string
  readonly after: string
}

export const judge = (each: Case): Outcome => {
  const ignore = compileIgnore(each.ignore)
  if (!ignore.ok) throw new Error(`${each.name}: invalid ignore pattern ${ignore.pattern}: ${ignore.message}`)
  const first = convert(each.before, each.name)
  const second = convert(each.after, each.name)
  const before = ignore.apply(first.compared)
  const after = ignore.apply(second.compared)
  return {
    case: each,
    verdict: before === after ? "same" : "changed",
    rawVerdict: first.markdown === second.markdown ? "same" : "changed",
    before,
    after,
  }
}

export interface Summary {
  readonly cosmetic: number
  readonly real: number
  /** Cosmetic pairs read as changed. */
  readonly falseAlerts: ReadonlyArray<Outcome>
  /** Real edits read as same. */
  readonly missed: ReadonlyArray<Outcome>
  readonly rawFalseAlerts: number
  readonly rawMissed: number
}

export const summarize = (outcomes: ReadonlyArray<Outcome>): Summary => {
  const cosmetic = outcomes.filter((outcome) => outcome.case.expected === "same")
  const real = outcomes.filter((outcome) => outcome.case.expected === "changed")
  return {
    cosmetic: cosmetic.length,
    real: real.length,
    falseAlerts: cosmetic.filter((outcome) => outcome.verdict === "changed"),
    missed: real.filter((outcome) => outcome.verdict === "same"),
    rawFalseAlerts: cosmetic.filter((outcome) => outcome.rawVerdict === "changed").length,
    rawMissed: real.filter((outcome) => outcome.rawVerdict === "same").length,
  }
}
