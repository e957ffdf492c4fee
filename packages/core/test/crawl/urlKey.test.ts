import { describe, expect, it } from "vitest"
import { dedupKey, normalizeUrl } from "../../src/Crawl/UrlKey.js"

const keep = { ignoreQueryParameters: false }
const strip = { ignoreQueryParameters: true }

describe("normalizeUrl", () => {
  it.each([
    ["HTTPS://Example.COM/Path/To", "https://example.com/Path/To"],
    ["http://example.com:80/a", "http://example.com/a"],
    ["https://example.com:443/a", "https://example.com/a"],
    ["https://example.com:8443/a", "https://example.com:8443/a"],
    ["http://example.com:443/a", "http://example.com:443/a"],
    ["https://example.com", "https://example.com/"],
    ["https://example.com/a/./b/../c", "https://example.com/a/c"],
    ["https://example.com/page#section", "https://example.com/page"],
    ["https://example.com/page#", "https://example.com/page"],
    ["https://example.com/#/about", "https://example.com/#/about"],
    ["https://example.com/#!/about/team", "https://example.com/#!/about/team"],
    ["https://example.com/#/", "https://example.com/"],
    ["https://example.com/#about/x", "https://example.com/"],
    ["https://example.com/a?b=1&c=2#x", "https://example.com/a?b=1&c=2"],
    ["https://example.com/a?", "https://example.com/a"],
    ["https://example.com/a%2fb?q=%e2%9c%93", "https://example.com/a%2Fb?q=%E2%9C%93"],
    ["https://bücher.example/ä", "https://xn--bcher-kva.example/%C3%A4"],
    // A "?" before an SPA route is a bare query; one inside the route is the route's own.
    ["https://example.com/a?#/r", "https://example.com/a#/r"],
    ["https://example.com/a?#", "https://example.com/a"],
    ["https://example.com/a#/r?x=%aa", "https://example.com/a#/r?x=%aa"],
    ["https://example.com/?x=%aa#/r?y", "https://example.com/?x=%AA#/r?y"],
  ])("%s → %s", (input, expected) => {
    expect(normalizeUrl(input, keep)).toBe(expected)
  })

  it("drops the query only when asked", () => {
    expect(normalizeUrl("https://example.com/a?utm_source=x#/r", strip)).toBe("https://example.com/a#/r")
    expect(normalizeUrl("https://example.com/a?utm_source=x", keep)).toBe("https://example.com/a?utm_source=x")
    expect(normalizeUrl("https://example.com/?x=%aa#/r?y", strip)).toBe("https://example.com/#/r?y")
  })

  it("is idempotent", () => {
    for (const url of ["HTTP://www.Example.com:80/A/b/?x=%2f#!/r", "https://example.com/a?#frag"])
      expect(normalizeUrl(normalizeUrl(url, keep), keep)).toBe(normalizeUrl(url, keep))
  })

  it("throws on a relative URL", () => {
    expect(() => normalizeUrl("/relative", keep)).toThrow(TypeError)
  })
})

describe("dedupKey", () => {
  const similar = { ignoreQueryParameters: false, deduplicateSimilarURLs: true }
  const exact = { ignoreQueryParameters: false, deduplicateSimilarURLs: false }

  it("collapses www, scheme, trailing slash and index files into one key", () => {
    const variants = [
      "https://example.com/blog",
      "http://example.com/blog",
      "https://www.example.com/blog",
      "http://WWW.EXAMPLE.COM/blog/",
      "https://example.com/blog/index.html",
      "https://www.example.com/blog/index.htm",
      "http://example.com/blog/index.php",
      "https://example.com/blog/#top",
      "https://example.com:443/blog",
    ]
    const keys = new Set(variants.map((url) => dedupKey(url, similar)))
    expect([...keys]).toEqual(["example.com/blog"])
  })

  it("collapses the root variants", () => {
    const roots = [
      "https://example.com",
      "http://www.example.com/",
      "https://example.com/index.html",
      "http://example.com/index.php",
    ]
    expect(new Set(roots.map((url) => dedupKey(url, similar)))).toEqual(new Set(["example.com/"]))
  })

  it("keeps different pages apart", () => {
    const pages = [
      "https://example.com/blog",
      "https://example.com/Blog",
      "https://example.com/blog/post",
      "https://example.com/blog?page=2",
      "https://example.com/blog#/app-route",
      "https://example.com:8080/blog",
      "https://docs.example.com/blog",
      "https://example.com/blog/index.html.bak",
      "https://example.com/blog/myindex.html",
    ]
    expect(new Set(pages.map((url) => dedupKey(url, similar))).size).toBe(pages.length)
  })

  it("collapses query variants with ignoreQueryParameters", () => {
    const options = { ignoreQueryParameters: true, deduplicateSimilarURLs: true }
    expect(dedupKey("https://example.com/a/?x=1", options)).toBe(dedupKey("http://www.example.com/a?y=2", options))
  })

  it("without deduplicateSimilarURLs, the key is the normalized URL", () => {
    expect(dedupKey("https://www.example.com/a/#x", exact)).toBe("https://www.example.com/a/")
    expect(dedupKey("https://example.com/a/", exact)).not.toBe(dedupKey("https://example.com/a", exact))
    expect(dedupKey("http://example.com/a", exact)).not.toBe(dedupKey("https://example.com/a", exact))
  })

  it("leaves a host that is only `www.<label>` alone", () => {
    expect(dedupKey("http://www.localhost/a", similar)).toBe("www.localhost/a")
  })
})
