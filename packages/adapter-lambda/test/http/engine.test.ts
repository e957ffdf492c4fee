/**
 * The Lambda handlers over a real engine (memory store, worker in process) and a page server on 127.0.0.1: the
 * fixture events of every integration scrape a local page; links carry the stage; one engine per container.
 */
import { Engine, type EngineServices, ServerConfig } from "@webdata/core"
import { ConfigProvider, Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type FixtureSite, startFixtureSite } from "../../../core/test/support/fixtureSite.js"
import type {
  AlbResult,
  ApiGatewayV1Event,
  ApiGatewayV1Result,
  ApiGatewayV2Event,
  ApiGatewayV2Result,
  LambdaHttpEvent,
  LambdaHttpResult,
} from "../../src/http/index.js"
import { toLambdaHandler } from "../../src/http/index.js"
import { FIXTURES, fixture, json, withBody, withJson, withPath } from "./support.js"

interface Envelope {
  readonly success: boolean
  readonly code?: string
  readonly error?: string
  readonly url?: string
  readonly id?: string
  readonly status?: string
  readonly data?: unknown
}

const engine = (): Layer.Layer<EngineServices> => Engine.layer({ allowPrivateAddresses: true })
const open = { serverConfig: ServerConfig.layer({}) }

let site: FixtureSite
const handler = toLambdaHandler(engine(), open)

beforeAll(async () => {
  site = await startFixtureSite()
})
afterAll(async () => {
  await handler.dispose()
  await site?.close()
})

const scrape = <Event extends LambdaHttpEvent>(event: Event, base64 = false): Event =>
  withJson(event, { url: `${site.url}/article`, formats: ["markdown"] }, base64)

const body = (result: LambdaHttpResult) => json(result) as Envelope

describe("toLambdaHandler over a real engine", () => {
  it("POST /v2/scrape from every kind of event, with a plain and a base64 body, returns the page's markdown", async () => {
    for (const name of FIXTURES) {
      for (const base64 of [false, true]) {
        const result = await handler(scrape(fixture(name), base64))
        expect(result.statusCode, `${name} ${base64}`).toBe(200)
        const answer = body(result) as Envelope & { data: { markdown: string; metadata: { sourceURL: string } } }
        expect(answer.success).toBe(true)
        expect(answer.data.markdown).toContain("## How the turbines work")
        expect(answer.data.markdown).toContain("Tidal power captures the energy carried by the rise and fall")
        expect(answer.data.metadata.sourceURL).toBe(`${site.url}/article`)
      }
    }
  })

  it("answers in the shape of each integration", async () => {
    const v1 = (await handler(scrape(fixture("api-gateway-rest-v1")))) as ApiGatewayV1Result
    expect(v1.multiValueHeaders).toEqual({})
    expect(v1.headers["content-type"]).toMatch(/^application\/json/)
    const v2 = (await handler(scrape(fixture("function-url")))) as ApiGatewayV2Result
    expect(v2.cookies).toEqual([])
    const alb = (await handler(scrape(fixture("alb")))) as AlbResult
    expect(alb.statusDescription).toBe("200 OK")
    expect(alb.headers?.["content-type"]).toMatch(/^application\/json/)
    const albMulti = (await handler(scrape(fixture("alb-multi-value")))) as AlbResult
    expect(albMulti.multiValueHeaders?.["content-type"]?.[0]).toMatch(/^application\/json/)
    expect(albMulti.headers).toBeUndefined()
  })

  it("routes below the stage and links to the API under it (X-Forwarded-Prefix), with the client's scheme", async () => {
    const start = async (event: LambdaHttpEvent) => {
      const started = body(await handler(withJson(withPath(event, "/v2/crawl"), { url: site.url, limit: 2 })))
      expect(started.success).toBe(true)
      return started
    }
    const rest = await start(fixture("api-gateway-rest-v1"))
    expect(rest.url).toBe(`https://r9x2k4m1qa.execute-api.us-east-1.amazonaws.com/prod/v2/crawl/${rest.id}`)
    const http = await start(fixture<ApiGatewayV2Event>("http-api-v2-named-stage"))
    expect(http.url).toBe(`https://k3j9h2g1f0.execute-api.eu-west-1.amazonaws.com/prod/v2/crawl/${http.id}`)
    const alb = await start(fixture("alb"))
    expect(alb.url).toBe(`http://webdata-alb-123578498.us-east-1.elb.amazonaws.com/v2/crawl/${alb.id}`)

    // The status, read through the stage the link names.
    const status = withPath(fixture<ApiGatewayV1Event>("api-gateway-rest-v1"), `/v2/crawl/${rest.id}`, "GET")
    expect(status.requestContext.path).toBe(`/prod/v2/crawl/${rest.id}`)
    let crawl = body(await handler(status))
    for (const deadline = Date.now() + 20_000; crawl.status === "scraping" && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      crawl = body(await handler(status))
    }
    expect(crawl.status).toBe("completed")
    expect(crawl.data).toHaveLength(2)
  })

  it("an unknown route answers the API's 404 envelope, pointing at the OpenAPI document under the stage", async () => {
    const result = await handler(withPath(fixture("api-gateway-rest-v1"), "/v2/nothing-here", "GET"))
    expect(result.statusCode).toBe(404)
    expect(body(result)).toEqual({
      success: false,
      code: "NOT_FOUND",
      error: "Not found. See /prod/v2/openapi.json for the routes and methods of this API.",
    })
  })

  it("a malformed event answers 400 without reaching the API", async () => {
    const result = (await handler({
      ...scrape(fixture<ApiGatewayV2Event>("function-url")),
      rawPath: "",
    })) as ApiGatewayV2Result
    expect(result.statusCode).toBe(400)
    expect(body(result)).toEqual({ success: false, code: "BAD_REQUEST", error: "Bad request: missing rawPath" })
  })

  it("a binary upload (base64 multipart, a windows-1252 page) is parsed by POST /v2/parse", async () => {
    const page = Buffer.from(
      "<html><head><title>Menu</title></head><body><h1>Carte</h1><p>Caf\u00e9 cr\u00e8me br\u00fbl\u00e9e</p></body></html>",
      "latin1",
    )
    const form = new FormData()
    form.set("file", new Blob([page], { type: "text/html; charset=windows-1252" }), "menu.html")
    form.set("options", JSON.stringify({ formats: ["markdown"] }))
    const encoded = new Request("http://localhost/", { method: "POST", body: form })
    const event = withPath(fixture<ApiGatewayV2Event>("http-api-v2-named-stage"), "/v2/parse")
    const upload = withBody(
      { ...event, headers: { ...event.headers, "content-type": encoded.headers.get("content-type") ?? "" } },
      new Uint8Array(await encoded.arrayBuffer()),
    )
    const result = await handler(upload)
    expect(result.statusCode).toBe(200)
    expect((body(result).data as { markdown: string }).markdown).toContain("Caf\u00e9 cr\u00e8me br\u00fbl\u00e9e")
  })

  it("a response over maxResponseBytes answers 502 RESPONSE_TOO_LARGE", async () => {
    const small = toLambdaHandler(engine(), { ...open, maxResponseBytes: 800 })
    try {
      const result = await small(scrape(fixture("http-api-v2-default-stage")))
      expect(result.statusCode).toBe(502)
      const answer = body(result)
      expect(answer).toMatchObject({ success: false, code: "RESPONSE_TOO_LARGE" })
      expect(answer.error).toMatch(/^The response is \d+ bytes, over Lambda's limit of 800 bytes/)
    } finally {
      await small.dispose()
    }
  })

  it("builds the engine once, at the first invocation, and reuses it while the container is warm", async () => {
    let builds = 0
    const counted = Layer.merge(engine(), Layer.effectDiscard(Effect.sync(() => builds++)))
    const lambda = toLambdaHandler(counted, open)
    expect(builds).toBe(0)
    const health = withPath(fixture("function-url"), "/", "GET")
    expect((await lambda(health)).statusCode).toBe(200)
    expect(builds).toBe(1)
    for (let i = 0; i < 3; i++) expect((await lambda(scrape(fixture("function-url")))).statusCode).toBe(200)
    expect(builds).toBe(1)
    await lambda.dispose()
    // A container that released its engine builds a new one if it is invoked again.
    expect((await lambda(health)).statusCode).toBe(200)
    expect(builds).toBe(2)
    await lambda.dispose()
  })

  it("after a build that failed (a store that could not be reached), the next invocation builds again", async () => {
    let attempts = 0
    const flaky = Layer.merge(
      engine(),
      Layer.effectDiscard(Effect.suspend(() => (++attempts === 1 ? Effect.die("store unreachable") : Effect.void))),
    )
    const lambda = toLambdaHandler(flaky, open)
    const health = withPath(fixture("function-url"), "/", "GET")
    const failed = await lambda(health)
    expect(failed.statusCode).toBe(500)
    expect(body(failed)).toMatchObject({ success: false, code: "UNKNOWN_ERROR" })
    expect((await lambda(health)).statusCode).toBe(200)
    expect(attempts).toBe(2)
    await lambda.dispose()
  })

  it("with API keys, a request without the key answers 401; with it, 200", async () => {
    const keyed = toLambdaHandler(engine(), { serverConfig: ServerConfig.layer({ apiKeys: ["lambda-key"] }) })
    try {
      const event = scrape(fixture<ApiGatewayV2Event>("http-api-v2-named-stage"))
      const { authorization: _, ...anonymous } = event.headers ?? {}
      const denied = await keyed({ ...event, headers: anonymous })
      expect(denied.statusCode).toBe(401)
      expect(body(denied)).toMatchObject({ success: false })
      // The fixture's own key is not one of them.
      expect((await keyed(event)).statusCode).toBe(401)
      const allowed = await keyed({ ...event, headers: { ...anonymous, authorization: "Bearer lambda-key" } })
      expect(allowed.statusCode).toBe(200)
    } finally {
      await keyed.dispose()
    }
  })

  it("by default the keys come from WEBDATA_API_KEYS, read at the first invocation", async () => {
    const before = process.env.WEBDATA_API_KEYS
    const lambda = toLambdaHandler(engine())
    process.env.WEBDATA_API_KEYS = "env-key-1, env-key-2"
    try {
      const event = scrape(fixture<ApiGatewayV1Event>("api-gateway-rest-v1"))
      expect((await lambda(event)).statusCode).toBe(401)
      const keyed = { ...event, multiValueHeaders: { ...event.multiValueHeaders, Authorization: ["Bearer env-key-2"] } }
      expect((await lambda(keyed)).statusCode).toBe(200)
    } finally {
      if (before === undefined) delete process.env.WEBDATA_API_KEYS
      else process.env.WEBDATA_API_KEYS = before
      await lambda.dispose()
    }
  })

  it("on the keyless tier (WEBDATA_KEYLESS=1), scrapes without a key, each source IP an owner of its own", async () => {
    const settings = ConfigProvider.fromMap(
      new Map([
        ["WEBDATA_API_KEYS", "lambda-key"],
        ["WEBDATA_KEYLESS", "1"],
        ["WEBDATA_KEYLESS_LIMITS", "scrape=1/min"],
      ]),
    )
    const keyless = toLambdaHandler(engine(), {
      serverConfig: ServerConfig.layerConfig.pipe(Layer.provide(Layer.setConfigProvider(settings))),
    })
    try {
      const url = scrape(fixture<ApiGatewayV2Event>("function-url"))
      expect((await keyless(url)).statusCode).toBe(200)
      expect(body(await keyless(url))).toMatchObject({ success: false, code: "RATE_LIMIT_EXCEEDED" })
      // Another address (a v2 event's, then a REST API's without its fixture key) has its own allowance.
      expect((await keyless(scrape(fixture("http-api-v2-default-stage")))).statusCode).toBe(200)
      const rest = scrape(fixture<ApiGatewayV1Event>("api-gateway-rest-v1"))
      const anonymous = {
        ...rest,
        headers: {},
        multiValueHeaders: { "Content-Type": ["application/json"] },
        requestContext: { ...rest.requestContext, identity: { sourceIp: "192.0.2.30" } },
      }
      expect((await keyless(anonymous)).statusCode).toBe(200)
      // An ALB event carries no address the client could not have written: a key is needed there.
      expect((await keyless(scrape(fixture("alb")))).statusCode).toBe(401)
    } finally {
      await keyless.dispose()
    }
  })
})
