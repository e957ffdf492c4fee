import { Cause, Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import * as Engine from "../../src/Engine.js"
import * as ServerConfig from "../../src/Http/ServerConfig.js"
import { makeWebHandler } from "../../src/Http/WebHandler.js"
import { layer, redactSecrets } from "../../src/Process/Logging.js"
import { Scrape } from "../../src/Scrape.js"

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
