import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type FakeSearch, sampleItems, startFakeSearxng } from "../../core/test/support/fakeSearch.js"
import { webdata } from "./support/run.js"
import { type SiteAndApi, startSiteAndApi } from "./support/siteAndApi.js"

let fixtures: SiteAndApi
let searxng: FakeSearch
beforeAll(async () => {
  fixtures = await startSiteAndApi()
  searxng = await startFakeSearxng({ corpus: { web: sampleItems("web", 12), news: sampleItems("news", 3) } })
})
afterAll(async () => {
  await fixtures.close()
  await searxng.close()
})

/** Runs with `WEBDATA_SEARCH` and `SEARXNG_URL` set for the local engine, then unset again. */
const withSearxng = async <A>(run: () => Promise<A>, providers = "searxng"): Promise<A> => {
  process.env.WEBDATA_SEARCH = providers
  process.env.SEARXNG_URL = searxng.baseUrl
  try {
    return await run()
  } finally {
    delete process.env.WEBDATA_SEARCH
    delete process.env.SEARXNG_URL
  }
}

describe("webdata search", () => {
  it("finds the pages a server scraped, through --api-url", async () => {
    const scraped = await webdata(["scrape", `${fixtures.site.url}/docs/setup.html`, "--api-url", fixtures.api.url])
    expect(scraped.code).toBe(0)
    const result = await webdata(["search", "setup page", "--api-url", fixtures.api.url])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(new RegExp(`^1\\. Setup\\n   ${fixtures.site.url}/docs/setup\\.html\\n`))
  })

  it("asks the providers of WEBDATA_SEARCH, per source, and prints JSON with --json", async () => {
    const listed = await withSearxng(() => webdata(["search", "results", "--limit", "3"]))
    expect(listed.code).toBe(0)
    expect(listed.stdout.split("\n").filter((line) => /^\d+\. /.test(line))).toEqual([
      "1. Web result 1",
      "2. Web result 2",
      "3. Web result 3",
    ])
    const json = await withSearxng(() => webdata(["search", "results", "--source", "news", "--json"]))
    expect(json.code).toBe(0)
    const answer = JSON.parse(json.stdout)
    expect(Object.keys(answer.data)).toEqual(["news"])
    expect(answer.data.news).toHaveLength(3)
    expect(answer.creditsUsed).toBe(2)
    expect(searxng.requests.at(-1)?.query.categories).toBe("news")
  })

  it("prints each result's markdown with --scrape", async () => {
    const result = await webdata(["search", "setup", "--scrape", "--api-url", fixtures.api.url])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain("This is the Setup page of the fixture site")
  })

  it("says on stderr when a source has no results, and fails with one line and exit code 1", async () => {
    const empty = await webdata(["search", "nothing at all matches this"])
    expect(empty.code).toBe(0)
    expect(empty.stderr).toBe("No web results.\n")
    const limit = await webdata(["search", "x", "--limit", "0"])
    expect(limit.code).toBe(1)
    expect(limit.stderr).toMatch(/^webdata: .*\(BAD_REQUEST\)\n$/)
    const images = await webdata(["search", "x", "--source", "images"])
    expect(images).toMatchObject({ code: 1 })
    expect(images.stderr).toMatch(/^webdata: No search provider could answer: local has no images search.*\n$/)
    const unknown = await withSearxng(() => webdata(["search", "x"]), "searxng,altavista")
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toMatch(/unknown provider "altavista"/)
    expect(unknown.stderr.trim().split("\n")).toHaveLength(1)
  })
})
