import { createServer, type Server } from "node:https"
import type { AddressInfo } from "node:net"
import { Effect, Either, Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Fetcher } from "../../src/Engines/Fetcher.js"
import * as HttpFetcher from "../../src/Engines/HttpFetcher.js"
import * as UrlGuard from "../../src/Net/UrlGuard.js"
import { selfSigned } from "../support/selfSigned.js"

let server: Server
let url: string
let runtime: ManagedRuntime.ManagedRuntime<Fetcher, never>

beforeAll(async () => {
  server = createServer(selfSigned(), (_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
    res.end("<p>secret garden</p>")
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/`
  const guard = UrlGuard.layer({ allowPrivateAddresses: false, allow: ["127.0.0.1/32"] })
  runtime = ManagedRuntime.make(HttpFetcher.layer.pipe(Layer.provide(guard)))
})

afterAll(async () => {
  await runtime.dispose()
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

const fetchWith = (skipTlsVerification: boolean) =>
  runtime.runPromise(
    Effect.either(
      Effect.flatMap(Fetcher, (fetcher) => fetcher.fetch({ url, headers: {}, timeoutMs: 5000, skipTlsVerification })),
    ),
  )

describe("HttpFetcher over TLS", () => {
  it("refuses a self-signed certificate with a Tls error", async () => {
    const result = await fetchWith(false)
    if (Either.isRight(result)) throw new Error("expected a TLS failure")
    expect(result.left.reason).toBe("Tls")
    expect(result.left.message).toMatch(new RegExp(`^TLS error fetching ${url}: .*self-signed`))
  })

  it("fetches the page when skipTlsVerification is set", async () => {
    const result = await fetchWith(true)
    if (Either.isLeft(result)) throw new Error(`expected a page, got ${result.left.message}`)
    expect(result.right.status).toBe(200)
    expect(Buffer.from(result.right.body).toString()).toBe("<p>secret garden</p>")
  })

  it("still verifies after a lenient fetch (separate agents)", async () => {
    expect(Either.isLeft(await fetchWith(false))).toBe(true)
  })
})
