import { Cause, ConfigProvider, Effect, Either, Layer, LogLevel } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Engine from "../../src/Engine.js"
import * as ServerConfig from "../../src/Http/ServerConfig.js"
import { makeWebHandler } from "../../src/Http/WebHandler.js"
import { layer, layerWith, redactSecrets, settingsConfig } from "../../src/Process/Logging.js"
import { Scrape } from "../../src/Scrape.js"
import { type FixtureSite, startFixtureSite } from "../support/fixtureSite.js"

describe("redactSecrets", () => {
  it("hides credentials in URLs, secret query parameters and authorization values", () => {
    expect(redactSecrets("Webhook not delivered: http://user:pa55@127.0.0.1:9/hook")).toBe(
      "Webhook not delivered: http://***@127.0.0.1:9/hook",
    )
    expect(redactSecrets("https://token@example.test/x")).toBe("https://***@example.test/x")
    expect(redactSecrets("GET https://example.test/p/77?secret=k1only&page=2&api_key=abc#access_token=zz")).toBe(
      "GET https://example.test/p/77?secret=***&page=2&api_key=***#access_token=***",
    )
    expect(redactSecrets('{"authorization":"Bearer fc-0123456789"} and Basic dXNlcjpwYXNz')).toBe(
      '{"authorization":"Bearer ***"} and Basic ***',
    )
  })

  it("leaves ordinary text and URLs alone", () => {
    const line = "Task 0193 (https://example.test/blog?page=2&sort=new) ended abnormally: user@example.test wrote"
    expect(redactSecrets(line)).toBe(line)
  })
})

describe("the redacting logger", () => {
  it("redacts the message and the cause of every line", async () => {
    const lines: Array<string> = []
    const original = globalThis.console.log
    globalThis.console.log = (...args: Array<unknown>) => void lines.push(args.map(String).join(" "))
    try {
      await Effect.runPromise(
        Effect.logWarning(
          "Webhook not delivered: http://user:pass@127.0.0.1:9/h?token=abc",
          Cause.fail(new Error("refused http://u:p@127.0.0.1/?key=zz")),
        ).pipe(Effect.provide(layer)),
      )
    } finally {
      globalThis.console.log = original
    }
    const logged = lines.join("\n")
    expect(logged).toContain("Webhook not delivered: http://***@127.0.0.1:9/h?token=***")
    expect(logged).toContain("refused http://***@127.0.0.1/?key=***")
    expect(logged).not.toMatch(/pass|abc|zz/)
  })
})

/** What the default logger printed while `run` ran. */
const captureLog = async (run: () => Promise<unknown>): Promise<string> => {
  const lines: Array<string> = []
  const original = globalThis.console.log
  globalThis.console.log = (...args: Array<unknown>) => void lines.push(args.map(String).join(" "))
  try {
    await run()
  } finally {
    globalThis.console.log = original
  }
  return lines.join("\n")
}

describe("every log line of the engine and the API is redacted", () => {
  it("in effects run on the engine, the worker's fibers included", async () => {
    const logged = await captureLog(() =>
      Effect.runPromise(
        Effect.logWarning("Task failed: http://user:pass@127.0.0.1:9/p?token=s3cret").pipe(
          Effect.provide(Engine.layer({ worker: false })),
        ),
      ),
    )
    expect(logged).toContain("http://***@127.0.0.1:9/p?token=***")
    expect(logged).not.toMatch(/pass@|s3cret/)
  })

  it("in the web handler's own fibers (a defect's log line)", async () => {
    const dying = Layer.merge(
      Engine.layer({ worker: false }),
      Layer.succeed(Scrape, {
        scrape: () => Effect.die(new Error("broke on http://user:pass@127.0.0.1:9/p?api_key=s3cret")),
        scrapeDetailed: () => Effect.die(new Error("broke on http://user:pass@127.0.0.1:9/p?api_key=s3cret")),
      }),
    )
    const api = makeWebHandler(Layer.merge(dying, ServerConfig.layer()))
    try {
      const logged = await captureLog(async () => {
        const response = await api.handler(
          new Request("http://api.test/v2/scrape", {
            method: "POST",
            headers: { "content-type": "application/json", authorization: "Bearer fc-0123456789" },
            body: JSON.stringify({ url: "https://example.com/page" }),
          }),
        )
        expect(response.status).toBe(500)
      })
      expect(logged).toContain("http://***@127.0.0.1:9/p?api_key=***")
      expect(logged).not.toMatch(/pass@|s3cret/)
    } finally {
      await api.dispose()
    }
  })
})

describe("the log settings", () => {
  const read = (env: Record<string, string>) =>
    Effect.runPromise(
      Effect.either(settingsConfig).pipe(
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))),
      ),
    )

  it("default to pretty lines at info level and accept the usual level names", async () => {
    expect(await read({})).toEqual(Either.right({ format: "pretty", level: LogLevel.Info }))
    expect(await read({ WEBDATA_LOG_FORMAT: "JSON", WEBDATA_LOG_LEVEL: "warn" })).toEqual(
      Either.right({ format: "json", level: LogLevel.Warning }),
    )
  })

  it("refuse a bad value with a message naming the variable", async () => {
    for (const [name, value] of [
      ["WEBDATA_LOG_FORMAT", "xml"],
      ["WEBDATA_LOG_LEVEL", "loud"],
    ] as const) {
      const result = await read({ [name]: value })
      expect(Either.isLeft(result)).toBe(true)
      if (Either.isLeft(result)) expect(String(result.left)).toContain(`${name}="${value}": must be`)
    }
  })
})

describe("the JSON logger", () => {
  it("writes one object per line with the annotations as fields, secret fields hidden", async () => {
    const logged = await captureLog(() =>
      Effect.runPromise(
        Effect.logInfo("Delivered", {
          apiKey: "fc-abc",
          nested: { password: "hunter2", note: "Bearer abcdef123" },
        }).pipe(
          Effect.annotateLogs({ requestId: "r-1", token: "t0k", status: 200 }),
          Effect.withLogSpan("work"),
          Effect.provide(layerWith({ format: "json", level: LogLevel.Info })),
        ),
      ),
    )
    const line = JSON.parse(logged) as Record<string, unknown>
    expect(line).toMatchObject({
      level: "INFO",
      message: ["Delivered", { apiKey: "***", nested: { password: "***", note: "Bearer ***" } }],
      requestId: "r-1",
      token: "***",
      status: 200,
    })
    expect(typeof line.time).toBe("string")
    expect(line.spans).toHaveProperty("work")
  })

  it("drops lines below the level", async () => {
    const logged = await captureLog(() =>
      Effect.runPromise(
        Effect.logInfo("quiet").pipe(
          Effect.zipRight(Effect.logError("loud")),
          Effect.provide(layerWith({ format: "json", level: LogLevel.Error })),
        ),
      ),
    )
    expect(logged).not.toContain("quiet")
    expect(logged).toContain("loud")
  })

  it("hides secret fields in pretty lines too", () => {
    expect(redactSecrets('apiKey=fc-123 {"password":"hunter2"} token: abc key="k1"')).toBe(
      'apiKey=*** {"password":"***"} token: *** key="***"',
    )
  })
})

describe("the request log line of a real request", () => {
  const KEY = "fc-request-log-key-0123"
  let site: FixtureSite
  const saved = { format: process.env.WEBDATA_LOG_FORMAT, level: process.env.WEBDATA_LOG_LEVEL }
  beforeAll(async () => {
    site = await startFixtureSite()
    process.env.WEBDATA_LOG_FORMAT = "json"
    process.env.WEBDATA_LOG_LEVEL = "debug"
  })
  afterAll(async () => {
    for (const [name, value] of [
      ["WEBDATA_LOG_FORMAT", saved.format],
      ["WEBDATA_LOG_LEVEL", saved.level],
    ] as const)
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    await site.close()
  })

  it("says who, what, where and how long in one JSON line, with no secret in any line", async () => {
    const failing = (input: { readonly url: string }) =>
      Effect.die(new Error(`broke on ${input.url} with Authorization: Bearer ${KEY} and apiKey=${KEY}`))
    const engine = Engine.layer({ worker: false, allowPrivateAddresses: true })
    const api = makeWebHandler(Layer.merge(engine, ServerConfig.layer({ apiKeys: [KEY] })))
    const dying = makeWebHandler(
      Layer.mergeAll(
        engine,
        Layer.succeed(Scrape, { scrape: failing, scrapeDetailed: failing }),
        ServerConfig.layer({ apiKeys: [KEY] }),
      ),
    )
    const port = new URL(site.url).port
    const target = `http://user:pa55word@127.0.0.1:${port}/article?token=t0ken-value&page=1`
    const post = (web: typeof api, path: string, body: object) =>
      web.handler(
        new Request(`http://api.test${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${KEY}`, "x-request-id": "req-42" },
          body: JSON.stringify(body),
        }),
      )
    try {
      let crawlId = ""
      const logged = await captureLog(async () => {
        const scraped = await post(api, "/v2/scrape", { url: target })
        expect(scraped.headers.get("x-request-id")).toBe("req-42")
        const crawl = await post(api, "/v2/crawl", { url: target, webhook: { url: target } })
        crawlId = ((await crawl.json()) as { id: string }).id
        // A status poll answered on the hot route, outside Effect, logs the same line as any request.
        const poll = {
          method: "GET",
          url: `http://api.test/v2/crawl/${crawlId}`,
          headers: { host: "api.test", authorization: `Bearer ${KEY}`, "x-request-id": "req-43" },
        }
        let answer = api.handlePlain(poll)
        for (; answer === undefined; answer = api.handlePlain(poll)) await new Promise((done) => setTimeout(done, 10))
        expect((await answer).status).toBe(200)
        expect((await post(dying, "/v2/scrape", { url: target })).status).toBe(500)
        // Scrapes answered on the hot route, each on a runtime made for its request, log the same lines.
        const hotScrape = async (web: typeof api, requestId: string) => {
          const text = JSON.stringify({ url: target })
          const request = {
            method: "POST",
            url: "http://api.test/v2/scrape",
            headers: { host: "api.test", authorization: `Bearer ${KEY}`, "x-request-id": requestId },
            body: async () => new TextEncoder().encode(text),
          }
          let answer = web.handlePlain(request)
          for (; answer === undefined; answer = web.handlePlain(request))
            await new Promise((done) => setTimeout(done, 10))
          return (await answer).status
        }
        expect(await hotScrape(api, "req-44")).toBe(200)
        expect(await hotScrape(dying, "req-45")).toBe(500)
      })
      const lines = logged.split("\n").map((line) => JSON.parse(line) as Record<string, unknown>)
      const requests = lines.filter((line) => line.route !== undefined)
      expect(requests.map((line) => line.message)).toEqual([
        "POST /v2/scrape 200",
        "POST /v2/crawl 200",
        "GET /v2/crawl/:id 200",
        "POST /v2/scrape 500",
        "POST /v2/scrape 200",
        "POST /v2/scrape 500",
      ])
      expect(requests[0]).toMatchObject({
        level: "INFO",
        requestId: "req-42",
        method: "POST",
        route: "/v2/scrape",
        status: 200,
        outcome: "ok",
        host: `127.0.0.1:${port}`,
        keyHash: expect.stringMatching(/^[0-9a-f]{12}$/),
        durationMs: expect.any(Number),
      })
      expect(requests[1]).toMatchObject({ jobId: crawlId, keyHash: requests[0]?.keyHash })
      expect(requests[2]).toMatchObject({
        level: "INFO",
        requestId: "req-43",
        method: "GET",
        status: 200,
        outcome: "ok",
        jobId: crawlId,
        keyHash: requests[0]?.keyHash,
        durationMs: expect.any(Number),
      })
      expect(requests[3]).toMatchObject({ level: "ERROR", status: 500, outcome: "failed" })
      expect(requests[4]).toEqual({
        ...requests[0],
        requestId: "req-44",
        time: requests[4]?.time,
        durationMs: requests[4]?.durationMs,
      })
      expect(requests[5]).toMatchObject({ level: "ERROR", requestId: "req-45", status: 500, outcome: "failed" })
      // The defect's own line carries the request id and the cause, redacted.
      const defects = lines.filter((line) => String(line.message).startsWith("Unhandled error"))
      expect(defects.map((line) => line.requestId)).toEqual(["req-42", "req-45"])
      for (const defect of defects) {
        expect(defect.cause).toEqual(expect.stringContaining("Bearer ***"))
        expect(String(defect.cause)).toContain("http://***@127.0.0.1")
      }
      expect(logged).not.toContain(KEY)
      expect(logged).not.toContain("pa55word")
      expect(logged).not.toContain("t0ken-value")
    } finally {
      await Promise.all([api.dispose(), dying.dispose()])
    }
  })
})
