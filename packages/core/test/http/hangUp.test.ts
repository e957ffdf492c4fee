/** A client that hangs up mid-request is normal: no error in the log, and the server goes on serving. */
import { createServer } from "node:http"
import { Layer } from "effect"
import { afterAll, beforeAll, expect, it } from "vitest"
import * as Engine from "../../src/Engine.js"
import * as ServerConfig from "../../src/Http/ServerConfig.js"
import { makeWebHandler } from "../../src/Http/WebHandler.js"
import { type Listening, listenOnLoopback } from "../support/loopback.js"

let slow: Listening
beforeAll(async () => {
  // Answers after two seconds: long enough to hang up on.
  slow = await listenOnLoopback(
    createServer((_req, res) => {
      setTimeout(() => res.end("<html><body><p>late</p></body></html>"), 2000)
    }),
  )
})
afterAll(() => slow.close())

it("logs nothing at error level when the client hangs up during a scrape", async () => {
  const web = makeWebHandler(
    Layer.merge(Engine.layer({ allowPrivateAddresses: true, worker: false }), ServerConfig.layer()),
  )
  const lines: Array<string> = []
  const original = console.log
  console.log = (...args: Array<unknown>) => void lines.push(args.map(String).join(" "))
  try {
    const client = new AbortController()
    const answer = web.handler(
      new Request("http://api.test/v2/scrape", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ url: `${slow.url}/`, maxAge: 0 }),
        signal: client.signal,
      }),
    )
    setTimeout(() => client.abort(), 200)
    await answer.catch(() => undefined)
    await new Promise((resolve) => setTimeout(resolve, 100))
    const health = await web.handler(new Request("http://api.test/"))
    expect(health.status).toBe(200)
  } finally {
    console.log = original
    await web.dispose()
  }
  expect(lines.filter((line) => /level=(ERROR|WARN)/.test(line))).toEqual([])
})
