/**
 * Round trip: for generated HTML, the markdown rendered by a CommonMark + GFM renderer shows the page's visible text
 * (modulo whitespace) and keeps its headings, list nesting, links, code blocks and tables. The generator mixes text
 * that looks like markdown and HTML, emphasis in every position, no-break spaces and line breaks.
 */
import { readdirSync, readFileSync } from "node:fs"
import render from "dom-serializer"
import { type Element, isTag, isText } from "domhandler"
import { textContent } from "domutils"
import fc from "fast-check"
import { parseDocument } from "htmlparser2"
import { describe, expect, it } from "vitest"
import { markdownOf, rendered } from "./support/markdown.js"

const escapeHtml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")

/** Words chosen to look like markdown or HTML where they land. */
const WORDS = [
  "word",
  "Note:",
  "(bold)",
  "1.",
  "1)",
  "2024.",
  "#",
  "##",
  "-",
  "+",
  ">",
  "*",
  "**",
  "_",
  "__",
  "~~",
  "~",
  "`",
  "```",
  "[",
  "]",
  "[a]:",
  "(",
  ")",
  "!",
  "<div>",
  "</p>",
  "<!--",
  "&copy;",
  "&#169;",
  "\\",
  "=",
  "===",
  "---",
  "|",
  "&",
  "<",
  "x_y",
  "a*b",
  "end.",
  "C#",
  "http://site.example/x",
  "<https://a.example>",
  "Ünïcode",
  "日本",
]
const word = fc.constantFrom(...WORDS).map(escapeHtml)
const gap = fc.constantFrom(" ", " ", "&nbsp;", "", "\n  ")
const text = fc.array(fc.tuple(word, gap), { minLength: 1, maxLength: 4 }).map((parts) => parts.flat().join(""))

const inline: fc.Memo<string> = fc.memo((depth) =>
  depth <= 1
    ? text
    : fc.oneof(
        { weight: 4, arbitrary: text },
        {
          weight: 3,
          arbitrary: fc
            .tuple(fc.constantFrom("em", "strong", "b", "i", "del", "span"), gap, inline(depth - 1), gap)
            .map(([tag, before, inner, after]) => `${before}<${tag}>${inner}</${tag}>${after}`),
        },
        {
          weight: 2,
          arbitrary: fc
            .tuple(fc.constantFrom("/a", "/b c", "#part two", "https://other.example/p(1)"), inline(depth - 1))
            .map(([href, inner]) => `<a href="${href}">${inner}</a>`),
        },
        { weight: 1, arbitrary: text.map((code) => `<code>${code}</code>`) },
        { weight: 1, arbitrary: fc.constant("<br>") },
        {
          weight: 3,
          arbitrary: fc.array(inline(depth - 1), { minLength: 2, maxLength: 3 }).map((parts) => parts.join("")),
        },
      ),
)

const list: fc.Memo<string> = fc.memo((depth) =>
  fc
    .tuple(
      fc.constantFrom("ul", "ol"),
      fc.array(
        fc.tuple(
          inline(3),
          depth > 1 ? fc.option(list(depth - 1), { nil: "" }) : fc.constant(""),
          fc.option(inline(2), { nil: "" }),
        ),
        { minLength: 1, maxLength: 3 },
      ),
    )
    .map(
      ([tag, items]) =>
        `<${tag}>${items.map(([head, nested, tail]) => `<li>${head}${nested}${nested ? tail : ""}</li>`).join("")}</${tag}>`,
    ),
)

const table = fc
  .tuple(fc.integer({ min: 2, max: 3 }), fc.integer({ min: 2, max: 3 }))
  .chain(([columns, rows]) =>
    fc.array(fc.array(inline(2), { minLength: columns, maxLength: columns }), { minLength: rows, maxLength: rows }),
  )
  .map(
    (rows) =>
      `<table>${rows.map((cells, r) => `<tr>${cells.map((cell) => (r === 0 ? `<th>${cell}</th>` : `<td>${cell}</td>`)).join("")}</tr>`).join("")}</table>`,
  )

const block: fc.Memo<string> = fc.memo((depth): fc.Arbitrary<string> => {
  const leaves = [
    { weight: 5, arbitrary: inline(4).map((content) => `<p>${content}</p>`) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.integer({ min: 1, max: 4 }), inline(3))
        .map(([level, content]) => `<h${level}>${content}</h${level}>`),
    },
    { weight: 2, arbitrary: list(3) },
    {
      weight: 1,
      arbitrary: fc.array(text, { minLength: 1, maxLength: 3 }).map((lines) => `<pre>${lines.join("\n")}</pre>`),
    },
    { weight: 1, arbitrary: table },
  ]
  if (depth <= 1) return fc.oneof(...leaves)
  return fc.oneof(
    ...leaves,
    {
      weight: 1,
      arbitrary: fc
        .array(block(depth - 1), { minLength: 1, maxLength: 2 })
        .map((blocks) => `<blockquote>${blocks.join("")}</blockquote>`),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom("b", "em"), block(depth - 1))
        .map(([tag, inner]) => `<${tag}>${inner}</${tag}>`),
    },
  )
})

const page = fc.array(block(2), { minLength: 1, maxLength: 5 }).map((blocks) => `<body>${blocks.join("")}</body>`)

const parse = (html: string) => parseDocument(html).children
const squash = (value: string) => value.replace(/\s+/g, "")

/** What the page shows as text (its body's); blocks and breaks are whitespace. */
const visibleText = (html: string) => {
  const nodes = parse(html)
  const [body] = all(html, new Set(["body"]))
  return squash(textContent(body ?? nodes))
}

/** The elements named `tags`, outermost only when `outermost` (links do not nest in markdown). */
const all = (html: string, tags: ReadonlySet<string>, outermost = false): Array<Element> => {
  const found: Array<Element> = []
  const visit = (nodes: ReturnType<typeof parse>) => {
    for (const node of nodes) {
      if (!isTag(node)) continue
      const match = tags.has(node.name)
      if (match) found.push(node)
      if (!(match && outermost)) visit(node.children)
    }
  }
  visit(parse(html))
  return found
}

const headings = (html: string) =>
  all(html, new Set(["h1", "h2", "h3", "h4", "h5", "h6"]))
    .map((heading) => `${heading.name}:${squash(textContent(heading))}`)
    .filter((heading) => !heading.endsWith(":"))
const links = (html: string) =>
  all(html, new Set(["a"]), true)
    .filter((anchor) => squash(textContent(anchor)) !== "")
    .map((anchor) => decodeURI(new URL(anchor.attribs.href ?? "", "https://site.example/page").href))
const codeBlocks = (html: string) => all(html, new Set(["pre"])).map((pre) => textContent(pre).replace(/\n+$/, ""))
const BLOCKS = new Set(["h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "pre", "blockquote", "table"])
const descendants = (element: Element): Array<Element> =>
  element.children.filter(isTag).flatMap((child) => [child, ...descendants(child)])

/** A table of data: some row has two cells, and no cell holds blocks (those lay a page out, and become blocks). */
const isDataTable = (table: Element): boolean => {
  const rows = descendants(table).filter((element) => element.name === "tr")
  const cells = rows.flatMap((row) => row.children.filter(isTag))
  return (
    rows.some((row) => row.children.filter(isTag).length > 1) &&
    cells.every((cell) => {
      const inside = descendants(cell)
      return !inside.some((element) => BLOCKS.has(element.name)) && inside.filter((e) => e.name === "p").length < 2
    })
  )
}

/** The cells with text of the data tables, in order (rows without text are left out of a markdown table). */
const tables = (html: string) =>
  all(html, new Set(["table"]))
    .filter(isDataTable)
    .flatMap((table) => descendants(table).filter((element) => element.name === "th" || element.name === "td"))
    .map((cell) => squash(textContent(cell)))
    .filter((cell) => cell !== "")
/** Each item's own text with its depth: the nesting of lists. */
const items = (html: string) => {
  const out: Array<string> = []
  const visit = (nodes: ReturnType<typeof parse>, depth: number) => {
    for (const node of nodes) {
      if (!isTag(node)) continue
      if (node.name === "li") {
        const own = node.children.filter(
          (child) => isText(child) || (isTag(child) && child.name !== "ul" && child.name !== "ol"),
        )
        out.push(`${depth}:${squash(own.map((child) => textContent(child)).join(""))}`)
      }
      visit(node.children, depth + (node.name === "ul" || node.name === "ol" ? 1 : 0))
    }
  }
  visit(parse(html), 0)
  return out.filter((item) => !item.endsWith(":"))
}

/** The rendered markdown of `html` shows the text and structure of `shownAs` (the page, unless markdown adds to it). */
const expectRoundTrip = (html: string, shownAs = html) => {
  const markdown = markdownOf(html)
  const shown = rendered(markdown)
  // Normalised through the parser as the writer sees it (it fixes nesting the way browsers do).
  const source = render(parse(shownAs))
  const context = `\nHTML: ${html}\nMARKDOWN: ${markdown}\nRENDERED: ${shown}`
  expect(visibleText(shown), context).toBe(visibleText(source))
  expect(headings(shown), context).toEqual(headings(source))
  expect(items(shown), context).toEqual(items(source))
  expect(links(shown), context).toEqual(links(source))
  expect(codeBlocks(shown), context).toEqual(codeBlocks(source))
  expect(tables(shown), context).toEqual(tables(source))
}

describe("markdown round trip", () => {
  it("keeps the text, headings, list nesting, links, code blocks and tables of generated pages", () => {
    fc.assert(
      fc.property(page, (html) => expectRoundTrip(html)),
      {
        numRuns: 400,
        seed: Number(process.env.ROUND_TRIP_SEED ?? 20261124),
      },
    )
  })

  const fixtures = new URL("../fixtures/markdown/", import.meta.url)
  it.each(readdirSync(fixtures))("keeps them on the page %s", (name) => {
    const html = readFileSync(new URL(name, fixtures), "utf8")
    // What markdown adds on purpose: a task box's state, the markers of superscript and subscript, and the label of
    // an icon link; and what it moves: a figure's caption becomes its image's title.
    const shownAs = html
      .replace(/<figcaption>[^<]*<\/figcaption>/g, "")
      .replace(/aria-label="([^"]*)"><svg><\/svg>/g, ">$1")
      .replace(/<input type="checkbox" checked>/g, "[x]")
      .replace(/<input type="checkbox">/g, "[ ]")
      .replace(/<sup>/g, "<sup>^")
      .replace(/<sub>/g, "<sub>_")
    expectRoundTrip(html, shownAs)
  })
})
