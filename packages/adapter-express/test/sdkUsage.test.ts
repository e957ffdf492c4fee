/**
 * The official Firecrawl SDK's account methods against `serve()` with a key that has limits: credit and token usage
 * (now and by month), the queue and concurrency, and a rate limit's 429 as the SDK reports it.
 */
import Firecrawl from "@mendable/firecrawl-js"
import { Engine, ServerConfig } from "@webdata/core"
import { type RunningServer, serve } from "@webdata/server"
import { Either } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { entryOf } from "../../core/src/Tenants/ApiKey.js"
import { parseLimits } from "../../core/src/Tenants/Limits.js"
import { type FixtureSite, startFixtureSite } from "../../core/test/support/fixtureSite.js"

const KEY = "fc-usage-0123456789abcdef"

let site: FixtureSite
let api: RunningServer
let client: Firecrawl

beforeAll(async () => {
  site = await startFixtureSite()
  api = await serve({
    port: 0,
    engine: Engine.layer({ allowPrivateAddresses: true, worker: { pollMs: 20 } }),
    serverConfig: ServerConfig.layer({
      keys: [entryOf(KEY, "sdk", "file", Either.getOrThrow(parseLimits("map=2/hour,jobs=3,credits=100")))],
    }),
  })
  client = new Firecrawl({ apiKey: KEY, apiUrl: api.url })
})

afterAll(async () => {
  await api?.close()
  await site?.close()
})

describe("the SDK's account methods", () => {
  it("report the key's credits, tokens, queue and concurrency", async () => {
    await client.scrape(`${site.url}/article`, { formats: ["markdown"] })
    await client.crawl(`${site.url}/`, { limit: 2, scrapeOptions: { formats: ["markdown"] }, pollInterval: 0.1 })
    const credits = await client.getCreditUsage()
    expect(credits.planCredits).toBe(100)
    expect(credits.remainingCredits).toBe(100 - 3)
    expect(credits.billingPeriodStart).toMatch(/^\d{4}-\d{2}-01T00:00:00.000Z$/)
    const history = await client.getCreditUsageHistorical(true)
    expect(history.periods.at(-1)).toMatchObject({ creditsUsed: 3, apiKey: "sdk" })
    expect((await client.getTokenUsage()).remainingTokens).toBeGreaterThan(0)
    expect((await client.getTokenUsageHistorical()).periods).toHaveLength(12)
    expect(await client.getConcurrency()).toEqual({ concurrency: 0, maxConcurrency: 3 })
    expect(await client.getQueueStatus()).toMatchObject({ success: true, jobsInQueue: 0, maxConcurrency: 3 })
    expect((await client.getQueueStatus()).mostRecentSuccess).not.toBeNull()
  })

  it("surfaces a rate limit as a 429 error", async () => {
    await client.map(`${site.url}/`)
    await client.map(`${site.url}/`)
    await expect(client.map(`${site.url}/`)).rejects.toMatchObject({ status: 429 })
  })
})
