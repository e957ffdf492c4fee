import { createServer } from "node:net"
import { ConfigProvider, Effect, Either, Fiber, Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { decodeBody } from "../../src/Content/Charset.js"
import { type FetchedPage, Fetcher, type FetchRequest } from "../../src/Engines/Fetcher.js"
import * as HttpFetcher from "../../src/Engines/HttpFetcher.js"
import type { ScrapeError } from "../../src/Errors.js"
import * as UrlGuard from "../../src/Net/UrlGuard.js"
import { type HostileServer, start } from "../support/hostileServer.js"

let server: HostileServer
let canary: HostileServer // on 127.0.0.2, which the guard must never let us reach
let runtime: ManagedRuntime.ManagedRuntime<Fetcher, never>

// Host names resolve through a fake DNS to loopback addresses only, so even a broken guard could not send traffic
// anywhere else.
const resolver: UrlGuard.Resolver = async (hostname) => {
  const records: Record<string, string> = { "other-origin.test": "127.0.0.1", "evil.test": "127.0.0.2" }
  const address = records[hostname]
  if (address === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" })
  return [{ address, family: 4 }]
}

beforeAll(async () => {
  server = await start()
  canary = await start("127.0.0.2")
  const guard = UrlGuard.layer({ allowPrivateAddresses: false, allow: ["127.0.0.1/32"], resolver })
  runtime = ManagedRuntime.make(HttpFetcher.layer.pipe(Layer.provide(guard)))
})

afterAll(async () => {
  await runtime.dispose()
  await server.close()
  await canary.close()
})

const request = (url: string, overrides: Partial<FetchRequest> = {}): FetchRequest => ({
  url: url.startsWith("/") ? `${server.url}${url}` : url,
  headers: {},
  timeoutMs: 10_000,
  skipTlsVerification: false,
  ...overrides,
})

const fetchEither = async (url: string, overrides: Partial<FetchRequest> = {}) => {
  const started = performance.now()
  const result = await runtime.runPromise(
    Effect.either(Effect.flatMap(Fetcher, (fetcher) => fetcher.fetch(request(url, overrides)))),
  )
  return { result, elapsed: performance.now() - started }
}

const page = async (url: string, overrides: Partial<FetchRequest> = {}): Promise<FetchedPage> => {
  const { result } = await fetchEither(url, overrides)
  if (Either.isLeft(result)) throw new Error(`expected a page, got ${result.left.reason}: ${result.left.message}`)
  return result.right
}

const failure = async (url: string, overrides: Partial<FetchRequest> = {}) => {
  const { result, elapsed } = await fetchEither(url, overrides)
  if (Either.isRight(result)) throw new Error(`expected a failure, got status ${result.right.status}`)
  return { error: result.left as ScrapeError, elapsed }
}

const text = (fetched: FetchedPage) => decodeBody(fetched.body, fetched.contentType)

const PAGE_TEXT = "<p>Hostile fixture</p>"

describe("HttpFetcher: ordinary pages", () => {
  it("fetches a page with status, lower-cased headers, content type and final URL", async () => {
    const fetched = await page("/page")
    expect(fetched.status).toBe(200)
    expect(fetched.url).toBe(`${server.url}/page`)
    expect(fetched.contentType).toBe("text/html; charset=utf-8")
    expect(fetched.headers["content-type"]).toBe("text/html; charset=utf-8")
    expect(text(fetched)).toContain(PAGE_TEXT)
  })

  it("returns non-2xx responses as pages", async () => {
    expect((await page("/status/404")).status).toBe(404)
    const error = await page("/status/500")
    expect(error.status).toBe(500)
    expect(text(error)).toContain("Status 500")
  })

  it("sends browser-like default headers, and caller headers override them", async () => {
    const defaults = JSON.parse(text(await page("/echo"))).headers
    expect(defaults["user-agent"]).toMatch(/^Mozilla\/5\.0 \(Windows NT 10\.0; Win64; x64\) .* Chrome\/\d+/)
    expect(defaults.accept).toBe("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")
    expect(defaults["accept-language"]).toBe("en-US,en;q=0.9")
    expect(defaults["accept-encoding"]).toBe("gzip, deflate, br")
    const custom = JSON.parse(
      text(
        await page("/echo", {
          headers: { "User-Agent": "custom-agent/1.0", "X-Token": "abc", Host: "evil.example", Connection: "close" },
        }),
      ),
    ).headers
    expect(custom["user-agent"]).toBe("custom-agent/1.0")
    expect(custom["x-token"]).toBe("abc")
    expect(custom.host).toBe(`127.0.0.1:${server.port}`) // connection-level headers stay the client's
  })

  it.each([
    ["gzip", "/encoding/gzip"],
    ["deflate (zlib)", "/encoding/deflate"],
    ["deflate (raw)", "/encoding/deflate-raw"],
    ["br", "/encoding/br"],
  ])("decodes %s", async (_name, path) => {
    expect(text(await page(path))).toContain(PAGE_TEXT)
  })

  it("reports a body that is not in its declared encoding as EngineFailed", async () => {
    const { error } = await failure("/encoding/broken")
    expect(error.reason).toBe("EngineFailed")
    expect(error.message).toMatch(new RegExp(`^Could not decompress the response of ${server.url}/encoding/broken: `))
  })

  it("refuses an encoding it cannot decode", async () => {
    const { error } = await failure("/encoding/zstd")
    expect(error.reason).toBe("UnsupportedContent")
    expect(error.message).toContain(`${server.url}/encoding/zstd`)
  })
})

describe("HttpFetcher: redirects", () => {
  it("follows 10 hops and stops at the 11th", async () => {
    const ten = await page("/redirect/chain/10")
    expect(ten.url).toBe(`${server.url}/redirect/chain/0`)
    const { error, elapsed } = await failure("/redirect/chain/11")
    expect(error.reason).toBe("TooManyRedirects")
    expect(error.message).toContain(`${server.url}/redirect/chain/11`)
    expect(elapsed).toBeLessThan(2000)
  })

  it("ends a redirect loop with TooManyRedirects", async () => {
    const { error, elapsed } = await failure("/redirect/loop")
    expect(error.reason).toBe("TooManyRedirects")
    expect(elapsed).toBeLessThan(2000)
  })

  it("resolves a relative Location and follows 303 with GET", async () => {
    expect((await page("/redirect/relative")).url).toBe(`${server.url}/page?via=relative`)
    const seeOther = await page("/redirect/see-other")
    expect(seeOther.url).toBe(`${server.url}/echo`)
    expect(JSON.parse(text(seeOther)).method).toBe("GET")
  })

  it("keeps cookies set on a redirect for the next hop, by path", async () => {
    const fetched = await page("/cookie/start")
    expect(fetched.status).toBe(200)
    expect(text(fetched)).toContain("cookie: session=s3cret")
    expect(text(fetched)).not.toContain("unrelated")
  })

  it("does not carry cookies from one fetch to the next", async () => {
    await page("/cookie/start")
    expect((await page("/cookie/check")).status).toBe(403)
  })

  it("keeps caller credentials on the same origin and drops them on another", async () => {
    const headers = { Authorization: "Bearer secret", Cookie: "mine=1", "X-Other": "kept" }
    const same = JSON.parse(text(await page(`/redirect/to?url=${encodeURIComponent("/echo")}`, { headers }))).headers
    expect([same.authorization, same.cookie, same["x-other"]]).toEqual(["Bearer secret", "mine=1", "kept"])
    const otherOrigin = `http://other-origin.test:${server.port}/echo`
    const cross = await page(`/redirect/to?url=${encodeURIComponent(otherOrigin)}`, { headers })
    expect(cross.url).toBe(otherOrigin)
    const crossHeaders = JSON.parse(text(cross)).headers
    expect([crossHeaders.authorization, crossHeaders.cookie, crossHeaders["x-other"]]).toEqual([
      undefined,
      undefined,
      "kept",
    ])
  })

  it("refuses a redirect to another loopback address before connecting", async () => {
    const target = `http://127.0.0.2:${canary.port}/`
    const { error } = await failure(`/redirect/to?url=${encodeURIComponent(target)}`)
    expect(error.reason).toBe("BlockedAddress")
    expect(error.message).toBe('Refusing to connect to 127.0.0.2 (loopback address) for host "127.0.0.2"')
    expect(error.url).toBe(target)
    expect(canary.connections()).toBe(0)
  })

  it("refuses redirects to other schemes and to metadata addresses (no connection is attempted)", async () => {
    for (const target of ["file:///etc/passwd", "http://169.254.169.254/latest/meta-data/", "http://[::1]/"]) {
      const { error } = await failure(`/redirect/to?url=${encodeURIComponent(target)}`)
      expect(error.reason).toBe("BlockedAddress")
    }
  })

  it("refuses a host name whose address the guard refuses, at connect time, naming the URL", async () => {
    const url = `http://evil.test:${canary.port}/`
    const { error } = await failure(url)
    expect(error.reason).toBe("BlockedAddress")
    expect(error.message).toBe(
      `Refusing to connect to 127.0.0.2 (loopback address) for host "evil.test" while fetching ${url}`,
    )
    expect(canary.connections()).toBe(0)
  })
})

describe("HttpFetcher: hostile bodies stay bounded", () => {
  const rssSamples: Array<number> = []
  let sampler: NodeJS.Timeout
  let baseline: number
  beforeAll(() => {
    baseline = process.memoryUsage().rss
    sampler = setInterval(() => rssSamples.push(process.memoryUsage().rss), 20)
  })
  afterAll(() => {
    clearInterval(sampler)
    const peakGrowth = (Math.max(...rssSamples, process.memoryUsage().rss) - baseline) / 1024 / 1024
    console.log(`rss growth across bombs and huge bodies: ${peakGrowth.toFixed(1)} MB`)
    expect(peakGrowth).toBeLessThan(200)
  })

  it.each([
    ["a gzip bomb (10 GiB of zeros)", "/bomb/gzip", "decompressed size limit of 52428800 bytes"],
    ["a brotli bomb (256 MiB of zeros)", "/bomb/br", "decompressed size limit of 52428800 bytes"],
    [
      "a double gzip bomb (gzip, gzip; 64 MiB of zeros)",
      "/bomb/gzip-gzip",
      "decompressed size limit of 52428800 bytes",
    ],
    ["a 60 MB streamed page", "/huge", "body size limit of 20971520 bytes"],
    ["a 60 MB declared page", "/huge/declared", "over the body size limit of 20971520 bytes"],
  ])("stops %s with ResponseTooLarge", async (_name, path, detail) => {
    const { error, elapsed } = await failure(path, { timeoutMs: 20_000 })
    expect(error.reason).toBe("ResponseTooLarge")
    expect(error.message).toContain(detail)
    expect(error.message).toContain(`${server.url}${path}`)
    console.log(`${path}: ${error.reason} after ${elapsed.toFixed(0)} ms`)
    expect(elapsed).toBeLessThan(8000)
  })
})

describe("HttpFetcher: stacked content encodings", () => {
  it("refuses a response that stacks more than five codings, at once", async () => {
    const { error, elapsed } = await failure("/encoding/stacked", { timeoutMs: 20_000 })
    expect(error.reason).toBe("UnsupportedContent")
    expect(error.message).toContain("stacks 2000 content encodings; at most 5 are decoded")
    expect(elapsed).toBeLessThan(2000)
  })
})

describe("HttpFetcher: time limits and broken connections", () => {
  it.each([
    ["a slow drip (one byte per second)", "/slow-drip"],
    ["a body that never ends", "/never-ending"],
    ["a server that never answers", "/hang"],
  ])("times out on %s within the budget", async (_name, path) => {
    const { error, elapsed } = await failure(path, { timeoutMs: 1500 })
    expect(error.reason).toBe("Timeout")
    // The timed-out request's connection is closed, not left dripping.
    const index = server.requests.lastIndexOf(path)
    for (let i = 0; i < 50 && server.requestConnectionOpen(index); i++) await new Promise((r) => setTimeout(r, 10))
    expect(server.requestConnectionOpen(index)).toBe(false)
    expect(error.message).toBe(`Fetching ${server.url}${path} timed out after 1500 ms`)
    expect(elapsed).toBeGreaterThanOrEqual(1450)
    expect(elapsed).toBeLessThan(2500)
  })

  it("aborts the request in flight when the fiber is interrupted", async () => {
    const until = async (condition: () => boolean) => {
      for (let i = 0; i < 100 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 20))
      return condition()
    }
    const hangs = () => server.requests.filter((path) => path === "/hang").length
    const before = hangs()
    const fiber = runtime.runFork(Effect.flatMap(Fetcher, (fetcher) => fetcher.fetch(request("/hang"))))
    expect(await until(() => hangs() > before)).toBe(true)
    const index = server.requests.lastIndexOf("/hang")
    expect(server.requestConnectionOpen(index)).toBe(true)
    await runtime.runPromise(Fiber.interrupt(fiber))
    expect(await until(() => !server.requestConnectionOpen(index))).toBe(true)
  })

  it("runs a fetch effect again after an interrupted run: each run gets its own abort controller", async () => {
    // Retries (the crawl's task runner) run the same effect value again; an aborted controller must not carry over.
    const fetchPage = (await runtime.runPromise(Fetcher)).fetch(request("/page"))
    const first = runtime.runFork(fetchPage)
    await runtime.runPromise(Fiber.interrupt(first))
    const again = await runtime.runPromise(fetchPage)
    expect(again.status).toBe(200)
    expect(text(again)).toContain(PAGE_TEXT)
  })

  it("reports a reset connection and a truncated body as Connection", async () => {
    const reset = await failure("/reset")
    expect(reset.error.reason).toBe("Connection")
    expect(reset.error.message).toContain(`${server.url}/reset`)
    const truncated = await failure("/truncated")
    expect(truncated.error.reason).toBe("Connection")
    expect(truncated.error.message).toContain(`${server.url}/truncated`)
  })

  it("reports a refused connection as Connection", async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as { port: number }
        probe.close(() => resolve(port))
      })
    })
    const { error } = await failure(`http://127.0.0.1:${port}/`)
    expect(error.reason).toBe("Connection")
    expect(error.message).toBe(`Could not fetch http://127.0.0.1:${port}/: the connection was refused (ECONNREFUSED)`)
  })

  it("reports an unknown host as DnsResolution", async () => {
    const { error } = await failure("http://nowhere.test/")
    expect(error.reason).toBe("DnsResolution")
    expect(error.message).toBe('Could not resolve host "nowhere.test" (ENOTFOUND) while fetching http://nowhere.test/')
  })
})

describe("HttpFetcher: odd bytes", () => {
  it("keeps invalid UTF-8 as bytes; decoding makes U+FFFD", async () => {
    const fetched = await page("/invalid-utf8")
    expect(Buffer.from(fetched.body).includes(Buffer.from([0xc3, 0x28, 0xff, 0xfe]))).toBe(true)
    expect(text(fetched)).toBe("<p>bad: \uFFFD(\uFFFD\uFFFD</p>")
  })

  it("returns binary bodies served as text/html untouched", async () => {
    const random = await page("/binary/random")
    expect(random.body.length).toBe(64 * 1024)
    const png = await page("/binary/png")
    expect(Buffer.from(png.body.subarray(0, 8)).toString("hex")).toBe("89504e470d0a1a0a")
    expect(typeof text(random)).toBe("string")
  })

  it.each([
    ["/charset/shift_jis", "日本語のページ"],
    ["/charset/windows-1252", "Café crème"],
    ["/charset/utf-16", "<p>Grüße</p>"],
  ])("decodes %s", async (path, expected) => {
    expect(text(await page(path))).toContain(expected)
  })
})

describe("HttpFetcher.layerConfig", () => {
  it("reads its limits and User-Agent from the environment", async () => {
    const env = new Map([
      ["WEBDATA_FETCH_MAX_REDIRECTS", "2"],
      ["WEBDATA_FETCH_MAX_BODY_MB", "0.01"],
      ["WEBDATA_USER_AGENT", "webdata-test/1"],
    ])
    const guard = UrlGuard.layer({ allowPrivateAddresses: false, allow: ["127.0.0.1/32"] })
    const configured = ManagedRuntime.make(
      HttpFetcher.layerConfig.pipe(
        Layer.provide(guard),
        Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(env))),
      ),
    )
    try {
      const fetchWith = (path: string) =>
        configured.runPromise(Effect.either(Effect.flatMap(Fetcher, (fetcher) => fetcher.fetch(request(path)))))
      const echo = await fetchWith("/echo")
      expect(Either.isRight(echo) && JSON.parse(text(echo.right)).headers["user-agent"]).toBe("webdata-test/1")
      expect(Either.isRight(await fetchWith("/redirect/chain/2"))).toBe(true)
      const chain = await fetchWith("/redirect/chain/3")
      expect(Either.isLeft(chain) && chain.left.reason).toBe("TooManyRedirects")
      const big = await fetchWith("/binary/random")
      expect(Either.isLeft(big) && big.left.message).toContain("body size limit of 10486 bytes")
    } finally {
      await configured.dispose()
    }
  })
})
