/**
 * The buffered handler over stub web handlers: cookies both ways, binary both ways, the client's address, and its own
 * error answers.
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import type {
  AlbResult,
  ApiGatewayV1Event,
  ApiGatewayV1Result,
  ApiGatewayV2Event,
  ApiGatewayV2Result,
  BasicResult,
  LambdaHttpEvent,
} from "../../src/http/index.js"
import { fromWebHandler } from "../../src/http/index.js"
import { fixture, json, withBody } from "./support.js"

/** Answers with the request's cookies and sets two of its own. */
const cookieEcho = fromWebHandler(async (request) => {
  const headers = new Headers({ "content-type": "application/json" })
  headers.append("set-cookie", "a=1; Path=/")
  headers.append("set-cookie", "b=2; Path=/; Secure")
  return new Response(JSON.stringify({ cookie: request.headers.get("cookie") }), { headers })
})

/** Answers with the request body's bytes as the given type. */
const bodyEcho = (type: string) =>
  fromWebHandler(async (request) => new Response(await request.arrayBuffer(), { headers: { "content-type": type } }))

const pdf = Buffer.concat([
  Buffer.from("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "latin1"),
  Buffer.from(Uint8Array.from({ length: 50_000 }, (_, i) => (i * 131 + 17) % 256)),
  Buffer.from("\n%%EOF\n"),
])

afterEach(() => vi.restoreAllMocks())

describe("fromWebHandler", () => {
  it("passes cookies in and every Set-Cookie out, in each integration's form", async () => {
    const v2 = (await cookieEcho(fixture("http-api-v2-named-stage"))) as ApiGatewayV2Result
    expect(json(v2)).toEqual({ cookie: "session=abc123; theme=dark" })
    expect(v2.cookies).toEqual(["a=1; Path=/", "b=2; Path=/; Secure"])
    expect(v2.headers["set-cookie"]).toBeUndefined()

    const url = (await cookieEcho(fixture("function-url"))) as ApiGatewayV2Result
    expect(json(url)).toEqual({ cookie: "session=fn-url-session" })
    expect(url.cookies).toHaveLength(2)

    const rest = fixture<ApiGatewayV1Event>("api-gateway-rest-v1")
    const v1 = (await cookieEcho({
      ...rest,
      multiValueHeaders: { ...rest.multiValueHeaders, Cookie: ["session=rest; theme=dark"] },
    })) as ApiGatewayV1Result
    expect(json(v1)).toEqual({ cookie: "session=rest; theme=dark" })
    expect(v1.multiValueHeaders).toEqual({ "set-cookie": ["a=1; Path=/", "b=2; Path=/; Secure"] })

    const alb = (await cookieEcho(fixture("alb-multi-value"))) as AlbResult
    expect(json(alb)).toEqual({ cookie: "session=alb-session; theme=dark" })
    expect(alb.multiValueHeaders?.["set-cookie"]).toEqual(["a=1; Path=/", "b=2; Path=/; Secure"])
  })

  it("a binary request body (base64) comes back as a binary response (base64), byte for byte", async () => {
    for (const name of ["api-gateway-rest-v1", "http-api-v2-default-stage", "alb", "alb-multi-value"] as const) {
      const result = (await bodyEcho("application/pdf")(withBody(fixture(name), pdf))) as BasicResult
      expect(result.statusCode).toBe(200)
      expect(result.isBase64Encoded).toBe(true)
      expect(Buffer.from(result.body, "base64").equals(pdf), name).toBe(true)
    }
  })

  it("tells the handler the source IP API Gateway or the function URL saw, never a forwarded header", async () => {
    const addressEcho = fromWebHandler(async (_, origin) => Response.json({ address: origin?.clientAddress ?? null }))
    const addressOf = async (event: LambdaHttpEvent) => (json(await addressEcho(event)) as { address: unknown }).address
    const rest = fixture<ApiGatewayV1Event>("api-gateway-rest-v1")
    expect(rest.requestContext.identity?.sourceIp).toBe("198.51.100.7")
    expect(await addressOf(rest)).toBe("198.51.100.7")
    expect(await addressOf(fixture("http-api-v2-default-stage"))).toBe("203.0.113.20")
    const url = fixture<ApiGatewayV2Event>("function-url")
    const spoofed = { ...url, headers: { ...url.headers, "x-forwarded-for": "192.0.2.99" } }
    expect(await addressOf(spoofed)).toBe("198.51.100.7")
    const other = {
      ...url,
      requestContext: { ...url.requestContext, http: { ...url.requestContext.http, sourceIp: "2001:db8::7" } },
    }
    expect(await addressOf(other)).toBe("2001:db8::7")
    // Only X-Forwarded-For says where an ALB request came from: no address. Nor is a console test's placeholder one.
    expect(await addressOf(fixture("alb"))).toBeNull()
    const test = {
      ...rest,
      requestContext: { ...rest.requestContext, identity: { sourceIp: "test-invoke-source-ip" } },
    }
    expect(await addressOf(test)).toBeNull()
  })

  it("a malformed event answers 400 BAD_REQUEST in the event's shape, or one every format accepts", async () => {
    const handler = vi.fn(async () => new Response("never"))
    const lambda = fromWebHandler(handler)
    const broken = { ...fixture("http-api-v2-named-stage"), body: "%%%", isBase64Encoded: true }
    const v2 = (await lambda(broken)) as ApiGatewayV2Result
    expect(v2.statusCode).toBe(400)
    expect(v2.cookies).toEqual([])
    expect(json(v2)).toEqual({ success: false, code: "BAD_REQUEST", error: "Bad request: body is not valid base64" })
    const alb = (await lambda({ ...fixture("alb"), headers: { host: "a b" } })) as AlbResult
    expect(alb.statusDescription).toBe("400 Bad Request")
    const sqs = await lambda({ Records: [{ body: "{}" }] } as never)
    expect(sqs).toEqual({
      statusCode: 400,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        success: false,
        code: "BAD_REQUEST",
        error: "Bad request: not an API Gateway, function URL or ALB event",
      }),
      isBase64Encoded: false,
    })
    expect(handler).not.toHaveBeenCalled()
  })

  it("a handler that throws (or whose body fails) answers 500 with a logged error id, never the error", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined)
    const throwing = fromWebHandler(async () => {
      throw new Error("secret database password in this message")
    })
    const result = (await throwing(fixture("api-gateway-rest-v1"))) as ApiGatewayV1Result
    expect(result.statusCode).toBe(500)
    const envelope = json(result) as { success: boolean; code: string; error: string }
    expect(envelope).toMatchObject({ success: false, code: "UNKNOWN_ERROR" })
    const id = /Error ID: ([0-9a-f-]{36})$/.exec(envelope.error)?.[1]
    expect(id).toBeDefined()
    expect(result.body).not.toContain("secret")
    expect(logged).toHaveBeenCalledWith(`Unhandled error ${id}`, expect.any(Error))

    const failingBody = fromWebHandler(
      async () =>
        new Response(
          new ReadableStream({
            pull: (controller) => controller.error(new Error("socket closed")),
          }),
        ),
    )
    expect((await failingBody(fixture("function-url"))).statusCode).toBe(500)
    expect(logged).toHaveBeenCalledTimes(2)
  })
})
