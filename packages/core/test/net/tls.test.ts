import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createServer, type Server } from "node:https"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Either, Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Fetcher } from "../../src/Engines/Fetcher.js"
import * as HttpFetcher from "../../src/Engines/HttpFetcher.js"
import * as UrlGuard from "../../src/Net/UrlGuard.js"

let server: Server
let url: string
let runtime: ManagedRuntime.ManagedRuntime<Fetcher, never>

/** A self-signed certificate for 127.0.0.1, made by the openssl CLI for this run only. */
const selfSigned = () => {
  const dir = mkdtempSync(join(tmpdir(), "webdata-tls-"))
  try {
    execFileSync(
      "openssl",
      ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1"]
        .concat(["-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"])
        .concat(["-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem")]),
      { stdio: "ignore" },
    )
    return { key: readFileSync(join(dir, "key.pem")), cert: readFileSync(join(dir, "cert.pem")) }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

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
