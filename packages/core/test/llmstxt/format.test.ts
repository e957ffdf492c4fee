import { describe, expect, it } from "vitest"
import {
  escapeLinkText,
  escapeLinkUrl,
  firstSentence,
  formatLlmsFullTxt,
  formatLlmsTxt,
  type LlmsPage,
  offlineDescription,
  pageLine,
  sectionOf,
  siteTitle,
} from "../../src/LlmsTxt/Format.js"

const withLines = (pages: ReadonlyArray<LlmsPage>) => pages.map((page) => ({ ...page, line: offlineDescription(page) }))

describe("sectionOf", () => {
  it.each([
    ["http://127.0.0.1:8080/", "Pages"],
    ["http://127.0.0.1:8080/about", "Pages"],
    ["http://127.0.0.1:8080/docs/intro", "Docs"],
    ["http://127.0.0.1:8080/docs/api/errors", "Docs"],
    ["http://127.0.0.1:8080/getting-started/install", "Getting started"],
    ["http://127.0.0.1:8080/caf%C3%A9/menu", "Café"],
    ["not a url", "Pages"],
  ])("%s → %s", (url, section) => {
    expect(sectionOf(url)).toBe(section)
  })
})

describe("offlineDescription", () => {
  it.each<[string, LlmsPage, string]>([
    [
      "the meta description first",
      { url: "u", description: " Tools  for\nbuilders. ", markdown: "Other." },
      "Tools for builders.",
    ],
    [
      "else the first sentence of the content, markdown stripped",
      { url: "u", markdown: "# Title\n\nRead **the** [guide](http://127.0.0.1/g). Then more." },
      "Read the guide.",
    ],
    ["a question ends a sentence", { url: "u", markdown: "Why wait? Start now." }, "Why wait?"],
    ["a number's dot does not", { url: "u", markdown: "Version 3.2 is out now" }, "Version 3.2 is out now"],
    ["nothing without either", { url: "u" }, ""],
    ["nothing for headings alone", { url: "u", markdown: "# Only\n\n## Headings" }, ""],
  ])("%s", (_, page, description) => {
    expect(offlineDescription(page)).toBe(description)
  })

  it("cuts a long sentence on a word boundary", () => {
    const text = firstSentence(`${"word ".repeat(80)}end.`)
    expect(text.length).toBeLessThanOrEqual(201)
    expect(text).toMatch(/^word( word)*…$/)
  })
})

describe("link escaping", () => {
  it.each([
    ["[Beta] notes", "\\[Beta\\] notes"],
    ["a\\b", "a\\\\b"],
    ["two\n lines", "two lines"],
  ])("text %j → %j", (text, escaped) => {
    expect(escapeLinkText(text)).toBe(escaped)
  })

  it.each([
    ["http://127.0.0.1/a_(b)", "http://127.0.0.1/a_%28b%29"],
    ["http://127.0.0.1/a b", "http://127.0.0.1/a%20b"],
    ["http://127.0.0.1/plain", "http://127.0.0.1/plain"],
  ])("url %j → %j", (url, escaped) => {
    expect(escapeLinkUrl(url)).toBe(escaped)
  })

  it("writes a line with escaped title and URL, and no text after the colon when there is no description", () => {
    expect(pageLine({ url: "http://127.0.0.1/x_(y)", title: "See ] here" }, "")).toBe(
      "- [See \\] here](http://127.0.0.1/x_%28y%29):",
    )
    expect(pageLine({ url: "http://127.0.0.1/docs/start-here" }, "Begin.")).toBe(
      "- [Start here](http://127.0.0.1/docs/start-here): Begin.",
    )
  })
})

describe("formatLlmsTxt", () => {
  const origin = "http://127.0.0.1:4000"
  const pages: ReadonlyArray<LlmsPage> = [
    { url: `${origin}/`, title: "Acme", description: "Acme makes rockets.", markdown: "# Acme\n\nWelcome." },
    { url: `${origin}/docs/intro`, title: "Intro", markdown: "Start here. Then go on." },
    { url: `${origin}/blog/launch`, title: "Launch", description: "We launched." },
    { url: `${origin}/about`, title: "About", markdown: "" },
    { url: `${origin}/docs/api`, title: "API", markdown: "Calls and errors." },
  ]
  const site = {
    title: siteTitle(`${origin}/`, pages[0]),
    summary: offlineDescription(pages[0]!),
    pages: withLines(pages),
  }

  it("groups pages by their first path segment, root pages first, in the order taken", () => {
    expect(formatLlmsTxt(site)).toBe(
      [
        "# Acme",
        "",
        "> Acme makes rockets.",
        "",
        "## Pages",
        "",
        `- [Acme](${origin}/): Acme makes rockets.`,
        `- [About](${origin}/about):`,
        "",
        "## Docs",
        "",
        `- [Intro](${origin}/docs/intro): Start here.`,
        `- [API](${origin}/docs/api): Calls and errors.`,
        "",
        "## Blog",
        "",
        `- [Launch](${origin}/blog/launch): We launched.`,
        "",
      ].join("\n"),
    )
  })

  it("leaves out the summary line and empty sections", () => {
    const text = formatLlmsTxt({ title: "Site", summary: " ", pages: withLines([pages[1]!]) })
    expect(text).toBe(`# Site\n\n## Docs\n\n- [Intro](${origin}/docs/intro): Start here.\n`)
  })

  it("names the site by its host when the start page has no title", () => {
    expect(siteTitle(`${origin}/`, { url: `${origin}/` })).toBe("127.0.0.1:4000")
  })

  it("puts each page's markdown under its title and URL in the full file", () => {
    expect(formatLlmsFullTxt({ ...site, pages: withLines(pages.slice(0, 2)) })).toBe(
      [
        "# Acme",
        "",
        "> Acme makes rockets.",
        "",
        "## Acme",
        "",
        `Source: ${origin}/`,
        "",
        "# Acme",
        "",
        "Welcome.",
        "",
        "## Intro",
        "",
        `Source: ${origin}/docs/intro`,
        "",
        "Start here. Then go on.",
        "",
      ].join("\n"),
    )
  })
})
