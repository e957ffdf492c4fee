/**
 * The email of a finished monitor check: what changed, was added, removed or failed (pages that stayed the same are
 * only counted), with the model's judgment when there is one and, if asked, each change's unified diff. Everything
 * that came from pages or users is escaped in the HTML, and lists and diffs are bounded so that a check of a large
 * site still makes a small email.
 */
import type { PageStatus, Summary } from "./Records.js"

export interface CheckEmailPage {
  readonly url: string
  readonly status: PageStatus
  readonly error?: string | null | undefined
  readonly diff?: { readonly text?: string | undefined } | null | undefined
  readonly judgment?: { readonly meaningful: boolean; readonly reason?: string | undefined } | null | undefined
}

export interface CheckEmailInput {
  readonly monitor: { readonly id: string; readonly name: string; readonly goal?: string | null | undefined }
  readonly check: {
    readonly id: string
    readonly status: string
    readonly finishedAt?: string | undefined
    readonly summary: Summary
  }
  readonly pages: ReadonlyArray<CheckEmailPage>
  readonly includeDiffs: boolean
  /** Where the check can be read in full (its API URL). */
  readonly checkUrl?: string | undefined
}

export interface CheckEmail {
  readonly subject: string
  readonly text: string
  readonly html: string
}

/** Pages listed per section; the rest are counted. */
export const MAX_LISTED_PAGES = 200
/** Characters of one page's diff, and of all diffs of an email together. */
export const MAX_PAGE_DIFF_CHARS = 20_000
export const MAX_TOTAL_DIFF_CHARS = 200_000
/** Characters of a name in the subject, of an error or a judgment's reason, and of a URL shown. */
const MAX_SUBJECT_NAME_CHARS = 100
const MAX_NOTE_CHARS = 1_000
const MAX_URL_CHARS = 2_000

const SECTIONS: ReadonlyArray<{ readonly status: Exclude<PageStatus, "same">; readonly title: string }> = [
  { status: "changed", title: "Changed" },
  { status: "new", title: "New" },
  { status: "removed", title: "Removed" },
  { status: "error", title: "Errors" },
]

const clip = (value: string, max: number): string => (value.length > max ? `${value.slice(0, max - 1)}…` : value)

/** One line of header text: control characters (a newline in a monitor's name) become spaces. */
const oneLine = (value: string): string =>
  value
    .replace(/\p{Cc}+/gu, " ")
    .replace(/\s+/g, " ")
    .trim()

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`

const counts = (summary: Summary): Array<string> =>
  [
    summary.changed > 0 ? `${summary.changed} changed` : undefined,
    summary.new > 0 ? `${summary.new} new` : undefined,
    summary.removed > 0 ? `${summary.removed} removed` : undefined,
    summary.error > 0 ? plural(summary.error, "error", "errors") : undefined,
  ].filter((part) => part !== undefined)

const subjectOf = (input: CheckEmailInput): string => {
  const parts = counts(input.check.summary)
  const outcome = parts.length > 0 ? parts.join(", ") : "no changes"
  const status = input.check.status === "completed" ? "" : ` (check ${oneLine(input.check.status)})`
  return `[webdata] ${clip(oneLine(input.monitor.name), MAX_SUBJECT_NAME_CHARS)}: ${outcome}${status}`
}

const summaryLine = (summary: Summary): string =>
  `${summary.changed} changed, ${summary.new} new, ${summary.removed} removed, ${plural(summary.error, "error", "errors")}, ${summary.same} same (${plural(summary.totalPages, "page", "pages")})`

/** A diff cut to whole lines within `budget` characters, and how many lines were left out. */
interface ClippedDiff {
  readonly lines: ReadonlyArray<string>
  readonly omitted: number
}

/** Shares the total diff budget out page by page, in the order the pages are shown. */
const diffBudget = () => {
  let left = MAX_TOTAL_DIFF_CHARS
  return (text: string): ClippedDiff | undefined => {
    if (left <= 0) return undefined
    const budget = Math.min(MAX_PAGE_DIFF_CHARS, left)
    const all = text.replace(/\r\n?/g, "\n").replace(/\n$/, "").split("\n")
    const lines: Array<string> = []
    let used = 0
    for (const line of all) {
      const cost = line.length + 1
      if (used + cost > budget) {
        // A single line longer than the budget is cut rather than dropped, so that something of it shows.
        if (lines.length === 0) {
          lines.push(clip(line, budget))
          used = budget
        }
        break
      }
      lines.push(line)
      used += cost
    }
    left -= used
    return { lines, omitted: all.length - lines.length }
  }
}

interface ShownPage {
  readonly page: CheckEmailPage
  readonly note: string | undefined
  /** undefined: no diff asked for or none kept; null: the email's diff budget was spent before this page. */
  readonly diff: ClippedDiff | null | undefined
}

const noteOf = (page: CheckEmailPage): string | undefined => {
  if (page.status === "error") return clip(oneLine(page.error ?? "unknown error"), MAX_NOTE_CHARS)
  if (page.judgment === undefined || page.judgment === null) return undefined
  const verdict = page.judgment.meaningful ? "meaningful" : "not meaningful"
  const reason = page.judgment.reason?.trim()
  return reason ? `${verdict}: ${clip(oneLine(reason), MAX_NOTE_CHARS)}` : verdict
}

/** The sections to show, each with its pages (bounded) and how many more there were. */
const sectionsOf = (input: CheckEmailInput) => {
  const takeDiff = diffBudget()
  return SECTIONS.map(({ status, title }) => {
    const all = input.pages.filter((page) => page.status === status)
    const shown: Array<ShownPage> = all.slice(0, MAX_LISTED_PAGES).map((page) => {
      const text = status === "changed" && input.includeDiffs ? page.diff?.text : undefined
      return {
        page,
        note: noteOf(page),
        diff: text === undefined || text === "" ? undefined : (takeDiff(text) ?? null),
      }
    })
    return { title, shown, more: all.length - shown.length }
  }).filter((section) => section.shown.length > 0)
}

const omittedLine = (omitted: number) => `… ${plural(omitted, "more line", "more lines")} of this diff not shown`
const SPENT = "(diff not shown: this email's diffs reached their size limit)"

const renderText = (input: CheckEmailInput, sections: ReturnType<typeof sectionsOf>): string => {
  const out: Array<string> = [`Monitor: ${oneLine(input.monitor.name)}`]
  if (input.monitor.goal) out.push(`Goal: ${oneLine(input.monitor.goal)}`)
  out.push(
    `Check ${input.check.id}: ${input.check.status}${input.check.finishedAt ? `, finished ${input.check.finishedAt}` : ""}`,
    summaryLine(input.check.summary),
  )
  for (const section of sections) {
    out.push("", `${section.title}:`)
    for (const { page, note, diff } of section.shown) {
      out.push(`- ${clip(oneLine(page.url), MAX_URL_CHARS)}`)
      if (note !== undefined) out.push(`  ${note}`)
      if (diff === null) out.push(`  ${SPENT}`)
      else if (diff !== undefined) {
        out.push("", ...diff.lines.map((line) => `    ${line}`))
        if (diff.omitted > 0) out.push(`    ${omittedLine(diff.omitted)}`)
        out.push("")
      }
    }
    if (section.more > 0) out.push(`… and ${section.more} more`)
  }
  if (input.checkUrl !== undefined) out.push("", `The whole check: ${input.checkUrl}`)
  return `${out.join("\n")}\n`
}

const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)

/** A link for whole http(s) URLs only: a page's URL is not to be trusted with another scheme (`javascript:`). */
const link = (url: string): string => {
  const shown = escapeHtml(clip(url, MAX_URL_CHARS))
  const safe = /^https?:\/\//i.test(url) && url.length <= MAX_URL_CHARS
  return safe ? `<a href="${escapeHtml(url)}" style="color:#0b57d0">${shown}</a>` : shown
}

// Inline styles only: mail clients drop style sheets.
const STYLE = {
  body: "font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;font-size:14px;color:#1f2328;line-height:1.5",
  muted: "color:#59636e",
  note: "color:#59636e;margin:2px 0 0",
  // A block per line (not a <pre> of spans): every client, Outlook too, keeps the lines apart.
  diff: "font-family:SFMono-Regular,Consolas,Menlo,monospace;font-size:12px;background:#f6f8fa;border:1px solid #d1d9e0;border-radius:6px;padding:8px;margin:6px 0 12px;overflow-x:auto;white-space:pre-wrap;word-break:break-all",
  added: "color:#116329;background:#dafbe1",
  removed: "color:#82071e;background:#ffebe9",
  hunk: "color:#0550ae",
  context: "color:#1f2328",
} as const

const diffLineStyle = (line: string): string =>
  line.startsWith("+++") || line.startsWith("---")
    ? STYLE.muted
    : line.startsWith("+")
      ? STYLE.added
      : line.startsWith("-")
        ? STYLE.removed
        : line.startsWith("@@")
          ? STYLE.hunk
          : STYLE.context

const renderDiffHtml = (diff: ClippedDiff): string => {
  const lines = diff.lines.map((line) => `<div style="${diffLineStyle(line)}">${escapeHtml(line) || "&nbsp;"}</div>`)
  if (diff.omitted > 0) lines.push(`<div style="${STYLE.muted}">${omittedLine(diff.omitted)}</div>`)
  return `<div style="${STYLE.diff}">${lines.join("")}</div>`
}

const renderHtml = (input: CheckEmailInput, sections: ReturnType<typeof sectionsOf>): string => {
  const out: Array<string> = [
    `<div style="${STYLE.body}">`,
    `<h2 style="margin:0 0 4px">${escapeHtml(input.monitor.name)}</h2>`,
  ]
  if (input.monitor.goal) out.push(`<p style="${STYLE.muted};margin:0">Goal: ${escapeHtml(input.monitor.goal)}</p>`)
  out.push(
    `<p style="${STYLE.muted};margin:0">Check ${escapeHtml(input.check.id)}: ${escapeHtml(input.check.status)}${
      input.check.finishedAt ? `, finished ${escapeHtml(input.check.finishedAt)}` : ""
    }</p>`,
    `<p>${escapeHtml(summaryLine(input.check.summary))}</p>`,
  )
  for (const section of sections) {
    out.push(`<h3 style="margin:16px 0 4px">${section.title}</h3>`, `<ul style="padding-left:20px;margin:0">`)
    for (const { page, note, diff } of section.shown) {
      out.push(`<li style="margin:4px 0">${link(page.url)}`)
      if (note !== undefined) out.push(`<p style="${STYLE.note}">${escapeHtml(note)}</p>`)
      if (diff === null) out.push(`<p style="${STYLE.note}">${SPENT}</p>`)
      else if (diff !== undefined) out.push(renderDiffHtml(diff))
      out.push("</li>")
    }
    out.push("</ul>")
    if (section.more > 0) out.push(`<p style="${STYLE.muted}">… and ${section.more} more</p>`)
  }
  if (input.checkUrl !== undefined) out.push(`<p>The whole check: ${link(input.checkUrl)}</p>`)
  out.push("</div>")
  return `<!doctype html><html><body>${out.join("\n")}</body></html>`
}

/** Subject, plain text and HTML of the email that reports `input.check`. */
export const renderCheckEmail = (input: CheckEmailInput): CheckEmail => {
  const sections = sectionsOf(input)
  return { subject: subjectOf(input), text: renderText(input, sections), html: renderHtml(input, sections) }
}
