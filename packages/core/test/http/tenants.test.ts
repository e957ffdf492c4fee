/**
 * Keys as tenants through the web handler: each key sees only what it made, limits answer 429/402 with
 * `Retry-After` and recover, the admin API makes and revokes keys, and the usage routes count what a key did.
 */
import { createServer } from "node:http"
import { Either, Layer } from "effect"
import { exportJWK, generateKeyPair, SignJWT } from "jose"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Engine from "../../src/Engine.js"
import * as ServerConfig from "../../src/Http/ServerConfig.js"
import { makeWebHandler, type WebHandler } from "../../src/Http/WebHandler.js"
import { entryOf, parseKeysFile } from "../../src/Tenants/ApiKey.js"
import { endpointClassOf } from "../../src/Tenants/EndpointClass.js"
import { NO_LIMITS, parseLimits } from "../../src/Tenants/Limits.js"
import { admitsUncounted } from "../../src/Tenants/Quotas.js"
import { type FixtureSite, startFixtureSite } from "../support/fixtureSite.js"
import { listenOnLoopback } from "../support/loopback.js"

const KEY_A = "key-a-0123456789abcdef"
const KEY_B = "key-b-0123456789abcdef"
const KEY_C = "key-c-0123456789abcdef"
const ADMIN = "admin-0123456789abcdef"

const limitsOf = (text: string) => Either.getOrThrow(parseLimits(text))

const handlerWith = (options: ServerConfig.ServerConfigOptions): WebHandler =>
  makeWebHandler(Layer.merge(Engine.layer({ worker: false, allowPrivateAddresses: true }), ServerConfig.layer(options)))

const callOn =
  (web: WebHandler) =>
  async (method: string, path: string, key: string | undefined, body?: object, clientAddress?: string) => {
    const response = await web.handler(
      new Request(`http://api.test${path}`, {
        method,
        headers: {
          "content-type": "application/json",
          ...(key !== undefined ? { authorization: `Bearer ${key}` } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      }),
      { clientAddress },
    )
    return {
      status: response.status,
      retryAfter: response.headers.get("retry-after"),
      body: (await response.json()) as Record<string, unknown>,
    }
  }

let site: FixtureSite
beforeAll(async () => {
  site = await startFixtureSite()
})
afterAll(() => site.close())

describe("keys files and limits", () => {
  it("parses limits and refuses mistakes with a message naming the field", () => {
    expect(limitsOf("scrape=60/min, crawl=10/hour,jobs=5,credits=100")).toEqual({
      rates: {
        scrape: { count: 60, windowMs: 60_000, unit: "min" },
        crawl: { count: 10, windowMs: 3_600_000, unit: "hour" },
      },
      jobs: 5,
      credits: 100,
    })
    expect(parseLimits("scrape=60/fortnight")).toEqual(Either.left(expect.stringContaining("scrape")))
    expect(parseLimits("scrap=60/min")).toEqual(Either.left(expect.stringContaining('unknown limit "scrap"')))
    expect(parseLimits("jobs=-1")).toEqual(Either.left(expect.stringContaining("jobs")))
  })

  it("reads JSON and YAML keys files and never echoes a key in an error", () => {
    const yaml = `keys:\n  - key: ${KEY_A}\n    name: team-a\n    limits: { scrape: 5/min, jobs: 2 }\n    flags: [ignoreRobotsTxt]\n`
    const parsed = Either.getOrThrow(parseKeysFile(yaml))
    expect(parsed).toHaveLength(1)
    expect(parsed[0]).toMatchObject({ name: "team-a", limits: { jobs: 2 }, flags: ["ignoreRobotsTxt"], source: "file" })
    expect(JSON.stringify(parsed)).not.toContain(KEY_A)
    const json = JSON.stringify([{ key: KEY_B, name: "b", limits: "crawl=1/s" }])
    expect(Either.getOrThrow(parseKeysFile(json))[0]?.limits.rates.crawl).toMatchObject({ count: 1, windowMs: 1000 })
    const bad = parseKeysFile(JSON.stringify([{ key: KEY_A, name: "a", limits: { scrape: "lots" } }]))
    expect(Either.isLeft(bad) && bad.left).toMatch(/entry 1 \(a\): scrape/)
    expect(Either.isLeft(bad) && bad.left).not.toContain(KEY_A)
    expect(Either.isLeft(parseKeysFile(JSON.stringify([{ key: "short", name: "x" }])))).toBe(true)
    expect(Either.isLeft(parseKeysFile("[{ key: x, name: a, extra: 1 }]"))).toBe(true)
  })

  it("sorts routes into endpoint classes", () => {
    expect(endpointClassOf("POST", "/v2/scrape")).toBe("scrape")
    expect(endpointClassOf("GET", "/v2/scrape/abc")).toBe("status")
    expect(endpointClassOf("POST", "/v2/scrape/abc/interact")).toBe("interact")
    expect(endpointClassOf("POST", "/v2/batch/scrape")).toBe("batch")
    expect(endpointClassOf("POST", "/v2/crawl/params-preview")).toBe("crawl")
    expect(endpointClassOf("DELETE", "/v2/crawl/abc")).toBe("status")
    expect(endpointClassOf("POST", "/v2/monitor/abc/run")).toBe("monitor")
  })

  it("checks nothing only where a limit could not refuse the request (the hot routes skip the store then)", () => {
    const limits = (text: string) => Either.getOrThrow(parseLimits(text))
    const uncounted = (text: string, endpoint: Parameters<typeof admitsUncounted>[1]) =>
      admitsUncounted(limits(text), endpoint)
    for (const endpoint of ["status", "scrape", "crawl", "search"] as const)
      expect([endpoint, admitsUncounted(NO_LIMITS, endpoint)]).toEqual([endpoint, true])
    expect(uncounted("scrape=60/min", "scrape")).toBe(false)
    expect(uncounted("scrape=60/min", "search")).toBe(true)
    expect(uncounted("credits=100", "scrape")).toBe(false)
    expect(uncounted("credits=100", "status")).toBe(true)
    expect(uncounted("jobs=2", "crawl")).toBe(false)
    expect(uncounted("queue=10", "batch")).toBe(false)
    expect(uncounted("jobs=2,queue=10", "scrape")).toBe(true)
    expect(uncounted("status=100/min", "status")).toBe(false)
  })
})

describe("two keys", () => {
  const web = handlerWith({ apiKeys: [KEY_A, KEY_B] })
  const call = callOn(web)
  afterAll(() => web.dispose())

  it("each sees only its own crawls, scrapes and monitors; another key's id is a 404 like a missing one", async () => {
    const crawl = await call("POST", "/v2/crawl", KEY_A, { url: `${site.url}/` })
    expect(crawl.status).toBe(200)
    const scrape = await call("POST", "/v2/scrape", KEY_A, { url: `${site.url}/article`, formats: ["markdown"] })
    expect(scrape.status).toBe(200)
    const scrapeId = (scrape.body.data as { metadata: { scrapeId: string } }).metadata.scrapeId
    const monitor = await call("POST", "/v2/monitor", KEY_A, {
      name: "a's",
      schedule: { cron: "0 * * * *" },
      targets: [{ type: "scrape", urls: [`${site.url}/`] }],
    })
    expect(monitor.status).toBe(200)

    expect((await call("GET", `/v2/crawl/${crawl.body.id}`, KEY_A)).status).toBe(200)
    expect((await call("GET", `/v2/scrape/${scrapeId}`, KEY_A)).status).toBe(200)
    const missing = await call("GET", "/v2/crawl/0190f3a0-0000-7000-8000-000000000000", KEY_B)
    for (const path of [`/v2/crawl/${crawl.body.id}`, `/v2/scrape/${scrapeId}`]) {
      const other = await call("GET", path, KEY_B)
      expect(other.status, path).toBe(404)
      expect(other.body, path).toMatchObject({ success: false, error: missing.body.error })
    }
    expect((await call("DELETE", `/v2/crawl/${crawl.body.id}`, KEY_B)).status).toBe(404)
    expect((await call("GET", "/v2/crawl/active", KEY_B)).body).toMatchObject({ success: true, crawls: [] })
    expect((await call("GET", "/v2/monitor", KEY_B)).body).toMatchObject({ success: true, data: [] })
    const monitorId = (monitor.body.data as { id: string }).id
    expect((await call("GET", `/v2/monitor/${monitorId}`, KEY_B)).status).toBe(404)
  })

  it("caps one request's size with clear 400s: a crawl's limit, a batch's URLs, the actions", async () => {
    const crawl = await call("POST", "/v2/crawl", KEY_A, { url: `${site.url}/`, limit: 2_000_000 })
    expect(crawl.status).toBe(400)
    expect(JSON.stringify(crawl.body.details)).toContain("limit cannot exceed 1,000,000")
    const urls = Array.from({ length: 10_001 }, (_, i) => `${site.url}/p${i}`)
    const batch = await call("POST", "/v2/batch/scrape", KEY_A, { urls })
    expect(batch.status).toBe(400)
    expect(JSON.stringify(batch.body.details)).toContain("at most 10,000 per request")
    const actions = Array.from({ length: 51 }, () => ({ type: "scroll", direction: "down" }))
    const scrape = await call("POST", "/v2/scrape", KEY_A, { url: `${site.url}/`, actions })
    expect(scrape.status).toBe(400)
    expect(JSON.stringify(scrape.body.details)).toContain("cannot exceed 50")
  })

  it("answers Firecrawl's 401 bodies without a key and with a wrong one", async () => {
    expect(await call("GET", "/v2/crawl/active", undefined)).toMatchObject({
      status: 401,
      body: { success: false, code: "UNAUTHORIZED", error: expect.stringContaining("missing API key") },
    })
    expect(await call("GET", "/v2/crawl/active", `${KEY_A}x`)).toMatchObject({
      status: 401,
      body: { success: false, code: "UNAUTHORIZED", error: "Unauthorized: Invalid token" },
    })
  })
})

describe("limits", () => {
  const web = handlerWith({
    keys: [
      entryOf(KEY_A, "tight", "file", limitsOf("status=2/s,jobs=1")),
      entryOf(KEY_B, "roomy", "file", NO_LIMITS, ["ignoreRobotsTxt"]),
      entryOf(KEY_C, "racing", "file", limitsOf("jobs=2")),
    ],
    limits: limitsOf("status=50/min"),
  })
  const call = callOn(web)
  afterAll(() => web.dispose())

  it("lets only a key with the ignoreRobotsTxt flag ignore robots.txt", async () => {
    const body = { url: `${site.url}/`, ignoreRobotsTxt: true }
    expect(await call("POST", "/v2/crawl", KEY_A, body)).toMatchObject({ status: 403, body: { code: "FORBIDDEN" } })
    expect((await call("POST", "/v2/crawl", KEY_B, body)).status).toBe(200)
  })

  // Before the rate test: a PATCH counts against KEY_A's status rate.
  it("lets only a key with the ignoreRobotsTxt flag make or change a monitor whose crawl ignores robots.txt", async () => {
    const targets = (crawlOptions: object) => [{ type: "crawl", url: `${site.url}/`, crawlOptions }]
    const monitor = (crawlOptions: object) => ({
      name: "robots",
      schedule: { text: "daily" },
      targets: targets(crawlOptions),
    })
    const ignoring = monitor({ ignoreRobotsTxt: true })
    expect(await call("POST", "/v2/monitor", KEY_A, ignoring)).toMatchObject({
      status: 403,
      body: { code: "FORBIDDEN" },
    })
    expect((await call("POST", "/v2/monitor", KEY_B, ignoring)).status).toBe(200)
    for (const key of [KEY_A, KEY_B]) {
      const made = await call("POST", "/v2/monitor", key, monitor({}))
      expect(made.status).toBe(200)
      const change = await call("PATCH", `/v2/monitor/${(made.body.data as { id: string }).id}`, key, {
        targets: targets({ ignoreRobotsTxt: true }),
      })
      expect(change.status).toBe(key === KEY_A ? 403 : 200)
    }
  })

  it("answers 429 with Retry-After and Firecrawl's message past a rate, other keys unaffected, then recovers", async () => {
    // Start right after a second begins, so that the three requests share one window.
    await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 5))
    const answers = [] as Array<Awaited<ReturnType<typeof call>>>
    for (let i = 0; i < 3; i++) answers.push(await call("GET", "/v2/crawl/active", KEY_A))
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 429])
    const refused = answers[2]
    expect(refused?.body).toMatchObject({
      success: false,
      code: "RATE_LIMIT_EXCEEDED",
      error: expect.stringMatching(
        /^Rate limit exceeded\. Consumed \(req\/s\): 3, Remaining \(req\/s\): 0\. Please retry after 1s/,
      ),
    })
    expect(refused?.retryAfter).toBe("1")
    expect((await call("GET", "/v2/crawl/active", KEY_B)).status).toBe(200)
    await new Promise((resolve) => setTimeout(resolve, Number(refused?.retryAfter) * 1000))
    expect((await call("GET", "/v2/crawl/active", KEY_A)).status).toBe(200)
  })

  it("refuses a second job past the key's jobs limit until the first ends", async () => {
    const first = await call("POST", "/v2/crawl", KEY_A, { url: `${site.url}/` })
    expect(first.status).toBe(200)
    const second = await call("POST", "/v2/batch/scrape", KEY_A, { urls: [`${site.url}/article`] })
    expect(second).toMatchObject({ status: 429, retryAfter: "10", body: { code: "CONCURRENCY_LIMIT_EXCEEDED" } })
    expect((await call("POST", "/v2/crawl", KEY_B, { url: `${site.url}/` })).status).toBe(200)
    expect((await call("DELETE", `/v2/crawl/${first.body.id}`, KEY_A)).status).toBe(200)
    expect((await call("POST", "/v2/batch/scrape", KEY_A, { urls: [`${site.url}/article`] })).status).toBe(200)
  })

  it("holds the jobs limit against requests that arrive at once", async () => {
    // No worker runs here: every job made stays in progress.
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => call("POST", "/v2/batch/scrape", KEY_C, { urls: [`${site.url}/page-${i}`] })),
    )
    const accepted = answers.filter((answer) => answer.status === 200)
    expect(accepted.length).toBeGreaterThanOrEqual(1)
    expect(accepted.length).toBeLessThanOrEqual(2)
    for (const answer of answers.filter((answer) => answer.status !== 200))
      expect(answer).toMatchObject({ status: 429, retryAfter: "10", body: { code: "CONCURRENCY_LIMIT_EXCEEDED" } })
    // A refused request left no job in progress behind it: the accepted ones fill the limit, or leave room for one.
    const next = await call("POST", "/v2/batch/scrape", KEY_C, { urls: [`${site.url}/next`] })
    expect(next.status).toBe(accepted.length === 2 ? 429 : 200)
  })
})

describe("the queue limit and credits", () => {
  const web = handlerWith({
    keys: [entryOf(KEY_A, "a", "file", limitsOf("credits=2")), entryOf(KEY_B, "b", "file")],
    limits: limitsOf("queue=2"),
  })
  const call = callOn(web)
  afterAll(() => web.dispose())

  it("refuses new jobs while the queue holds its limit of tasks (no worker runs here)", async () => {
    expect((await call("POST", "/v2/batch/scrape", KEY_B, { urls: [`${site.url}/a`, `${site.url}/b`] })).status).toBe(
      200,
    )
    expect(await call("POST", "/v2/crawl", KEY_B, { url: `${site.url}/` })).toMatchObject({
      status: 429,
      body: { code: "QUEUE_FULL", error: expect.stringContaining("The queue is full (2 tasks waiting, limit 2)") },
    })
    // Requests that start no job are not queued work.
    expect((await call("POST", "/v2/scrape", KEY_B, { url: `${site.url}/` })).status).toBe(200)
  })

  it("answers 402 once the month's credits are used, and the usage routes count them", async () => {
    for (let i = 0; i < 2; i++)
      expect((await call("POST", "/v2/scrape", KEY_A, { url: `${site.url}/article` })).status).toBe(200)
    expect(await call("POST", "/v2/scrape", KEY_A, { url: `${site.url}/article` })).toMatchObject({
      status: 402,
      body: { success: false, code: "INSUFFICIENT_CREDITS" },
    })
    const usage = await call("GET", "/v2/team/credit-usage", KEY_A)
    expect(usage.body).toMatchObject({ success: true, data: { remainingCredits: 0, planCredits: 2, creditsUsed: 2 } })
    const month = new Date().toISOString().slice(0, 7)
    expect((usage.body.data as { billingPeriodStart: string }).billingPeriodStart).toBe(`${month}-01T00:00:00.000Z`)
    const history = await call("GET", "/v2/team/credit-usage/historical?byApiKey=true", KEY_A)
    const periods = history.body.periods as Array<{ startDate: string; creditsUsed: number; apiKey: string }>
    expect(periods).toHaveLength(12)
    expect(periods.at(-1)).toMatchObject({ startDate: `${month}-01T00:00:00.000Z`, creditsUsed: 2, apiKey: "a" })
    expect(periods.slice(0, -1).every((period) => period.creditsUsed === 0)).toBe(true)
    // Key b's usage is its own: the batch above queued pages but none was scraped; two scrapes were.
    expect((await call("GET", "/v2/team/credit-usage", KEY_B)).body).toMatchObject({
      data: { creditsUsed: 1, remainingCredits: Number.MAX_SAFE_INTEGER },
    })
    expect((await call("GET", "/v2/team/token-usage", KEY_A)).body).toMatchObject({
      success: true,
      data: { tokensUsed: 0 },
    })
  })

  it("reports the key's queue and jobs in progress", async () => {
    expect((await call("GET", "/v2/concurrency-check", KEY_B)).body).toEqual({
      success: true,
      concurrency: 1,
      maxConcurrency: Number.MAX_SAFE_INTEGER,
    })
    expect((await call("GET", "/v2/team/queue-status", KEY_B)).body).toMatchObject({
      success: true,
      jobsInQueue: 2,
      activeJobsInQueue: 2,
      waitingJobsInQueue: 0,
      mostRecentSuccess: null,
    })
    expect((await call("GET", "/v2/concurrency-check", KEY_A)).body).toMatchObject({ concurrency: 0 })
  })
})

describe("the admin API", () => {
  const web = handlerWith({ adminKey: ADMIN, apiKeys: [KEY_A] })
  const call = callOn(web)
  afterAll(() => web.dispose())

  it("makes a key that works at once, lists keys without secrets, and revokes it", async () => {
    expect((await call("POST", "/v2/admin/keys", KEY_A, { name: "x" })).status).toBe(401)
    const made = await call("POST", "/v2/admin/keys", ADMIN, { name: "partner", limits: "scrape=10/min" })
    expect(made.status).toBe(200)
    const key = made.body.key as string
    expect(key).toMatch(/^fc-[0-9a-f]{64}$/)
    const view = made.body.data as { id: string }
    expect(made.body.data).toMatchObject({ name: "partner", source: "admin", limits: "scrape=10/min", revokedAt: null })

    const crawl = await call("POST", "/v2/crawl", key, { url: `${site.url}/` })
    expect(crawl.status).toBe(200)
    expect((await call("GET", `/v2/crawl/${crawl.body.id}`, KEY_A)).status).toBe(404)

    const listed = await call("GET", "/v2/admin/keys", ADMIN)
    const names = (listed.body.data as Array<{ name: string; source: string }>).map((entry) => [
      entry.name,
      entry.source,
    ])
    expect(names).toEqual([
      ["key-1", "environment"],
      ["partner", "admin"],
    ])
    expect(JSON.stringify(listed.body)).not.toContain(key)
    expect(JSON.stringify(listed.body)).not.toContain(KEY_A)

    const revoked = await call("DELETE", `/v2/admin/keys/${view.id}`, ADMIN)
    expect(revoked.body).toMatchObject({ success: true, data: { name: "partner", revokedAt: expect.any(String) } })
    expect((await call("GET", `/v2/crawl/${crawl.body.id}`, key)).status).toBe(401)

    const fixed = (listed.body.data as Array<{ id: string; source: string }>).find((entry) => entry.source !== "admin")
    expect(await call("DELETE", `/v2/admin/keys/${fixed?.id}`, ADMIN)).toMatchObject({
      status: 409,
      body: { error: expect.stringContaining("WEBDATA_API_KEYS") },
    })
    expect((await call("DELETE", `/v2/admin/keys/${"0".repeat(64)}`, ADMIN)).status).toBe(404)
    expect(await call("POST", "/v2/admin/keys", ADMIN, { name: "bad", limits: "scrape=fast" })).toMatchObject({
      status: 400,
      body: { success: false, error: expect.stringContaining("scrape") },
    })
  })
})

describe("the keyless tier", () => {
  const web = handlerWith({ apiKeys: [KEY_A], keyless: limitsOf("scrape=2/min") })
  const call = callOn(web)
  afterAll(() => web.dispose())

  it("scrapes without a key, limited per client address, and nothing else", async () => {
    const scrape = (address: string | undefined) =>
      call("POST", "/v2/scrape", undefined, { url: `${site.url}/`, formats: ["markdown"] }, address)
    const first = await scrape("192.0.2.10")
    expect(first.status).toBe(200)
    expect((await scrape("192.0.2.10")).status).toBe(200)
    expect(await scrape("192.0.2.10")).toMatchObject({ status: 429, body: { code: "RATE_LIMIT_EXCEEDED" } })
    expect((await scrape("192.0.2.11")).status).toBe(200)
    // No address from the host: nothing to limit by, so a key is needed.
    expect((await scrape(undefined)).status).toBe(401)
    expect((await call("POST", "/v2/crawl", undefined, { url: `${site.url}/` }, "192.0.2.12")).status).toBe(401)
    const scrapeId = (first.body.data as { metadata: { scrapeId: string } }).metadata.scrapeId
    expect((await call("GET", `/v2/scrape/${scrapeId}`, undefined, undefined, "192.0.2.10")).status).toBe(401)
    // A keyed caller is not limited by the tier.
    for (let i = 0; i < 3; i++)
      expect((await call("POST", "/v2/scrape", KEY_A, { url: `${site.url}/` })).status).toBe(200)
  })
})

describe("key registration with an identity assertion", () => {
  const ISSUER = "https://id.example.test"
  let jwks: { url: string; close: () => Promise<void> }
  let signing: CryptoKey
  let web: WebHandler
  let call: ReturnType<typeof callOn>

  beforeAll(async () => {
    const pair = await generateKeyPair("ES256")
    signing = pair.privateKey
    const published = { keys: [{ ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256", use: "sig" }] }
    const server = createServer((_, res) =>
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(published)),
    )
    jwks = await listenOnLoopback(server)
    web = handlerWith({
      apiKeys: [KEY_A],
      issuers: [{ issuer: ISSUER, jwksUrl: `${jwks.url}/jwks.json`, audience: "webdata" }],
      registeredLimits: limitsOf("scrape=5/min"),
    })
    call = callOn(web)
  })
  afterAll(async () => {
    await web.dispose()
    await jwks.close()
  })

  const assertion = (claims: { sub?: string; iss?: string; aud?: string; exp?: string }, key: CryptoKey = signing) => {
    let jwt = new SignJWT({}).setProtectedHeader({ alg: "ES256", kid: "k1" }).setIssuedAt()
    if (claims.sub !== undefined) jwt = jwt.setSubject(claims.sub)
    jwt = jwt
      .setIssuer(claims.iss ?? ISSUER)
      .setAudience(claims.aud ?? "webdata")
      .setExpirationTime(claims.exp ?? "5m")
    return jwt.sign(key)
  }

  it("issues a working key for a verified assertion, and a new one (revoking the old) on the next", async () => {
    const first = await call("POST", "/v2/keys/register", undefined, { assertion: await assertion({ sub: "agent-7" }) })
    expect(first.status).toBe(200)
    expect(first.body).toMatchObject({ success: true, data: { source: "admin", limits: "scrape=5/min" } })
    const key = first.body.key as string
    expect((await call("GET", "/v2/crawl/active", key)).status).toBe(200)
    const second = await call("POST", "/v2/keys/register", undefined, {
      assertion: await assertion({ sub: "agent-7" }),
    })
    expect(second.status).toBe(200)
    expect(second.body.key).not.toBe(key)
    expect((await call("GET", "/v2/crawl/active", second.body.key as string)).status).toBe(200)
    expect((await call("GET", "/v2/crawl/active", key)).status).toBe(401)
  })

  it("refuses forged, foreign, expired and malformed assertions with 401", async () => {
    const other = (await generateKeyPair("ES256")).privateKey
    const cases = [
      await assertion({ sub: "x" }, other),
      await assertion({ sub: "x", iss: "https://elsewhere.test" }),
      await assertion({ sub: "x", aud: "someone-else" }),
      await assertion({ sub: "x", exp: "-1m" }),
      await assertion({}),
      "not-a-jwt",
    ]
    for (const [index, jwt] of cases.entries()) {
      const answer = await call("POST", "/v2/keys/register", undefined, { assertion: jwt })
      expect(answer.status, `case ${index}`).toBe(401)
      expect(answer.body, `case ${index}`).toMatchObject({ success: false, code: "UNAUTHORIZED" })
    }
    expect((await call("POST", "/v2/keys/register", undefined, {})).status).toBe(400)
  })

  it("limits registrations per client address (one shared budget without an address), 429 with Retry-After", async () => {
    const fresh = handlerWith({ apiKeys: [KEY_A], issuers: [{ issuer: ISSUER, jwksUrl: `${jwks.url}/jwks.json` }] })
    const register = (address: string | undefined) =>
      callOn(fresh)("POST", "/v2/keys/register", undefined, { assertion: "not-a-jwt" }, address)
    // Start well before a minute ends, so that the requests share one window.
    const left = 60_000 - (Date.now() % 60_000)
    if (left < 3000) await new Promise((resolve) => setTimeout(resolve, left + 5))
    for (const address of ["192.0.2.20", undefined]) {
      for (let i = 0; i < 10; i++) expect((await register(address)).status).toBe(401)
      const refused = await register(address)
      expect(refused).toMatchObject({ status: 429, body: { success: false, code: "RATE_LIMIT_EXCEEDED" } })
      expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1)
    }
    expect((await register("192.0.2.21")).status).toBe(401)
    await fresh.dispose()
  })

  it("is off without issuers", async () => {
    const plain = handlerWith({ apiKeys: [KEY_A] })
    const answer = await callOn(plain)("POST", "/v2/keys/register", undefined, { assertion: "a.b.c" })
    await plain.dispose()
    expect(answer.status).toBe(404)
  })
})
