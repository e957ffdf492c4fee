/** The scrape cache between API keys: each key its own partition by default, shared only when the operator says so. */
import { Layer } from "effect"
import { afterAll, beforeAll, expect, it } from "vitest"
import * as Engine from "../../src/Engine.js"
import * as ServerConfig from "../../src/Http/ServerConfig.js"
import { makeWebHandler } from "../../src/Http/WebHandler.js"
import { type FixtureSite, startFixtureSite } from "../support/fixtureSite.js"

let site: FixtureSite
beforeAll(async () => {
  site = await startFixtureSite()
})
afterAll(() => site.close())

const api = (cacheScope?: "global" | "key") =>
  makeWebHandler(
    Layer.merge(
      Engine.layer({ allowPrivateAddresses: true, worker: false, ...(cacheScope ? { cacheScope } : {}) }),
      ServerConfig.layer({ apiKeys: ["k1", "k2"] }),
    ),
  )

const scrape = async (web: ReturnType<typeof api>, key: string, body: object) => {
  const response = await web.handler(
    new Request("http://api.test/v2/scrape", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify(body),
    }),
  )
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

it("keeps one key's cached pages from another key by default", async () => {
  const web = api()
  try {
    const url = `${site.url}/article?secret=k1only`
    expect((await scrape(web, "k1", { url })).status).toBe(200)
    expect((await scrape(web, "k1", { url, lockdown: true })).body).toMatchObject({ success: true })
    const other = await scrape(web, "k2", { url, lockdown: true })
    expect(other.status).toBe(404)
    expect(other.body.code).toBe("SCRAPE_LOCKDOWN_CACHE_MISS")
  } finally {
    await web.dispose()
  }
})

it("shares the cache between keys with cacheScope global (WEBDATA_CACHE_SCOPE=global)", async () => {
  const web = api("global")
  try {
    const url = `${site.url}/article?shared=1`
    expect((await scrape(web, "k1", { url })).status).toBe(200)
    const other = await scrape(web, "k2", { url, lockdown: true })
    expect(other.status).toBe(200)
    expect((other.body.data as { metadata: { cacheState: string } }).metadata.cacheState).toBe("hit")
  } finally {
    await web.dispose()
  }
})
