import { describe, expect, it } from "vitest"
import { decodeStrict } from "../../src/Domain/Decode.js"
import { ScrapeRequest } from "../../src/Domain/ScrapeOptions.js"
import { decoding } from "../support/decoding.js"

const { ok, bad } = decoding(decodeStrict(ScrapeRequest))

describe("ScrapeRequest", () => {
  it("applies v2's defaults", () => {
    const request = ok({ url: "https://example.com" })
    expect(request).toMatchObject({
      formats: [{ type: "markdown" }],
      onlyMainContent: true,
      timeout: 60_000,
      waitFor: 0,
      mobile: false,
      removeBase64Images: true,
      blockAds: true,
      proxy: "auto",
      maxAge: 172_800_000,
      storeInCache: true,
    })
    expect(request.skipTlsVerification).toBeUndefined()
  })

  it("accepts string, object and mixed formats and keeps the URL as sent", () => {
    const request = ok({ url: "example.com/a", formats: ["html", { type: "links" }, "rawHtml"] })
    expect(request.formats).toEqual([{ type: "html" }, { type: "links" }, { type: "rawHtml" }])
    expect(request.url).toBe("example.com/a")
  })

  it("accepts IP literals, localhost, origin and integrations starting with _", () => {
    ok({ url: "http://127.0.0.1:4321/page", origin: "js-sdk@4.42.0", integration: "_mine" })
    ok({ url: "http://[::1]:8080/", integration: "langchain" })
    ok({ url: "localhost:3000" })
  })

  it("accepts Firecrawl's internal __experimental_omce keys (ignored)", () => {
    ok({ url: "https://example.com", __experimental_omce: true, __experimental_omceDomain: "example.com" })
    expect(bad({ url: "https://example.com", __experimental_omce: "yes" }).message).toBe("Bad Request")
  })

  it('answers a failure inside a plain union with "Bad Request" and the issue in details, as zod does', () => {
    const error = bad({ url: "https://example.com", parsers: [{ type: "pdf", maxPages: -1 }] })
    expect(error.message).toBe("Bad Request")
    expect(error.details).toContainEqual(expect.objectContaining({ path: ["parsers", 0, "maxPages"] }))
  })

  it("reports a nested unknown key at its path", () => {
    const error = bad({ url: "https://example.com", formats: [{ type: "json", prompt: "p", systemPrompt: "x" }] })
    expect(error.message).toMatch(/^Unrecognized key in body/)
    expect(error.details).toContainEqual({
      code: "unrecognized_keys",
      keys: ["systemPrompt"],
      path: ["formats", 0],
      message: 'Unrecognized key: "systemPrompt"',
    })
  })

  it("rejects unknown keys with Firecrawl's message and a zod-like issue", () => {
    const error = bad({ url: "https://example.com", bogus: true })
    expect(error.reason).toBe("Validation")
    expect(error.message).toBe(
      "Unrecognized key in body -- please review the v2 API documentation for request body changes",
    )
    expect(error.details).toEqual([
      { code: "unrecognized_keys", keys: ["bogus"], path: [], message: 'Unrecognized key: "bogus"' },
    ])
  })

  it("rejects unknown keys inside strict format objects (json systemPrompt)", () => {
    const error = bad({ url: "https://example.com", formats: [{ type: "json", prompt: "x", systemPrompt: "y" }] })
    expect(error.message).toMatch(/Unrecognized key/)
  })

  it("refuses waitFor above half the timeout with the exact message and path", () => {
    const error = bad({ url: "https://example.com", waitFor: 3000, timeout: 5000 })
    expect(error.message).toBe("waitFor must not exceed half of timeout")
    expect(error.details).toEqual([
      { code: "custom", path: ["waitFor"], message: "waitFor must not exceed half of timeout" },
    ])
  })

  it.each([
    ["ftp://example.com/file", "URL uses unsupported protocol"],
    ["https://nodomain", "URL must have a valid top-level domain or be an IP address"],
    ["http://http://example.com", "Invalid URL"],
    ["http://exa mple.com", "Invalid URL"],
  ])("rejects the URL %s", (url, message) => {
    const error = bad({ url })
    expect(error.message).toBe(message)
    expect(error.details).toEqual([{ code: "custom", path: ["url"], message }])
  })

  it("says which field is missing or of the wrong type", () => {
    expect(bad({}).details).toEqual([{ code: "invalid_type", path: ["url"], message: "Required" }])
    const wrongType = bad({ url: "https://example.com", timeout: "fast" })
    expect(wrongType.message).toBe("Bad Request")
    expect(wrongType.details).toEqual([expect.objectContaining({ code: "invalid_type", path: ["timeout"] })])
  })

  it.each([
    [{ formats: ["markdown", "screenshot", { type: "screenshot", fullPage: true }] }, "only specify one screenshot"],
    [{ formats: ["changeTracking"] }, "requires the markdown format"],
    [{ formats: ["rawBase64", "markdown"] }, "rawBase64 format must be the only format"],
    [{ timeout: 500 }, ""],
    [{ integration: "unknown-tool" }, "Invalid enum value"],
    [{ location: { country: "USA" } }, "Invalid country code"],
    [{ actions: [{ type: "wait", milliseconds: 10, selector: "#a" }] }, "not both"],
    [{ actions: Array.from({ length: 51 }, () => ({ type: "scrape" })) }, "cannot exceed 50"],
    [
      { actions: [{ type: "wait", milliseconds: 30_000 }], waitFor: 31_000, timeout: 100_000 },
      "cannot exceed 60 seconds",
    ],
    [{ formats: ["nope"] }, "Bad Request"],
  ])("rejects %j", (options, message) => {
    const error = bad({ url: "https://example.com", ...options })
    expect(error.reason).toBe("Validation")
    expect(error.message).toContain(message)
  })
})

describe("validation errors of huge values", () => {
  it("quote at most a few hundred characters of the bad value, and list at most 100 issues", () => {
    const huge = "x".repeat(2_000_000)
    const error = bad({ url: "https://example.com", formats: huge, [huge]: 1 })
    expect(JSON.stringify({ message: error.message, details: error.details }).length).toBeLessThan(5_000)
    const many = bad({ url: "https://example.com", includeTags: Array.from({ length: 5000 }, () => 1) })
    expect((many.details as Array<unknown>).length).toBeLessThanOrEqual(100)
  })
})
