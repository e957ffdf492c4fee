/** The DuckDuckGo provider against a fake of its HTML results page. */
import { describe, expect, it } from "@effect/vitest"
import * as DuckDuckGo from "../../../src/Search/Providers/DuckDuckGo.js"
import { DUCKDUCKGO_CAPTCHA_PAGE, rateLimited, sampleItems, startFakeDuckDuckGo } from "../../support/fakeSearch.js"
import { failure, fake, query, search, timed, urls } from "./harness.js"

/** Tests space requests by a few milliseconds only, unless they test the spacing. */
const duckAt = (baseUrl: string, minIntervalMs = 1) => DuckDuckGo.make({ baseUrl, minIntervalMs })

describe("the DuckDuckGo provider", () => {
  it("posts the query's form: words with operators, region, period and safe search", async () => {
    const page = await fake(startFakeDuckDuckGo({ corpus: { web: sampleItems("web", 5) } }))
    const answer = await search(
      duckAt(page.baseUrl),
      query({ includeDomains: ["example.com", "github.com"], country: "us", lang: "en", tbs: "qdr:w", safe: true }),
    )
    expect(answer.provider).toBe("duckduckgo")
    const sent = page.requests[0]!
    expect(sent.method).toBe("POST")
    expect(sent.path).toBe("/html/")
    expect(sent.headers["content-type"]).toBe("application/x-www-form-urlencoded")
    expect(sent.headers["user-agent"]).toMatch(/Mozilla/)
    expect(sent.form).toEqual({
      q: "effect typescript (site:example.com OR site:github.com)",
      kl: "us-en",
      df: "w",
      kp: "1",
    })
    expect(urls(answer)).toEqual(["https://example.com/web/1", "https://github.com/web/3"])
  })

  it("maps regions, hours and safe search off", async () => {
    const page = await fake(startFakeDuckDuckGo({ corpus: { web: sampleItems("web", 1) } }))
    const provider = duckAt(page.baseUrl)
    await search(provider, query({ safe: false, tbs: "qdr:h" }))
    await search(provider, query({ country: "GB" }))
    await search(provider, query({ country: "de" }))
    await search(provider, query({ country: "ch", lang: "fr", tbs: "qdr:y" }))
    await search(provider, query({ lang: "fr" }))
    expect(page.requests.map((request) => request.form)).toEqual([
      { q: "effect typescript", kl: "wt-wt", df: "d", kp: "-2" },
      { q: "effect typescript", kl: "uk-en" },
      { q: "effect typescript", kl: "de-de" },
      { q: "effect typescript", kl: "ch-fr", df: "y" },
      { q: "effect typescript", kl: "wt-wt" },
    ])
  })

  it("reads results: redirect links decoded, the ad skipped, highlighting and entities gone", async () => {
    const page = await fake(startFakeDuckDuckGo({ corpus: { web: sampleItems("web", 3) } }))
    const answer = await search(duckAt(page.baseUrl), query({ query: "result" }))
    expect(answer.hits).toEqual(
      sampleItems("web", 3).map((item) => ({ url: item.url, title: item.title, description: item.description })),
    )
  })

  it("skips ads even when they link straight to the advertiser", async () => {
    const html = `<html><body><div id="links" class="results">
      <div class="result results_links result--ad"><h2><a class="result__a" href="https://ads.example/buy">Buy</a></h2></div>
      <div class="result results_links"><h2><a class="result__a" href="https://example.com/x">X &amp; Y</a></h2>
        <a class="result__snippet" href="https://example.com/x">An <b>effect</b></a></div>
    </div></body></html>`
    const page = await fake(startFakeDuckDuckGo({ reply: () => ({ text: html }) }))
    const answer = await search(duckAt(page.baseUrl), query())
    expect(answer.hits).toEqual([{ url: "https://example.com/x", title: "X & Y", description: "An effect" }])
  })

  it("takes direct links as they are", async () => {
    const page = await fake(startFakeDuckDuckGo({ directLinks: true, corpus: { web: sampleItems("web", 2) } }))
    const answer = await search(duckAt(page.baseUrl), query())
    expect(urls(answer)).toEqual(sampleItems("web", 2).map((item) => item.url))
  })

  it("decodes DuckDuckGo's redirect links and leaves its own links out", () => {
    expect(
      DuckDuckGo.targetOf("//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.com%2Fa%3Fb%3D1%26c%3D%25C3%25A9&rut=abc123"),
    ).toBe("https://example.com/a?b=1&c=%C3%A9")
    expect(DuckDuckGo.targetOf("https://duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.org%2F")).toBe(
      "https://example.org/",
    )
    expect(DuckDuckGo.targetOf("https://example.net/page")).toBe("https://example.net/page")
    expect(DuckDuckGo.targetOf("https://duckduckgo.com/y.js?ad_domain=ads.example&u3=x")).toBeUndefined()
    expect(DuckDuckGo.targetOf("//duckduckgo.com/l/?uddg=javascript%3Aalert(1)")).toBeUndefined()
    expect(DuckDuckGo.targetOf("/l/?kh=-1")).toBeUndefined()
    expect(DuckDuckGo.targetOf(undefined)).toBeUndefined()
  })

  it("pages by posting back the page's Next form, keeping the filters", async () => {
    const page = await fake(startFakeDuckDuckGo({ corpus: { web: sampleItems("web", 40) } }))
    const answer = await search(duckAt(page.baseUrl), query({ limit: 25, country: "fr", lang: "fr", tbs: "qdr:m" }))
    expect(urls(answer)).toEqual(sampleItems("web", 25).map((item) => item.url))
    expect(page.requests.map((request) => request.form.s)).toEqual([undefined, "10", "20"])
    const second = page.requests[1]!.form
    expect(second).toMatchObject({ q: "effect typescript", s: "10", dc: "11", api: "d.js", kl: "fr-fr", df: "m" })
    expect(second.vqd).toMatch(/^4-/)
    // The third page's form is the second page's Next, not its Previous.
    expect(page.requests[2]!.form.vqd).not.toBe(second.vqd)
  })

  it("stops when a page has no Next form", async () => {
    const page = await fake(startFakeDuckDuckGo({ corpus: { web: sampleItems("web", 15) } }))
    const answer = await search(duckAt(page.baseUrl), query({ limit: 50 }))
    expect(answer.hits).toHaveLength(15)
    expect(page.requests).toHaveLength(2)
  })

  it("answers no hits for DuckDuckGo's No results", async () => {
    const page = await fake(startFakeDuckDuckGo({ corpus: { web: [] } }))
    const answer = await search(duckAt(page.baseUrl), query())
    expect(answer.hits).toEqual([])
    expect(page.requests).toHaveLength(1)
  })

  it("is refused by a captcha page", async () => {
    const page = await fake(startFakeDuckDuckGo({ reply: () => ({ status: 202, body: undefined }) }))
    const error = await failure(duckAt(page.baseUrl), query())
    expect(error.reason).toBe("Refused")
    expect(error.message).toContain("captcha")

    const plain = await fake(startFakeDuckDuckGo({ reply: () => ({ text: DUCKDUCKGO_CAPTCHA_PAGE }) }))
    expect((await failure(duckAt(plain.baseUrl), query())).reason).toBe("Refused")
  })

  it("fails InvalidResponse for a page that is not a results page", async () => {
    const page = await fake(startFakeDuckDuckGo({ reply: () => ({ text: "<html><body><p>Moved</p></body></html>" }) }))
    expect((await failure(duckAt(page.baseUrl), query())).reason).toBe("InvalidResponse")
  })

  it("has only web results, and says so without a request", async () => {
    const page = await fake(startFakeDuckDuckGo({ corpus: { web: sampleItems("web", 3) } }))
    for (const source of ["news", "images"] as const) {
      const error = await failure(duckAt(page.baseUrl), query({ source }))
      expect(error.reason).toBe("Unsupported")
    }
    expect(page.requests).toHaveLength(0)
  })

  it("spaces its requests by minIntervalMs, across calls and pages, one at a time", async () => {
    const page = await fake(startFakeDuckDuckGo({ corpus: { web: sampleItems("web", 25) } }))
    const provider = duckAt(page.baseUrl, 250)
    await search(provider, query({ limit: 5 }))
    await search(provider, query({ limit: 5 }))
    await Promise.all([search(provider, query({ limit: 25 })), search(provider, query({ limit: 5 }))])
    const times = page.requests.map((request) => request.at)
    expect(times).toHaveLength(6)
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(245)
  })

  it("spaces requests per provider: another provider does not wait", async () => {
    const page = await fake(startFakeDuckDuckGo({ corpus: { web: sampleItems("web", 5) } }))
    await search(duckAt(page.baseUrl, 5_000), query())
    const { ms } = await timed(() => search(duckAt(page.baseUrl, 5_000), query()))
    expect(ms).toBeLessThan(1_000)
  })

  it("counts the wait for its turn in the budget", async () => {
    const page = await fake(startFakeDuckDuckGo({ corpus: { web: sampleItems("web", 5) } }))
    const provider = duckAt(page.baseUrl, 2_000)
    await search(provider, query())
    const { value: error, ms } = await timed(() => failure(provider, query({ timeoutMs: 300 })))
    expect(error.reason).toBe("Timeout")
    expect(ms).toBeLessThan(1_000)
    expect(page.requests).toHaveLength(1)
  })

  it("maps HTTP failures and slowness", async () => {
    const replies = {
      limited: rateLimited(60),
      forbidden: { status: 403 },
      broken: { status: 500 },
    } as const
    for (const [name, reply] of Object.entries(replies)) {
      const page = await fake(startFakeDuckDuckGo({ reply: () => reply }))
      const error = await failure(duckAt(page.baseUrl), query())
      expect(error.reason, name).toBe(
        name === "limited" ? "RateLimited" : name === "forbidden" ? "Refused" : "Unavailable",
      )
      if (name === "limited") expect(error.message).toContain("retry after 60 s")
    }
    const slow = await fake(
      startFakeDuckDuckGo({ corpus: { web: sampleItems("web", 5) }, reply: () => ({ delayMs: 3_000 }) }),
    )
    const { value: error, ms } = await timed(() => failure(duckAt(slow.baseUrl), query({ timeoutMs: 300 })))
    expect(error.reason).toBe("Timeout")
    expect(ms).toBeLessThan(1_500)
  })
})
