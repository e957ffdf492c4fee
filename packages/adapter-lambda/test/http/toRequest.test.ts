/** Lambda HTTP events as web Requests: every kind of event, the stage and base path, and malformed events. */
import { describe, expect, it } from "vitest"
import type { AlbEvent, ApiGatewayV1Event, ApiGatewayV2Event } from "../../src/http/index.js"
import { InvalidEvent, toRequest } from "../../src/http/index.js"
import { fixture, withBody } from "./support.js"

const request = (event: unknown, basePath?: string): Request => {
  const converted = toRequest(event, basePath !== undefined ? { basePath } : {})
  if (converted instanceof InvalidEvent) throw new Error(`unexpected InvalidEvent: ${converted.reason}`)
  return converted
}

const reason = (event: unknown): string => {
  const converted = toRequest(event)
  if (!(converted instanceof InvalidEvent)) throw new Error(`expected an InvalidEvent for ${converted.url}`)
  return converted.reason
}

const SCRAPE_BODY = '{"url":"http://127.0.0.1/article","formats":["markdown"]}'

describe("toRequest", () => {
  it("API Gateway REST: the stage leaves the path for X-Forwarded-Prefix; multi-value headers and query", async () => {
    const converted = request(fixture("api-gateway-rest-v1"))
    const url = new URL(converted.url)
    expect(converted.method).toBe("POST")
    expect(url.origin).toBe("https://r9x2k4m1qa.execute-api.us-east-1.amazonaws.com")
    expect(url.pathname).toBe("/v2/scrape")
    expect(converted.headers.get("x-forwarded-prefix")).toBe("/prod")
    // Decoded values encoded again; every value of the multi-value maps, in order.
    expect(url.searchParams.getAll("lang")).toEqual(["fr", "en"])
    expect(url.searchParams.get("q")).toBe("tidal energy & waves")
    expect(converted.headers.get("x-trace-tag")).toBe("first, second")
    expect(converted.headers.get("authorization")).toBe("Bearer fc-test")
    expect(await converted.text()).toBe(SCRAPE_BODY)
  })

  it("HTTP API with a named stage: the stage is stripped from rawPath; cookies become one Cookie header", async () => {
    const converted = request(fixture("http-api-v2-named-stage"))
    const url = new URL(converted.url)
    expect(url.origin).toBe("https://k3j9h2g1f0.execute-api.eu-west-1.amazonaws.com")
    expect(url.pathname).toBe("/v2/scrape")
    expect(url.search).toBe("?lang=fr&lang=en&q=tidal%20energy%20%26%20waves")
    expect(converted.headers.get("x-forwarded-prefix")).toBe("/prod")
    expect(converted.headers.get("cookie")).toBe("session=abc123; theme=dark")
    expect(converted.headers.get("x-trace-tag")).toBe("first,second")
    expect(await converted.text()).toBe(SCRAPE_BODY)
  })

  it("HTTP API $default stage on a custom domain: no prefix; the base64 body is decoded", async () => {
    const converted = request(fixture("http-api-v2-default-stage"))
    expect(converted.url).toBe("https://api.webdata.example/v2/scrape")
    expect(converted.headers.has("x-forwarded-prefix")).toBe(false)
    expect(await converted.text()).toBe(SCRAPE_BODY)
  })

  it("function URL: the host and the cookie", () => {
    const converted = request(fixture("function-url"))
    expect(converted.url).toBe("https://a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6.lambda-url.us-east-2.on.aws/v2/scrape")
    expect(converted.headers.get("cookie")).toBe("session=fn-url-session")
  })

  it("ALB: the scheme it reports, and query values passed on as the client encoded them (not twice)", () => {
    const converted = request(fixture("alb"))
    const url = new URL(converted.url)
    expect(url.protocol).toBe("http:")
    expect(url.host).toBe("webdata-alb-123578498.us-east-1.elb.amazonaws.com")
    expect(url.search).toBe("?q=tidal%20energy%20%26%20waves&lang=en")
    expect(url.searchParams.get("q")).toBe("tidal energy & waves")
  })

  it("ALB with multi-value headers: every value of a header and a query parameter, base64 body", async () => {
    const converted = request(fixture("alb-multi-value"))
    const url = new URL(converted.url)
    expect(url.protocol).toBe("https:")
    expect(url.searchParams.getAll("lang")).toEqual(["fr", "en"])
    expect(url.searchParams.get("q")).toBe("tidal energy & waves")
    expect(converted.headers.get("x-trace-tag")).toBe("first, second")
    expect(converted.headers.get("cookie")).toBe("session=alb-session; theme=dark")
    expect(await converted.text()).toBe(SCRAPE_BODY)
  })

  it("strips a base path given as an option, after the stage, on whole segments only", () => {
    const v2 = fixture<ApiGatewayV2Event>("http-api-v2-default-stage")
    const mapped = request({ ...v2, rawPath: "/firecrawl/v2/scrape" }, "firecrawl/")
    expect(new URL(mapped.url).pathname).toBe("/v2/scrape")
    expect(mapped.headers.get("x-forwarded-prefix")).toBe("/firecrawl")
    const staged = request(
      { ...fixture("http-api-v2-named-stage"), rawPath: "/prod/firecrawl/v2/scrape" },
      "/firecrawl",
    )
    expect(new URL(staged.url).pathname).toBe("/v2/scrape")
    expect(staged.headers.get("x-forwarded-prefix")).toBe("/prod/firecrawl")
    const other = request({ ...v2, rawPath: "/firecrawlx/v2/scrape" }, "/firecrawl")
    expect(new URL(other.url).pathname).toBe("/firecrawlx/v2/scrape")
    expect(other.headers.has("x-forwarded-prefix")).toBe(false)
    // A REST API on a custom domain whose mapping shows in both paths.
    const rest = fixture<ApiGatewayV1Event>("api-gateway-rest-v1")
    const custom = request(
      {
        ...rest,
        path: "/firecrawl/v2/scrape",
        requestContext: { ...rest.requestContext, path: "/firecrawl/v2/scrape", domainName: "api.example.org" },
      },
      "/firecrawl",
    )
    expect(new URL(custom.url).pathname).toBe("/v2/scrape")
    expect(custom.headers.get("x-forwarded-prefix")).toBe("/firecrawl")
  })

  it("the root of a REST stage, a client's own X-Forwarded-Prefix and -Host dropped, `?` in a decoded path kept", () => {
    const rest = fixture<ApiGatewayV1Event>("api-gateway-rest-v1")
    const root = request({
      ...rest,
      httpMethod: "GET",
      path: "/",
      requestContext: { ...rest.requestContext, path: "/prod/" },
    })
    expect(new URL(root.url).pathname).toBe("/")
    expect(root.headers.get("x-forwarded-prefix")).toBe("/prod")
    const v2 = fixture<ApiGatewayV2Event>("http-api-v2-default-stage")
    const forged = request({
      ...v2,
      headers: { ...v2.headers, "x-forwarded-prefix": "/elsewhere", "x-forwarded-host": "evil.example" },
    })
    expect(forged.headers.has("x-forwarded-prefix")).toBe(false)
    expect(forged.headers.has("x-forwarded-host")).toBe(false)
    expect(new URL(forged.url).host).toBe(v2.headers?.host)
    const odd = request({
      ...rest,
      httpMethod: "GET",
      path: "/v2/crawl/a?b#c",
      requestContext: { ...rest.requestContext, path: "/prod/v2/crawl/a?b#c" },
    })
    expect(new URL(odd.url).pathname).toBe("/v2/crawl/a%3Fb%23c")
    expect(odd.headers.get("x-forwarded-prefix")).toBe("/prod")
  })

  it("no body for GET and HEAD; the host from requestContext.domainName, else localhost", async () => {
    const v2 = fixture<ApiGatewayV2Event>("function-url")
    const { host: _host, ...noHost } = v2.headers ?? {}
    const get = request({ ...v2, headers: noHost, requestContext: { ...v2.requestContext, http: { method: "GET" } } })
    expect(get.body).toBeNull()
    expect(new URL(get.url).host).toBe("a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6.lambda-url.us-east-2.on.aws")
    const alb = fixture<AlbEvent>("alb")
    const { host: _albHost, ...albNoHost } = alb.headers ?? {}
    const bare = request({ ...alb, httpMethod: "HEAD", headers: albNoHost })
    expect(bare.url).toBe("http://localhost/v2/scrape?q=tidal%20energy%20%26%20waves&lang=en")
    expect(bare.body).toBeNull()
  })

  it("a binary body arrives byte for byte", async () => {
    const bytes = Uint8Array.from({ length: 1024 }, (_, i) => (i * 7) % 256)
    const converted = request(withBody(fixture("function-url"), bytes))
    expect(new Uint8Array(await converted.arrayBuffer())).toEqual(bytes)
  })

  it("answers what is not an HTTP event, or a malformed one, with a one-line reason", () => {
    const v1 = fixture<ApiGatewayV1Event>("api-gateway-rest-v1")
    const v2 = fixture<ApiGatewayV2Event>("http-api-v2-default-stage")
    const alb = fixture<AlbEvent>("alb")
    const cases: Array<readonly [unknown, string]> = [
      [null, "not an API Gateway, function URL or ALB event"],
      ["GET /", "not an API Gateway, function URL or ALB event"],
      [{ Records: [{ eventSource: "aws:sqs", body: "{}" }] }, "not an API Gateway, function URL or ALB event"],
      [
        { "detail-type": "Scheduled Event", source: "aws.events", detail: {} },
        "not an API Gateway, function URL or ALB event",
      ],
      [{ ...v2, requestContext: { stage: "$default" } }, "missing requestContext.http"],
      [{ ...v2, requestContext: { ...v2.requestContext, http: {} } }, "missing requestContext.http.method"],
      [{ ...v2, rawPath: undefined }, "missing rawPath"],
      [{ ...v1, path: "" }, "missing path"],
      [{ ...alb, httpMethod: 42 }, "missing httpMethod"],
      [{ ...v2, body: "not base64!", isBase64Encoded: true }, "body is not valid base64"],
      [{ ...v2, headers: { ...v2.headers, host: "a b" } }, 'host "a b" cannot be part of a URL'],
      [
        { ...v2, headers: { ...v2.headers, host: "evil.example/path" } },
        'host "evil.example/path" cannot be part of a URL',
      ],
      [
        { ...v2, headers: { ...v2.headers, host: "user@evil.example" } },
        'host "user@evil.example" cannot be part of a URL',
      ],
      [
        { ...v2, headers: { ...v2.headers, host: "example.org:99999" } },
        'host "example.org:99999" cannot be part of a URL',
      ],
      [{ ...v2, headers: { ...v2.headers, "x-bad": "one\ntwo" } }, 'malformed header "x-bad"'],
      [{ ...v2, headers: { ...v2.headers, "bad name": "x" } }, 'malformed header "bad name"'],
      [{ ...v2, headers: "host: x" }, "headers is not an object"],
      [{ ...v1, multiValueHeaders: { Accept: [1] } }, "multiValueHeaders.Accept is not text"],
      [{ ...v2, cookies: "a=1" }, "cookies is not a list of strings"],
      [{ ...alb, path: "v2/scrape" }, "path does not start with /"],
      [{ ...alb, httpMethod: "TRACE" }, 'method "TRACE" is not supported'],
      [{ ...alb, httpMethod: "GE T" }, 'method "GE T" is not supported'],
    ]
    for (const [event, expected] of cases) {
      expect(reason(event), JSON.stringify(event).slice(0, 120)).toBe(expected)
      expect(expected).not.toContain("\n")
    }
  })
})
