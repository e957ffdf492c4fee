import { describe, expect, it } from "vitest"
import { decodeMapRequest, MAX_MAP_LIMIT } from "../../src/Domain/MapRequest.js"
import { mapError } from "../../src/ErrorCodes.js"
import { decoding } from "../support/decoding.js"

const { ok, bad } = decoding(decodeMapRequest)

describe("MapRequest", () => {
  it("applies Firecrawl v2's map defaults and keeps the URL as sent", () => {
    expect(ok({ url: "example.com/docs" })).toEqual({
      url: "example.com/docs",
      sitemap: "include",
      includeSubdomains: true,
      ignoreQueryParameters: true,
      limit: 5000,
      ignoreCache: false,
      filterByPath: true,
      useIndex: true,
      includePaths: [],
      excludePaths: [],
      regexOnFullURL: false,
      allowExternalLinks: false,
      allowSubdomains: false,
      crawlEntireDomain: false,
      deduplicateSimilarURLs: true,
      ignoreRobotsTxt: false,
    })
  })

  it("accepts every documented field and the crawl fields map inherits", () => {
    const request = ok({
      url: "https://example.com",
      search: "docs",
      sitemap: "only",
      includeSubdomains: false,
      ignoreQueryParameters: false,
      limit: 10,
      timeout: 15_000,
      location: { country: "DE", languages: ["de-DE"] },
      headers: { "x-test": "1" },
      ignoreCache: true,
      filterByPath: false,
      useIndex: false,
      useMock: "fixture",
      includePaths: ["^/docs"],
      excludePaths: ["/private/.*"],
      regexOnFullURL: true,
      allowExternalLinks: true,
      allowSubdomains: true,
      crawlEntireDomain: true,
      maxDiscoveryDepth: 2,
      deduplicateSimilarURLs: false,
      ignoreRobotsTxt: true,
      delay: 0.5,
      origin: "js-sdk@4.3.0",
      integration: "_custom",
      zeroDataRetention: false,
    })
    expect(request).toMatchObject({ sitemap: "only", limit: 10, timeout: 15_000, includePaths: ["^/docs"] })
  })

  it("rejects unknown keys (strict, like Firecrawl)", () => {
    const error = bad({ url: "https://example.com", formats: ["markdown"] })
    expect(error.message).toBe(
      "Unrecognized key in body -- please review the v2 API documentation for request body changes",
    )
    expect(error.details).toEqual([
      { code: "unrecognized_keys", keys: ["formats"], path: [], message: 'Unrecognized key: "formats"' },
    ])
    expect(mapError(error)).toMatchObject({ status: 400, code: "BAD_REQUEST" })
  })

  it("requires a valid http(s) url", () => {
    expect(bad({}).details).toEqual([{ code: "invalid_type", path: ["url"], message: "Required" }])
    expect(bad({ url: "ftp://example.com" }).message).toBe("URL uses unsupported protocol")
    expect(bad({ url: "https://example" }).message).toBe("URL must have a valid top-level domain or be an IP address")
  })

  it("bounds limit to 1..100000 integers", () => {
    expect(ok({ url: "https://example.com", limit: 1 }).limit).toBe(1)
    expect(ok({ url: "https://example.com", limit: MAX_MAP_LIMIT }).limit).toBe(MAX_MAP_LIMIT)
    for (const limit of [0, -5, MAX_MAP_LIMIT + 1, 2.5, "10"]) {
      const error = bad({ url: "https://example.com", limit })
      expect(error.reason).toBe("Validation")
      expect((error.details as ReadonlyArray<{ path: ReadonlyArray<string> }>)[0]?.path).toEqual(["limit"])
    }
  })

  it("rejects an invalid sitemap mode, a non-positive timeout and a non-positive delay", () => {
    expect(bad({ url: "https://example.com", sitemap: "never" }).reason).toBe("Validation")
    expect(bad({ url: "https://example.com", timeout: 0 }).reason).toBe("Validation")
    expect(bad({ url: "https://example.com", delay: -1 }).message).toBe(
      "The delay parameter is measured in seconds and cannot exceed 60 seconds.",
    )
  })

  it("answers an invalid include or exclude regex with a 400 carrying the engine's message", () => {
    const error = bad({ url: "https://example.com", includePaths: ["^/ok", "([unclosed"] })
    expect(error.message).toBe("error parsing regexp: missing closing ]: `[unclosed`")
    expect(error.details).toEqual([
      {
        code: "custom",
        path: ["includePaths"],
        message: "error parsing regexp: missing closing ]: `[unclosed`",
      },
    ])
    expect(mapError(error)).toMatchObject({ status: 400, code: "BAD_REQUEST" })
    expect(bad({ url: "https://example.com", excludePaths: ["*bad"] }).message).toMatch(/^error parsing regexp/)
    // Blank patterns are skipped, not errors.
    expect(ok({ url: "https://example.com", excludePaths: ["", "  "] }).excludePaths).toEqual(["", "  "])
  })
})
