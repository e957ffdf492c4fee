import { describe, expect, it } from "vitest"
import { BatchScrapeRequest } from "../../src/Domain/BatchScrapeRequest.js"
import { decodeStrict } from "../../src/Domain/Decode.js"
import { decoding } from "../support/decoding.js"

const { ok, bad } = decoding(decodeStrict(BatchScrapeRequest))

describe("BatchScrapeRequest", () => {
  it("takes the scrape options flattened, with their defaults", () => {
    expect(ok({ urls: ["example.com"], formats: ["links"] })).toMatchObject({
      urls: ["example.com"],
      formats: [{ type: "links" }],
      onlyMainContent: true,
      timeout: 60_000,
    })
  })

  it("applies the scrape options' cross-field rules", () => {
    expect(bad({ urls: ["example.com"], timeout: 10_000, waitFor: 6000 }).message).toBe(
      "waitFor must not exceed half of timeout",
    )
  })

  it("refuses invalid URLs unless ignoreInvalidURLs is true, and unknown keys", () => {
    expect(bad({ urls: ["example.com", "not a url"] }).details).toEqual([
      expect.objectContaining({ path: ["urls", 1] }),
    ])
    expect(ok({ urls: ["example.com", "not a url"], ignoreInvalidURLs: true }).urls).toHaveLength(2)
    expect(bad({ urls: ["example.com"], scrapeOptions: {} }).message).toMatch(/Unrecognized key/)
  })
})
