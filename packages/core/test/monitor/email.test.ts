/** The email of a finished monitor check: subject, what is listed, escaping, and the bounds on its size. */
import { describe, expect, it } from "@effect/vitest"
import {
  type CheckEmailInput,
  type CheckEmailPage,
  MAX_LISTED_PAGES,
  MAX_PAGE_DIFF_CHARS,
  MAX_TOTAL_DIFF_CHARS,
  renderCheckEmail,
} from "../../src/Monitor/Email.js"

const DIFF = [
  "--- a",
  "+++ b",
  "@@ -1,3 +1,3 @@",
  " # Pricing",
  "-Pro: $10/month",
  "+Pro: $12/month",
  " Contact us",
].join("\n")

/** The counts of `pages`, with `unlisted` more pages that stayed the same. */
const summaryOf = (pages: ReadonlyArray<CheckEmailPage>, unlisted = 0) => ({
  totalPages: pages.length + unlisted,
  same: pages.filter((page) => page.status === "same").length + unlisted,
  changed: pages.filter((page) => page.status === "changed").length,
  new: pages.filter((page) => page.status === "new").length,
  removed: pages.filter((page) => page.status === "removed").length,
  error: pages.filter((page) => page.status === "error").length,
})

const input = (pages: ReadonlyArray<CheckEmailPage>, overrides: Partial<CheckEmailInput> = {}): CheckEmailInput => ({
  monitor: { id: "mon_1", name: "Blog monitor", goal: "Tell me when prices change" },
  check: { id: "chk_1", status: "completed", finishedAt: "2025-06-01T09:00:12.000Z", summary: summaryOf(pages, 7) },
  pages,
  includeDiffs: true,
  checkUrl: "https://webdata.example/v2/monitors/mon_1/checks/chk_1",
  ...overrides,
})

const PAGES: ReadonlyArray<CheckEmailPage> = [
  {
    url: "https://blog.example/pricing",
    status: "changed",
    diff: { text: DIFF },
    judgment: { meaningful: true, reason: "The Pro plan went up by $2." },
  },
  { url: "https://blog.example/about", status: "changed", diff: { text: " a\n-b\n+c" }, judgment: null },
  { url: "https://blog.example/new-post", status: "new" },
  { url: "https://blog.example/old-post", status: "removed" },
  { url: "https://blog.example/broken", status: "error", error: "Timed out after 30000 ms" },
  { url: "https://blog.example/same", status: "same" },
]

describe("subject", () => {
  it("names the monitor and counts what happened", () => {
    expect(renderCheckEmail(input(PAGES)).subject).toBe("[webdata] Blog monitor: 2 changed, 1 new, 1 removed, 1 error")
    const twoAndOne = PAGES.slice(0, 3)
    expect(renderCheckEmail(input(twoAndOne)).subject).toBe("[webdata] Blog monitor: 2 changed, 1 new")
  })

  it("says when nothing changed, and when the check did not complete", () => {
    expect(renderCheckEmail(input([])).subject).toBe("[webdata] Blog monitor: no changes")
    const failed = input(PAGES.slice(4, 5), {
      check: { id: "chk_2", status: "failed", summary: summaryOf(PAGES.slice(4, 5)) },
    })
    expect(renderCheckEmail(failed).subject).toBe("[webdata] Blog monitor: 1 error (check failed)")
  })

  it("is one line of bounded length whatever the name", () => {
    const { subject } = renderCheckEmail(
      input([], { monitor: { id: "m", name: `Evil\r\nBcc: victim@example.com\n${"x".repeat(500)}` } }),
    )
    expect(subject).not.toMatch(/[\r\n]/)
    expect(subject).toContain("Evil Bcc: victim@example.com")
    expect(subject.length).toBeLessThan(150)
  })
})

describe("text", () => {
  const { text } = renderCheckEmail(input(PAGES))

  it("lists changed, new, removed and failed pages, not the same ones", () => {
    expect(text).toContain("Monitor: Blog monitor")
    expect(text).toContain("Goal: Tell me when prices change")
    expect(text).toContain("Check chk_1: completed, finished 2025-06-01T09:00:12.000Z")
    expect(text).toContain("2 changed, 1 new, 1 removed, 1 error, 8 same (13 pages)")
    for (const section of ["Changed:", "New:", "Removed:", "Errors:"]) expect(text).toContain(section)
    expect(text.indexOf("Changed:")).toBeLessThan(text.indexOf("New:"))
    expect(text).toContain("- https://blog.example/new-post")
    expect(text).toContain("- https://blog.example/old-post")
    expect(text).toContain("- https://blog.example/broken\n  Timed out after 30000 ms")
    expect(text).not.toContain("https://blog.example/same")
    expect(text).toContain("The whole check: https://webdata.example/v2/monitors/mon_1/checks/chk_1")
  })

  it("gives the judgment's reason and the diff of changed pages", () => {
    expect(text).toContain("- https://blog.example/pricing\n  meaningful: The Pro plan went up by $2.")
    expect(text).toContain("    -Pro: $10/month\n    +Pro: $12/month")
  })

  it("leaves diffs out unless asked", () => {
    const without = renderCheckEmail(input(PAGES, { includeDiffs: false }))
    expect(without.text).not.toContain("-Pro: $10/month")
    expect(without.html).not.toContain("-Pro: $10/month")
    expect(without.text).toContain("meaningful: The Pro plan went up by $2.")
  })

  it("says when a change was judged not meaningful", () => {
    const page: CheckEmailPage = {
      url: "https://blog.example/x",
      status: "changed",
      judgment: { meaningful: false, reason: "Only the date in the footer." },
    }
    expect(renderCheckEmail(input([page])).text).toContain("not meaningful: Only the date in the footer.")
  })
})

describe("html", () => {
  it("escapes what came from pages and users", () => {
    const hostile: CheckEmailInput = input(
      [
        {
          url: 'https://evil.example/?q="><script>alert(1)</script>',
          status: "changed",
          diff: { text: "-<p>old</p>\n+<script>alert('diff')</script>" },
          judgment: { meaningful: true, reason: "<img src=x onerror=alert(2)>" },
        },
        { url: "javascript:alert(3)", status: "new" },
        { url: "https://evil.example/e", status: "error", error: "<b>boom</b>" },
      ],
      {
        monitor: { id: "m", name: "<script>alert('name')</script>", goal: "<i>goal</i>" },
      },
    )
    const { html } = renderCheckEmail(hostile)
    expect(html).not.toContain("<script")
    expect(html).not.toContain("<img")
    expect(html).not.toContain("<b>boom")
    expect(html).not.toContain("<i>goal")
    expect(html).toContain("&#60;script&#62;alert(&#39;name&#39;)&#60;/script&#62;")
    expect(html).toContain("+&#60;script&#62;alert(&#39;diff&#39;)&#60;/script&#62;")
    // A URL cannot close its attribute, and a javascript: URL is not made a link.
    expect(html).toContain('href="https://evil.example/?q=&#34;&#62;&#60;script&#62;')
    expect(html).not.toContain('href="javascript:')
    expect(html).toContain("javascript:alert(3)")
  })

  it("colours added lines green and removed lines red, with inline styles only", () => {
    const { html } = renderCheckEmail(input(PAGES))
    expect(html).toMatch(/<div style="color:#116329;background:#dafbe1">\+Pro: \$12\/month<\/div>/)
    expect(html).toMatch(/<div style="color:#82071e;background:#ffebe9">-Pro: \$10\/month<\/div>/)
    expect(html).not.toMatch(/<style|class=/)
    expect(html).toContain('<a href="https://blog.example/pricing"')
    expect(html).toContain("The Pro plan went up by $2.")
  })
})

describe("size", () => {
  const bigDiff = (lines: number) => Array.from({ length: lines }, (_, i) => `+line ${i} ${"y".repeat(80)}`).join("\n")

  it("cuts a long diff and says how much was left out", () => {
    const page: CheckEmailPage = { url: "https://big.example/", status: "changed", diff: { text: bigDiff(10_000) } }
    const { text, html } = renderCheckEmail(input([page]))
    expect(text.length).toBeLessThan(MAX_PAGE_DIFF_CHARS * 1.2)
    expect(text).toMatch(/… \d+ more lines of this diff not shown/)
    expect(html).toMatch(/… \d+ more lines of this diff not shown/)
  })

  it("bounds all diffs together, and the number of pages listed", () => {
    const changed: Array<CheckEmailPage> = Array.from({ length: 300 }, (_, i) => ({
      url: `https://big.example/${i}`,
      status: "changed",
      diff: { text: bigDiff(300) },
    }))
    const { text, html } = renderCheckEmail(input(changed))
    expect(text.length).toBeLessThan(MAX_TOTAL_DIFF_CHARS * 1.5)
    expect(html.length).toBeLessThan(MAX_TOTAL_DIFF_CHARS * 4)
    expect(text).toContain("(diff not shown: this email's diffs reached their size limit)")
    expect(text).toContain(`… and ${300 - MAX_LISTED_PAGES} more`)
    expect(text).not.toContain("https://big.example/200\n")
  })

  it("cuts a single line longer than the bound instead of dropping it", () => {
    const page: CheckEmailPage = {
      url: "https://big.example/",
      status: "changed",
      diff: { text: `+${"z".repeat(MAX_PAGE_DIFF_CHARS * 3)}` },
    }
    const { text } = renderCheckEmail(input([page]))
    expect(text).toContain("+zzz")
    expect(text.length).toBeLessThan(MAX_PAGE_DIFF_CHARS * 1.2)
  })

  it("cuts a very long URL, and does not link what it cut", () => {
    const url = `https://big.example/${"p".repeat(10_000)}`
    const { text, html } = renderCheckEmail(input([{ url, status: "new" }]))
    expect(text.length).toBeLessThan(3_000)
    expect(html).not.toContain(`href="${url.slice(0, 100)}`)
  })
})
