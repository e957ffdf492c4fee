/**
 * Status polls and scrapes answered through `handlePlain` (no web `Request`/`Response`) give the Lambda result the web
 * path gives, for every kind of event, buffered and streamed; any other request still goes to the web handler.
 */
import type { WebHandler } from "@webdata/core"
import { Engine, ServerConfig } from "@webdata/core"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { type FixtureSite, startFixtureSite } from "../../../core/test/support/fixtureSite.js"
import {
  fromWebHandler,
  fromWebHandlerStreaming,
  type LambdaHttpEvent,
  type LambdaHttpResult,
  type LambdaStreamingHandler,
  type PlainResponse,
  plainToResult,
  toLambdaHandler,
  toResult,
  toStreamingLambdaHandler,
} from "../../src/http/index.js"
import { Collector, FIXTURES, type FixtureName, fixture, json, withJson, withPath } from "./support.js"

/** Every web handler the adapter makes, with the calls each of its two entry points answered. */
const made = vi.hoisted(() => [] as Array<{ readonly raw: WebHandler; handler: number; plain: number }>)

vi.mock("@webdata/core", async (importOriginal) => {
  const core = await importOriginal<typeof import("@webdata/core")>()
  const makeWebHandler: typeof core.makeWebHandler = (services) => {
    const raw = core.makeWebHandler(services)
    const counts = { raw, handler: 0, plain: 0 }
    made.push(counts)
    return {
      ...raw,
      handler: (request, origin) => {
        counts.handler++
        return raw.handler(request, origin)
      },
      handlePlain: (request, origin) => {
        const answer = raw.handlePlain(request, origin)
        if (answer !== undefined) counts.plain++
        return answer
      },
    }
  }
  return { ...core, makeWebHandler }
})

interface Status {
  readonly success: boolean
  readonly id?: string
  readonly status?: string
  readonly next?: string
  readonly data?: ReadonlyArray<unknown>
}

const open = { serverConfig: ServerConfig.layer({}) }
const engine = () => Engine.layer({ allowPrivateAddresses: true })

let site: FixtureSite
const lambda = toLambdaHandler(engine(), open)
let web: (typeof made)[number]
let crawlId: string

/** The event with a query, in the form its kind carries one. */
const withQuery = <Event extends LambdaHttpEvent>(event: Event, query: Record<string, string>): Event => {
  if ("rawPath" in event) return { ...event, rawQueryString: new URLSearchParams(query).toString() }
  if ("multiValueHeaders" in event && "elb" in event.requestContext)
    return {
      ...event,
      multiValueQueryStringParameters: Object.fromEntries(Object.entries(query).map(([k, v]) => [k, [v]])),
    }
  return { ...event, queryStringParameters: query, multiValueQueryStringParameters: null }
}

/** A status poll of crawl `id`, below `prefix` (a base path) when given. */
const poll = (name: FixtureName, id: string, query: Record<string, string> = {}, prefix = "") =>
  withQuery(withPath(fixture(name), `${prefix}/v2/crawl/${id}`, "GET"), query)

/** Starts a crawl of the local site through `invoke` and polls it (through `invoke` too) until it is done. */
const crawled = async (invoke: (event: LambdaHttpEvent) => Promise<Status>, prefix = ""): Promise<string> => {
  const start = withPath(fixture("function-url"), `${prefix}/v2/crawl`)
  const started = await invoke(withJson(start, { url: site.url, limit: 3 }))
  expect(started.success).toBe(true)
  const id = started.id as string
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; ) {
    const status = await invoke(poll("function-url", id, {}, prefix))
    if (status.status === "completed") return id
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`crawl ${id} did not complete`)
}

/** The result without its request id (each answer has its own), which it must have. */
const comparable = (result: LambdaHttpResult) => {
  const strip = <Value>(map: Record<string, Value> | undefined) => {
    if (map === undefined) return undefined
    expect(map["x-request-id"]).toBeDefined()
    const { "x-request-id": _, ...rest } = map
    return rest
  }
  const headers = "headers" in result ? strip(result.headers) : undefined
  const multiValueHeaders =
    "multiValueHeaders" in result && !("headers" in result) ? strip(result.multiValueHeaders) : undefined
  return { ...result, ...(headers ? { headers } : {}), ...(multiValueHeaders ? { multiValueHeaders } : {}) }
}

/** The web path's answer to `event` and the adapter's, which must have taken the plain path. */
const bothPaths = async (event: LambdaHttpEvent) => {
  const before = { handler: web.handler, plain: web.plain }
  const plain = await lambda(event)
  expect({ handler: web.handler, plain: web.plain }).toEqual({ handler: before.handler, plain: before.plain + 1 })
  const reference = await fromWebHandler(web.raw.handler)(event)
  return { plain, reference }
}

beforeAll(async () => {
  site = await startFixtureSite()
  crawlId = await crawled(async (event) => json(await lambda(event)) as Status)
  web = made[0] as (typeof made)[number]
  // The polls above prepared the plain answers: the first went to the web handler, the last ones were plain.
  expect(web.plain).toBeGreaterThan(0)
})
afterAll(async () => {
  await lambda.dispose()
  await site?.close()
})

describe("toLambdaHandler answers status polls and scrapes through handlePlain", () => {
  it("for every kind of event, a page of a real crawl: the web path's status, headers and body", async () => {
    for (const name of FIXTURES) {
      const { plain, reference } = await bothPaths(poll(name, crawlId, { limit: "1" }))
      expect(plain.statusCode, name).toBe(200)
      expect(comparable(plain), name).toEqual(comparable(reference))
      const page = json(plain) as Status
      expect(page.data, name).toHaveLength(1)
      // The link to the next page carries what both paths derive from the event: scheme, host and stage.
      expect(page.next, name).toMatch(new RegExp(`/v2/crawl/${crawlId}\\?skip=1&limit=1$`))
    }
    const rest = json((await bothPaths(poll("api-gateway-rest-v1", crawlId, { limit: "1" }))).plain) as Status
    expect(rest.next).toBe(
      `https://r9x2k4m1qa.execute-api.us-east-1.amazonaws.com/prod/v2/crawl/${crawlId}?skip=1&limit=1`,
    )
  })

  it("under a base path (a custom domain's mapping), links keep it on both paths", async () => {
    const mapped = toLambdaHandler(engine(), { ...open, basePath: "/firecrawl" })
    try {
      const id = await crawled(async (event) => json(await mapped(event)) as Status, "/firecrawl")
      // Made at the first invocation.
      const own = made.at(-1) as (typeof made)[number]
      const mappedEvent = poll("function-url", id, { limit: "1" }, "/firecrawl")
      const plainBefore = own.plain
      const plain = await mapped(mappedEvent)
      expect(own.plain).toBe(plainBefore + 1)
      const reference = await fromWebHandler(own.raw.handler, { basePath: "/firecrawl" })(mappedEvent)
      expect(comparable(plain)).toEqual(comparable(reference))
      expect((json(plain) as Status).next).toBe(
        `https://a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6.lambda-url.us-east-2.on.aws/firecrawl/v2/crawl/${id}?skip=1&limit=1`,
      )
    } finally {
      await mapped.dispose()
    }
  })

  it("an unknown job's 404 envelope is the same on both paths", async () => {
    const { plain, reference } = await bothPaths(poll("alb-multi-value", "6f1c1a52-3f1e-4c47-9a43-2d8f8b0f6a10"))
    expect(plain.statusCode).toBe(404)
    expect(comparable(plain)).toEqual(comparable(reference))
  })

  it("a scrape: the web path's status and body but for the scrape's id", async () => {
    const event = withJson(withPath(fixture("api-gateway-rest-v1"), "/v2/scrape"), {
      url: `${site.url}/article`,
      formats: ["markdown"],
    })
    const { plain, reference } = await bothPaths(event)
    const withoutId = (result: LambdaHttpResult) => {
      const body = json(result) as { data: { metadata: { scrapeId?: string } } }
      expect(body.data.metadata.scrapeId).toMatch(/^[0-9a-f-]{36}$/)
      body.data.metadata.scrapeId = "(id)"
      return body
    }
    expect(plain.statusCode).toBe(200)
    expect(withoutId(plain)).toEqual(withoutId(reference))
    const refused = await bothPaths(withJson(withPath(fixture("function-url"), "/v2/scrape"), { formats: [] }))
    expect(refused.plain.statusCode).toBe(400)
    expect(json(refused.plain)).toEqual(json(refused.reference))
  })

  it("any other request goes to the web handler", async () => {
    for (const event of [
      withPath(fixture("api-gateway-rest-v1"), `/v2/crawl/${crawlId}/errors`, "GET"),
      poll("function-url", crawlId, { limit: "1", extra: "x" }),
      withPath(fixture("alb"), "/", "GET"),
      withJson(withPath(fixture("http-api-v2-named-stage"), "/v2/crawl"), { url: site.url, limit: 1 }),
    ]) {
      const before = { handler: web.handler, plain: web.plain }
      const result = await lambda(event)
      expect(result.statusCode).toBeLessThan(300)
      expect({ handler: web.handler, plain: web.plain }).toEqual({ handler: before.handler + 1, plain: before.plain })
    }
  })
})

describe("toStreamingLambdaHandler answers status polls through handlePlain", () => {
  it("writes the web path's status, headers and body", async () => {
    const streaming = toStreamingLambdaHandler(engine(), open)
    try {
      const streamed = async (handler: LambdaStreamingHandler, event: LambdaHttpEvent) => {
        const stream = new Collector()
        await handler(event, stream)
        expect(stream.writableFinished).toBe(true)
        return stream.parsed()
      }
      const id = await crawled(async (event) => JSON.parse((await streamed(streaming, event)).body.toString()))
      const own = made.at(-1) as (typeof made)[number]
      const event = poll("function-url", id, { limit: "1" })
      const plainBefore = { handler: own.handler, plain: own.plain }
      const plain = await streamed(streaming, event)
      expect({ handler: own.handler, plain: own.plain }).toEqual({
        handler: plainBefore.handler,
        plain: plainBefore.plain + 1,
      })
      const reference = await streamed(fromWebHandlerStreaming(own.raw.handler), event)
      const { "x-request-id": plainId, ...plainHeaders } = plain.metadata.headers
      const { "x-request-id": referenceId, ...referenceHeaders } = reference.metadata.headers
      expect([plainId, referenceId].every((value) => value !== undefined)).toBe(true)
      expect({ ...plain.metadata, headers: plainHeaders }).toEqual({ ...reference.metadata, headers: referenceHeaders })
      expect(plain.metadata.statusCode).toBe(200)
      expect(plain.body.toString()).toBe(reference.body.toString())
      expect((JSON.parse(plain.body.toString()) as Status).data).toHaveLength(1)
    } finally {
      await streaming.dispose()
    }
  })
})

describe("fromWebHandler with handlePlain", () => {
  const binary: PlainResponse = {
    status: 201,
    headers: { "content-type": "image/png", "Set-Cookie": "a=1; Path=/", "x-plain": "yes" },
    body: Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0x00]),
  }
  const asResponse = (plain: PlainResponse) =>
    new Response(Buffer.from(plain.body), { status: plain.status, headers: plain.headers })

  it("shapes a plain answer as toResult shapes the same Response: base64 bodies, cookies, every integration", async () => {
    for (const name of FIXTURES) {
      const event = fixture(name)
      expect(await plainToResult(binary, event), name).toEqual(await toResult(asResponse(binary), event))
      const text = { ...binary, headers: { "content-type": "application/json" }, body: '{"ok":true}' }
      expect(await plainToResult(text, event), name).toEqual(await toResult(asResponse(text), event))
    }
    const large = { ...binary, body: new Uint8Array(2_000) }
    const limited = { maxResponseBytes: 1_000 }
    const tooLarge = await plainToResult(large, fixture("function-url"), limited)
    expect(tooLarge.statusCode).toBe(502)
    expect(json(tooLarge)).toEqual(json(await toResult(asResponse(large), fixture("function-url"), limited)))
  })

  it("offers only GETs and POSTs, and answers the API's 500 envelope when handlePlain fails", async () => {
    const offered: Array<string> = []
    const handler = fromWebHandler(async () => new Response("web"), {
      handlePlain: async (request) => {
        offered.push(`${request.method} ${request.url}`)
        if (request.url.endsWith("/fail")) throw new Error("plain failed")
        return request.url.endsWith("/plain") ? binary : undefined
      },
    })
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined)
    expect((await handler(fixture("function-url"))).body).toBe("web")
    expect((await handler(withPath(fixture("function-url"), "/plain", "GET"))).statusCode).toBe(201)
    expect((await handler(withPath(fixture("function-url"), "/other", "GET"))).body).toBe("web")
    expect((await handler(withPath(fixture("function-url"), "/plain", "DELETE"))).body).toBe("web")
    const failed = await handler(withPath(fixture("function-url"), "/fail", "GET"))
    expect(failed.statusCode).toBe(500)
    expect(json(failed)).toMatchObject({ success: false, code: "UNKNOWN_ERROR" })
    expect(errors).toHaveBeenCalled()
    errors.mockRestore()
    expect(offered.map((line) => line.replace(/^(GET|POST) https:\/\/[^/]+/, "$1 "))).toEqual([
      "POST /v2/scrape",
      "GET /plain",
      "GET /other",
      "GET /fail",
    ])
  })
})
