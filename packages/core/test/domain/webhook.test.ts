import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { decodeStrict } from "../../src/Domain/Decode.js"
import { Webhook } from "../../src/Domain/Webhook.js"
import { decoding } from "../support/decoding.js"

const { ok, bad } = decoding(decodeStrict(Webhook))

const ALL = ["started", "page", "completed", "failed"]

describe("Webhook", () => {
  it("decodes the string form to the object form with every event", () => {
    expect(ok("https://hooks.example.com/x")).toEqual({
      url: "https://hooks.example.com/x",
      headers: {},
      metadata: {},
      events: ALL,
    })
  })

  it("keeps the object form's headers, metadata and event filter, defaulting what is missing", () => {
    expect(ok({ url: "http://hooks.example.com", headers: { A: "1" }, metadata: { n: 1 }, events: ["page"] })).toEqual({
      url: "http://hooks.example.com",
      headers: { A: "1" },
      metadata: { n: 1 },
      events: ["page"],
    })
    expect(ok({ url: "http://hooks.example.com" }).events).toEqual(ALL)
  })

  it("refuses the signature header in any case, with Firecrawl's message", () => {
    const error = bad({ url: "https://hooks.example.com", headers: { "X-Firecrawl-Signature": "sha256=x" } })
    expect(JSON.stringify(error.details)).toContain("The following headers are not allowed: X-Firecrawl-Signature")
  })

  it("refuses other schemes, invalid URLs, unknown events and unknown keys", () => {
    expect(JSON.stringify(bad("ftp://hooks.example.com").details)).toContain("Webhook URL must use http or https")
    expect(JSON.stringify(bad({ url: "not a url" }).details)).toContain("Invalid webhook URL")
    bad({ url: "https://hooks.example.com", events: ["crawl.page"] })
    bad({ url: "https://hooks.example.com", secret: "x" })
  })

  it("encodes back to the object form", () => {
    const spec = ok("https://hooks.example.com")
    expect(Schema.encodeSync(Webhook)(spec)).toEqual(spec)
  })
})
