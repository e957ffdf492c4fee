/**
 * Hostile pages must cost bounded time and never throw. The bound is on the process's CPU time, not the wall clock
 * (a shared 2-core machine runs other suites alongside), and generous: the work itself takes a fraction of it.
 */
import { describe, expect, it } from "vitest"
import { extractiveSummary } from "../../src/Extract/Offline/ExtractiveSummary.js"
import { extractOffline } from "../../src/Extract/Offline/OfflineExtractor.js"

const URL = "https://hostile.example/p"
const LIMIT_MS = 5_000

const SCHEMA = {
  type: "object",
  properties: {
    name: { type: "string" },
    price: { type: "number" },
    sku: { type: "string" },
    tags: { type: "array", items: { type: "string" } },
    products: { type: "array", items: { type: "object", properties: { name: { type: "string" } } } },
  },
}

const PRODUCT = `<script type="application/ld+json">{"@type":"Product","name":"Real Thing","sku":"RT-1","offers":{"price":"12.00"}}</script>`

/** The value and the CPU milliseconds (user and system) it took. */
const timed = <A>(run: () => A): { readonly value: A; readonly millis: number } => {
  const started = process.cpuUsage()
  const value = run()
  const used = process.cpuUsage(started)
  return { value, millis: (used.user + used.system) / 1000 }
}

describe("extractOffline on hostile pages", () => {
  it("reads a 5 MB page whole", () => {
    const filler = "<div class='row'><p>Lorem ipsum dolor sit amet, <a href='/x'>consectetur</a> adipiscing.</p></div>"
    const html = `<html><body>${filler.repeat(Math.ceil(5_000_000 / filler.length))}${PRODUCT}</body></html>`
    expect(html.length).toBeGreaterThan(5_000_000)
    const { value, millis } = timed(() => extractOffline(html, URL, SCHEMA))
    expect(value.value).toMatchObject({ name: "Real Thing", price: 12, sku: "RT-1" })
    expect(millis).toBeLessThan(LIMIT_MS)
  })

  it("bounds 10,000 JSON-LD blocks", () => {
    const blocks = Array.from(
      { length: 10_000 },
      (_, i) =>
        `<script type="application/ld+json">{"@type":"Product","name":"Item ${i}","offers":{"price":${i}}}</script>`,
    ).join("")
    const { value, millis } = timed(() => extractOffline(`<html><head>${blocks}</head></html>`, URL, SCHEMA))
    expect(value.value.name).toBe("Item 0")
    expect((value.value.products as Array<unknown>).length).toBeLessThanOrEqual(100)
    expect(millis).toBeLessThan(LIMIT_MS)
  })

  it("survives deeply nested JSON, cyclic @id references and broken blocks", () => {
    const depth = 100_000
    const deepArray = `${"[".repeat(depth)}${"]".repeat(depth)}`
    const deepObject = `${'{"@type":"Thing","a":'.repeat(depth)}1${"}".repeat(depth)}`
    const deepValue = `{"@type":"Product","name":"Deep","a":${"[".repeat(depth)}${"]".repeat(depth)},"b":${'{"@value":'.repeat(depth)}1${"}".repeat(depth)},"description":"${"<div>".repeat(depth)}"}`
    const cycle = JSON.stringify({
      "@graph": [
        { "@id": "#a", "@type": "Product", name: "Loop A", isRelatedTo: { "@id": "#b" } },
        { "@id": "#b", "@type": "Product", name: "Loop B", isRelatedTo: { "@id": "#a" } },
      ],
    })
    const broken = [
      '{"@type": "Product", "name": ',
      "{{{{",
      "<!-- -->",
      '{"@type": "Product", "name": "x"'.repeat(1000),
    ]
    const scripts = [deepArray, deepObject, deepValue, cycle, ...broken]
      .map((text) => `<script type="application/ld+json">${text}</script>`)
      .join("")
    const { value, millis } = timed(() =>
      extractOffline(`<html><head>${scripts}</head><body>${PRODUCT}</body></html>`, URL, SCHEMA),
    )
    expect(value.value).toMatchObject({ name: "Real Thing", price: 12 })
    expect(millis).toBeLessThan(LIMIT_MS)
  })

  it("bounds deeply nested markup, many scopes and huge tables", () => {
    const deep = `${"<div itemscope itemtype='https://schema.org/Thing'><span itemprop='name'>n</span>".repeat(100_000)}${"</div>".repeat(100_000)}`
    const rows = `<table>${"<tr><th>Key</th><td>Value</td></tr>".repeat(100_000)}</table>`
    const lines = "<p>Label: value</p>".repeat(50_000)
    const html = `<html><body>${PRODUCT}${deep}${rows}${lines}</body></html>`
    const { value, millis } = timed(() => extractOffline(html, URL, SCHEMA))
    expect(value.value).toMatchObject({ name: "Real Thing" })
    expect(millis).toBeLessThan(LIMIT_MS)
  })

  it("bounds enormous and recursive schemas", () => {
    const properties = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`field${i}`, { type: "string" }]))
    const recursive = {
      type: "object",
      properties: { name: { type: "string" }, child: { $ref: "#" }, items: { type: "array", items: { $ref: "#" } } },
    }
    const html = `<html><body>${PRODUCT}</body></html>`
    const { value, millis } = timed(() => [
      extractOffline(html, URL, { type: "object", properties: { ...properties, name: { type: "string" } } }),
      extractOffline(html, URL, recursive),
    ])
    expect(value[1]!.value.name).toBe("Real Thing")
    expect(millis).toBeLessThan(LIMIT_MS)
  })

  it("does not throw on odd input", () => {
    const odd = [
      "",
      "<",
      "<script type='application/ld+json'>",
      "<script type='application/ld+json'>null</script><script type='application/ld+json'>42</script>",
      `<script type="application/ld+json">{"@type":"Product","name":{"@value":{"@list":[1,2]}},"__proto__":{"x":1},"constructor":"c"}</script>`,
      "<div itemscope itemprop='a' itemtype=''><meta itemprop='constructor' content='x'></div>",
      "<table><tr><th></th><td></td></tr></table><dl><dd>orphan</dd></dl>",
      "\u0000\uffff<p>Price: ﻿</p>",
    ]
    for (const html of odd) expect(() => extractOffline(html, "not a url", SCHEMA)).not.toThrow()
  })
})

describe("extractiveSummary on hostile markdown", () => {
  it.each([
    ["unclosed emphasis", "**a "],
    ["unclosed links", "![a]("],
    ["sentence ends only", "! "],
    ["abbreviations only", "Dr. "],
  ])("bounds %s", (_name, unit) => {
    for (const separator of [" ", "\n\n"]) {
      const markdown = `${(unit + separator).repeat(Math.ceil(1_000_000 / (unit.length + separator.length)))}`
      const { value, millis } = timed(() => extractiveSummary(markdown))
      expect(value.length).toBeLessThanOrEqual(1000)
      expect(millis).toBeLessThan(LIMIT_MS)
    }
  })
})
