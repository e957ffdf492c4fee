import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { webdata } from "./support/run.js"
import { type SiteAndApi, startSiteAndApi } from "./support/siteAndApi.js"

let fixtures: SiteAndApi
beforeAll(async () => {
  fixtures = await startSiteAndApi()
})
afterAll(() => fixtures.close())

describe("webdata map", () => {
  it("prints the site's URLs one per line", async () => {
    const result = await webdata(["map", fixtures.site.url])
    expect(result.code).toBe(0)
    // `/about?lang=en` loses its query (the map's default), and `/about` answers 404, which the map drops.
    expect(result.stdout.trim().split("\n").sort()).toEqual(
      ["/", "/docs/intro", "/docs/intro.html", "/docs/setup.html"].map((path) => `${fixtures.site.url}${path}`),
    )
  })

  it("ranks by --search, cuts at --limit, prints JSON with --json", async () => {
    const ranked = await webdata(["map", fixtures.site.url, "--search", "setup", "--limit", "2"])
    expect(ranked.code).toBe(0)
    const urls = ranked.stdout.trim().split("\n")
    expect(urls).toHaveLength(2)
    expect(urls[0]).toBe(`${fixtures.site.url}/docs/setup.html`)
    const json = await webdata(["map", fixtures.site.url, "--json", "--sitemap", "skip", "--include-subdomains"])
    const answer = JSON.parse(json.stdout)
    expect(
      answer.links.find((link: { url: string }) => link.url === `${fixtures.site.url}/docs/setup.html`),
    ).toMatchObject({
      title: "Setup",
    })
  })

  it("maps through a server with --api-url", async () => {
    const result = await webdata(["map", fixtures.site.url, "--api-url", fixtures.api.url])
    expect(result.code).toBe(0)
    expect(result.stdout.trim().split("\n")).toContain(`${fixtures.site.url}/docs/intro`)
  })

  it("fails with one line and exit code 1", async () => {
    const invalid = await webdata(["map", "ftp://example.com/"])
    expect(invalid).toMatchObject({ code: 1, stderr: "webdata: URL uses unsupported protocol (BAD_REQUEST)\n" })
    const limit = await webdata(["map", fixtures.site.url, "--limit", "0"])
    expect(limit.code).toBe(1)
    expect(limit.stderr).toMatch(/^webdata: .*\(BAD_REQUEST\)\n$/)
    expect((await webdata(["map", fixtures.site.url, "--sitemap", "never"])).code).toBe(1)
  })
})
