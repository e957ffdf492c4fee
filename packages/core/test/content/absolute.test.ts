import { describe, expect, it } from "vitest"
import { absolute } from "../../src/Content/Dom.js"

/** What the URL parser makes of a reference: the fast path must never differ from it. */
const parsed = (reference: string, base: string) => URL.parse(reference.trim(), base)?.href

const BASES = [
  "http://example.com/articles/page.html?x=1#top",
  "https://user:secret@Example.COM:8443/a/b/",
  "http://[::1]:3002/",
  "https://example.com:443/deep/path/index",
  "file:///tmp/page.html",
]

/** Single characters the URL parser treats specially (or not), and a few multi-character pieces. */
const PIECES = [..."aZ0.%?#&='\"\t\\<>`{}|^é~@:;!*()+,", "/", "//", "..", "%2e", "%2E", "%20", " "]

/** A deterministic pseudo-random reference of up to 8 pieces, mostly path-absolute. */
const reference = (seed: number): string => {
  let state = seed * 2654435761
  const next = () => {
    state = (state * 1103515245 + 12345) % 2147483648
    return state
  }
  let text = next() % 4 === 0 ? "" : "/"
  for (let count = next() % 9; count > 0; count--) text += PIECES[next() % PIECES.length]
  return text
}

describe("absolute", () => {
  it("resolves exactly as the URL parser does", () => {
    const known = [
      "/a/b.html",
      "/a/../b",
      "/a/./b",
      "/a/%2e%2e/b",
      "//cdn.example.com/x",
      "/p?q='x'",
      "/x#frag",
      " /padded ",
      "/a b",
      "/é",
      "/a\\b",
      "/.well-known/x",
      "page.html",
      "../up",
      "javascript:void(0)",
      "http://[bad",
    ]
    for (const base of BASES)
      for (const candidate of [...known, ...Array.from({ length: 3000 }, (_, seed) => reference(seed))])
        expect([candidate, base, absolute(candidate, base)]).toEqual([candidate, base, parsed(candidate, base)])
  })

  it("answers undefined for what does not parse", () => {
    expect(absolute("http://[bad", "http://example.com/")).toBeUndefined()
    expect(absolute("/x", "not a url")).toBeUndefined()
  })
})
