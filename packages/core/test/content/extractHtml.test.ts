import { describe, expect, it } from "vitest"
import { extractHtml, type HtmlExtractionOptions } from "../../src/Content/ExtractHtml.js"
import { textToMarkdown } from "../../src/Content/TextToMarkdown.js"

const options = (overrides: Partial<HtmlExtractionOptions> = {}): HtmlExtractionOptions => ({
  url: "https://site.example/blog/post",
  onlyMainContent: true,
  includeTags: [],
  excludeTags: [],
  removeBase64Images: true,
  formats: { markdown: true, html: false, links: false, images: false },
  ...overrides,
})
const markdown = (html: string, overrides: Partial<HtmlExtractionOptions> = {}) =>
  extractHtml(html, options(overrides)).markdown ?? ""

const sentence = (topic: string, i: number) =>
  `The ${topic} study, part ${i}, measured how quickly the samples dried, and the results, once averaged, matched the model closely.`

describe("html output", () => {
  it("leaves out wrappers that cleanup emptied, and keeps media, breaks, table cells and icon links", () => {
    const html = `<html><body><article><header><nav><a href="/">Home</a></nav></header><h1>Title</h1>
      <div><span> </span></div><p>${sentence("html", 1)}</p><p><img src="/a.png"><br></p>
      <table><tr><td></td><td>x</td></tr></table><p><a href="/icon"><i class="icon"></i></a></p>
      <p>${sentence("html", 2)}</p><p>${sentence("html", 3)}</p></article></body></html>`
    const cleaned = extractHtml(
      html,
      options({ formats: { markdown: false, html: true, links: false, images: false } }),
    ).html
    expect(cleaned).not.toMatch(/<header>|<nav>|<div><span>/)
    expect(cleaned).toMatch(/^<article><h1>Title<\/h1>/)
    expect(cleaned).toContain('<img src="https://site.example/a.png"><br>')
    expect(cleaned).toContain("<td></td><td>x</td>")
    expect(cleaned).toContain('<a href="https://site.example/icon"></a>')
  })
})

describe("main content", () => {
  it("finds the article in div soup without semantic tags or helpful names", () => {
    const links = (prefix: string) =>
      Array.from({ length: 12 }, (_, i) => `<div><a href="/${prefix}/${i}">${prefix} item ${i}</a></div>`).join("")
    const html = `<html><body>
      <div class="a1">${links("menu")}</div>
      <div class="a2"><div class="a3">
        <div class="x"><span>Quick links</span>${links("side")}</div>
        <div class="y"><div>${sentence("drying", 1)}</div><div>${sentence("drying", 2)}</div><div>${sentence("drying", 3)}</div>
          <div>${sentence("drying", 4)}</div></div>
      </div></div>
      <div class="a4">Copyright 2026 Example Corp. ${links("legal")}</div></body></html>`
    const result = markdown(html)
    expect(result).toContain("The drying study, part 1")
    expect(result).toContain("part 4")
    expect(result).not.toContain("menu item")
    expect(result).not.toContain("side item")
    expect(result).not.toContain("Copyright 2026")
  })

  it("keeps the whole page when there is no article, never an empty result", () => {
    const html = `<html><body><nav><a href="/a">Home</a></nav><div><h2>Welcome</h2><ul><li><a href="/x">Products</a></li><li><a href="/y">Pricing</a></li></ul></div></body></html>`
    const result = markdown(html)
    expect(result).toContain("Welcome")
    expect(result).toContain("[Products](https://site.example/x)")
  })

  it("leaves out the article's header (headline, standfirst, byline, date: the metadata), not a long one", () => {
    const article = (header: string) =>
      `<html><head><title>Drying study</title></head><body><nav><a href="/">Home</a></nav><article>${header}
      <p>${sentence("drying", 1)}</p><p>${sentence("drying", 2)}</p><p>${sentence("drying", 3)}</p></article></body></html>`
    const short = markdown(
      article(`<header><h1>Results are in</h1><p>A standfirst line.</p><time>Nov. 19</time></header>`),
    )
    expect(short).not.toContain("Results are in")
    expect(short).not.toContain("standfirst")
    expect(short).toContain("The drying study, part 1")
    const long = `<header><p>${"An opening that is long. ".repeat(60)}</p></header>`
    expect(markdown(article(long))).toContain("An opening that is long.")
    expect(markdown(article(`<header><h1>Results are in</h1></header>`), { onlyMainContent: false })).toContain(
      "# Results are in",
    )
  })

  it("leaves out the article's headline when it repeats the page title (it is metadata.title), not other headings", () => {
    const article = (heading: string) =>
      `<html><head><title>Drying study shows results - Example News</title></head><body><nav><a href="/">Home</a></nav>
      <article>${heading}<p>${sentence("drying", 1)}</p><p>${sentence("drying", 2)}</p><p>${sentence("drying", 3)}</p>
      <h2>Method</h2><p>${sentence("drying", 4)}</p></article></body></html>`
    const withHeadline = markdown(article("<h1>Drying study shows results</h1>"))
    expect(withHeadline).not.toContain("Drying study shows results")
    expect(withHeadline).toContain("## Method")
    expect(markdown(article("<h1>A different headline altogether</h1>"))).toContain("# A different headline altogether")
    expect(markdown(article("<h1>Drying study shows results</h1>"), { onlyMainContent: false })).toContain(
      "# Drying study shows results",
    )
  })

  it("keeps everything with onlyMainContent false", () => {
    const html = `<html><body><nav><a href="/a">Home page link</a></nav><article><p>${sentence("a", 1)}</p></article><footer>Footer words</footer></body></html>`
    const result = markdown(html, { onlyMainContent: false })
    expect(result).toContain("Home page link")
    expect(result).toContain("Footer words")
  })
})

describe("markdown", () => {
  it("writes GFM tables, with or without thead, escaping pipes", () => {
    const html = `<body><table><tr><td>Name</td><td>Value</td></tr><tr><td>a|b</td><td>1</td></tr></table>
      <table><thead><tr><th>H1</th><th colspan="2">Wide</th></tr></thead><tbody><tr><td>x</td><td>y</td><td>z</td></tr></tbody></table></body>`
    const result = markdown(html, { onlyMainContent: false })
    expect(result).toContain("| Name | Value |\n| --- | --- |\n| a\\|b | 1 |")
    expect(result).toContain("| H1 | Wide | |\n| --- | --- | --- |\n| x | y | z |")
  })

  it("fences code with its language and keeps ATX headings and absolute links", () => {
    const html = `<body><h2>Setup</h2><pre><code class="language-ts">const a = 1\nconst b = \`x\`</code></pre>
      <pre data-lang="bash">npm test</pre><p>See <a href="../docs">the docs</a> and <del>old</del>.</p></body>`
    const result = markdown(html, { onlyMainContent: false })
    expect(result).toContain("## Setup")
    expect(result).toContain("```ts\nconst a = 1\nconst b = `x`\n```")
    expect(result).toContain("```bash\nnpm test\n```")
    expect(result).toContain("[the docs](https://site.example/docs)")
    expect(result).toContain("~~old~~")
  })

  it("replaces base64 images, keeps alt text, and resolves against <base>", () => {
    const html = `<html><head><base href="https://cdn.example/assets/"></head><body>
      <img alt="inline chart" src="data:image/png;base64,iVBORw0KGgo="><img alt="photo" src="p.jpg" srcset="p-small.jpg 300w, p-big.jpg 1200w"></body></html>`
    const result = markdown(html, { onlyMainContent: false })
    expect(result).toContain("![inline chart](<Base64-Image-Removed>)")
    expect(result).toContain("![photo](https://cdn.example/assets/p-big.jpg)")
    expect(result).not.toContain("iVBOR")
  })

  it("writes nested and numbered lists, keeping text a list holds outside its items", () => {
    const html = `<body><ul><li>One <b>bold</b></li><li>Two<ul><li>nested</li></ul></li></ul>
      <ol start="3"><li><p>para a</p><p>para b</p></li><li>x</li></ol><ul> indented <i>aside</i> </ul></body>`
    expect(markdown(html, { onlyMainContent: false })).toBe(
      "- One **bold**\n- Two\n  - nested\n\n3. para a\n\n   para b\n4. x\n\nindented *aside*",
    )
  })

  it("collapses whitespace around emphasis, drops empty emphasis, keeps an empty link's target, and escapes markdown syntax", () => {
    const html = `<body><p>a <em> spaced </em>b<strong></strong> c <a href="/e"></a><b>&nbsp;</b>d</p>
      <p># not a heading, a_b *c* [d]</p><p>- not a list</p><p>line<br>break</p>
      <p><code>a\`b</code> and <a href="/x(1)" title='say "hi"'>link</a></p></body>`
    expect(markdown(html, { onlyMainContent: false })).toBe(
      "a *spaced* b c [](https://site.example/e)\u00a0d\n\n\\# not a heading, a\\_b \\*c\\* \\[d\\]\n\n\\- not a list\n\nline  \nbreak\n\n" +
        '``a`b`` and [link](https://site.example/x\\(1\\) "say \\"hi\\"")',
    )
  })

  it("writes a card link's heading and teaser as one line of link text, and quotes blockquotes", () => {
    const html = `<body><a href="/card"><div><h3>Card</h3><p>Teaser</p></div></a><blockquote><p>quoted</p><p>two</p></blockquote></body>`
    expect(markdown(html, { onlyMainContent: false })).toBe(
      "[Card Teaser](https://site.example/card)\n\n> quoted\n>\n> two",
    )
  })

  it("drops scripts, styles and skip links", () => {
    const html = `<body><a href="#main">Skip to content</a><script>alert(1)</script><style>p{}</style><p id="main">Text stays.</p></body>`
    expect(markdown(html, { onlyMainContent: false })).toBe("Text stays.")
  })
})

describe("links, images and metadata", () => {
  it("lists every link and image of the page, absolute and deduplicated", () => {
    const html = `<html><head><meta property="og:image" content="/og.png"></head><body>
      <a href="/a">A</a><a href="/a">A again</a><a href="javascript:void(0)">js</a><a href="mailto:x@y.z">mail</a>
      <img src="/i.png"><img src="data:image/gif;base64,R0lG"><img data-src="/lazy.png"></body></html>`
    const result = extractHtml(html, options({ formats: { markdown: false, html: false, links: true, images: true } }))
    expect(result.links).toEqual(["https://site.example/a", "mailto:x@y.z"])
    expect(result.images).toEqual([
      "https://site.example/i.png",
      "https://site.example/lazy.png",
      "https://site.example/og.png",
    ])
  })

  it("reports named fields and raw meta keys", () => {
    const html = `<html lang="de"><head><title> A  title </title><meta name="description" content="d1">
      <meta name="keywords" content="k"><meta property="og:locale:alternate" content="fr_FR">
      <meta property="article:tag" content="t1"><meta property="article:tag" content="t2"><meta itemprop="name" content="N">
      <link rel="shortcut icon" href="/fav.ico"></head><body></body></html>`
    const { metadata } = extractHtml(html, options())
    expect(metadata).toMatchObject({
      title: "A title",
      description: "d1",
      keywords: "k",
      language: "de",
      ogLocaleAlternate: ["fr_FR"],
      articleTag: ["t1", "t2"],
      "article:tag": ["t1", "t2"],
      name: "N",
      favicon: "https://site.example/fav.ico",
    })
  })
})

describe("hostile markup", () => {
  it("survives 100 000 nested elements quickly", () => {
    const html = `<body>${"<div>".repeat(100_000)}<p>deep text</p>${"</div>".repeat(100_000)}<p>after</p></body>`
    const started = performance.now()
    const result = markdown(html, { onlyMainContent: false })
    expect(result).toContain("deep text")
    expect(result).toContain("after")
    expect(performance.now() - started).toBeLessThan(10_000)
  })

  it("treats attributes named like object properties as plain attributes", () => {
    const html = `<html constructor="x"><head><meta name="constructor" content="c"><meta name="__proto__" content="p"><title>T</title></head>
      <body><div class="__proto__" id="constructor" role="hasOwnProperty"><p toString="1">${"<b>tricky</b> words, ".repeat(5)}</p>
      <a href="/ok" __proto__="x">link</a><img src="/i.png" constructor="y"><constructor>custom element</constructor></div></body></html>`
    const result = extractHtml(html, options({ formats: { markdown: true, html: true, links: true, images: true } }))
    expect(result.markdown).toContain("**tricky** words")
    expect(result.markdown).toContain("[link](https://site.example/ok)")
    expect(result.markdown).toContain("custom element")
    expect(result.markdown).not.toContain("function")
    expect(result.links).toEqual(["https://site.example/ok"])
    expect(result.images).toEqual(["https://site.example/i.png"])
    expect(result.metadata.constructor).toBe("c")
    expect(result.metadata.title).toBe("T")
    expect(result.metadata.language).toBeUndefined()
  })

  it("handles text that is not HTML at all", () => {
    expect(markdown("just words, no tags")).toBe("just words, no tags")
    expect(() => markdown("\u0000\u0001<<<>>>&&&\ufffd")).not.toThrow()
  })
})

describe("textToMarkdown", () => {
  it("fences JSON (pretty) and keeps plain text", () => {
    expect(textToMarkdown('{"a":[1]}', "application/json")).toBe('```json\n{\n  "a": [\n    1\n  ]\n}\n```')
    expect(textToMarkdown("not json {", "application/ld+json")).toBe("```json\nnot json {\n```")
    expect(textToMarkdown("a *b*", "text/plain; charset=utf-8")).toBe("a *b*")
    expect(textToMarkdown("a,b\n1,2", "text/csv")).toBe("```csv\na,b\n1,2\n```")
  })
})

describe("prefilter", () => {
  it("leaves ordinary pages and tag soup untouched apart from scripts, and flattens only deep nesting", async () => {
    const { prefilter } = await import("../../src/Content/Prefilter.js")
    const soup = `<body>${"<p>unclosed paragraph ".repeat(500)}<ul>${"<li>item".repeat(500)}</ul><script>${"<div>".repeat(1000)}</script></body>`
    expect(prefilter(soup)).toBe(soup.replace(/<script>.*<\/script>/, ""))
    const deep = `${"<div>".repeat(300)}text${"</div>".repeat(300)}`
    const limited = prefilter(deep, { maxDepth: 256 })
    expect(limited.match(/<div>/g)).toHaveLength(256)
    expect(limited.match(/<\/div>/g)).toHaveLength(256)
    expect(limited).toContain("text")
  })

  it("cuts scripts, styles, SVG, templates and comments but nothing after a self-closed element", async () => {
    const { prefilter } = await import("../../src/Content/Prefilter.js")
    const html = `<p>a</p><script type="x">if (a < b) {}</script><style>p{}</style><!-- note --><svg><path d="M0"/></svg><svg class="i"/><p>b</p><template><p>t</p></template><p>c</p>`
    expect(prefilter(html)).toBe("<p>a</p><p>b</p><p>c</p>")
    expect(prefilter("<p>x</p><script>never closed")).toBe("<p>x</p>")
  })

  it("drops handler, data and aria attributes except those read later (aria-label names icon links), and layout whitespace outside <pre>", async () => {
    const { prefilter } = await import("../../src/Content/Prefilter.js")
    const html = `<div onclick="go()" data-track="1" aria-label="x" class="c">\n  <img data-src="/a.jpg" alt="a" />\n  <pre>\n  x\n</pre>  <span>a</span> <span>b</span></div>`
    expect(prefilter(html)).toBe(
      `<div aria-label="x" class="c"><img data-src="/a.jpg" alt="a" /><pre>\n  x\n</pre><span>a</span> <span>b</span></div>`,
    )
    expect(prefilter(html, { keepAttributes: true })).toBe(
      `<div onclick="go()" data-track="1" aria-label="x" class="c"><img data-src="/a.jpg" alt="a" /><pre>\n  x\n</pre><span>a</span> <span>b</span></div>`,
    )
  })
})

describe("selectors and html output", () => {
  const page = `<body><div data-testid="story" aria-label="Story"><p>${sentence("kept", 1)}</p></div><div data-role="promo"><p>${sentence("promo", 1)}</p></div></body>`

  it("matches includeTags and excludeTags on any attribute, data-* and aria-* included", () => {
    const included = markdown(page, { includeTags: ['[data-testid="story"]'] })
    expect(included).toContain("The kept study")
    expect(included).not.toContain("The promo study")
    const excluded = markdown(page, { onlyMainContent: false, excludeTags: ['[data-role="promo"]'] })
    expect(excluded).toContain("The kept study")
    expect(excluded).not.toContain("The promo study")
  })

  it("keeps the page's attributes in the html output", () => {
    const html = extractHtml(
      page,
      options({ onlyMainContent: false, formats: { ...options().formats, html: true } }),
    ).html
    expect(html).toContain('data-testid="story"')
    expect(html).toContain('aria-label="Story"')
  })
})

describe("broken and tricky pages", () => {
  it("escapes text and attributes in the html output and decodes entities once", () => {
    const html = `<body><p title="a &quot;b&quot; &amp; c">1 &lt; 2 &amp;&amp; 3 &gt; 2, caf&eacute; &#x1F600;</p></body>`
    const result = extractHtml(html, options({ onlyMainContent: false, formats: { ...options().formats, html: true } }))
    expect(result.html).toBe('<p title="a &quot;b&quot; &amp; c">1 &lt; 2 &amp;&amp; 3 &gt; 2, café 😀</p>')
    expect(result.markdown).toBe("1 < 2 && 3 > 2, café 😀")
  })

  it("does not mistake self-closing foreign elements for nesting", async () => {
    const { prefilter } = await import("../../src/Content/Prefilter.js")
    const formulas = `<math>${'<mi mathvariant="normal"/>'.repeat(1000)}</math>`.repeat(5)
    const html = `<body>${formulas}<p>text</p></body>`
    expect(prefilter(html)).toBe(html)
    // Inline SVG drawings, self-closed shapes and all, never reach the parser.
    const icons = `<svg>${'<path d="M0 0"/>'.repeat(1000)}</svg>`.repeat(5)
    expect(prefilter(`<body>${icons}<p>text</p></body>`)).toBe("<body><p>text</p></body>")
  })

  it("reads content the parser left outside the body", () => {
    const html = `<html><head></head><body></body><div><p>${sentence("orphan", 1)}</p><p>${sentence("orphan", 2)}</p></div></html><html><body><p>${sentence("second", 1)}</p></body></html>`
    const result = markdown(html, { onlyMainContent: false })
    expect(result).toContain("The orphan study, part 1")
  })

  it("drops elements hidden by inline style", () => {
    const html = `<body><p>${sentence("seen", 1)}</p><div style="display: none">secret drawer text</div><p style="visibility:hidden">ghost</p></body>`
    const result = markdown(html, { onlyMainContent: false })
    expect(result).toContain("The seen study")
    expect(result).not.toContain("secret drawer")
    expect(result).not.toContain("ghost")
  })
})

describe("one page's cost is bounded", () => {
  it("cuts a page after its first 150 000 elements: a million-cell table costs about a second, not five", () => {
    const row = (i: number) => `<tr>${`<td>r${i}</td>`.repeat(1000)}</tr>`
    const html = `<html><body><h1>Big table</h1><table>${Array.from({ length: 1000 }, (_, i) => row(i)).join("")}</table></body></html>`
    const started = performance.now()
    const result = extractHtml(html, options({ onlyMainContent: false }))
    const elapsed = performance.now() - started
    expect(result.markdown).toContain("| r0 | r0 |")
    expect(result.markdown).not.toContain("r999")
    // Without the cut: 5–6 s and about 1 GB on the benchmark machine.
    expect(elapsed).toBeLessThan(4000)
  })
})
