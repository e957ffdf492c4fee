/**
 * A page's guard proxy on its own, over loopback: plain HTTP and CONNECT tunnels to allowed targets, refusals that
 * never reach the refused server, connections opened with the guard's look-up, and the byte budget.
 */
import { createServer, request } from "node:http"
import { connect, type LookupFunction } from "node:net"
import { ScrapeError } from "@webdata/core/engine"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startForwardProxy } from "../../core/test/support/forwardProxy.js"
import { type Listening, listenOnLoopback } from "../../core/test/support/loopback.js"
import { type GuardProxyOptions, openGuardProxy, refusalFor } from "../src/GuardProxy.js"

let site: Listening
let refused: Listening
const refusedHits: Array<string> = []
beforeAll(async () => {
  site = await listenOnLoopback(createServer((req, res) => res.end(`site ${req.url}`)))
  refused = await listenOnLoopback(
    createServer((req, res) => {
      refusedHits.push(req.url ?? "/")
      res.end("refused server")
    }),
    "127.0.0.2",
  )
})
afterAll(async () => {
  await site.close()
  await refused.close()
})

/**
 * Names resolve here, never through DNS: `site.test` is the site's loopback address; `inside.test` resolves to the
 * refused server's, which the guard's look-up refuses as it would a private address.
 */
const lookup = ((hostname: string, options: unknown, callback: (...args: Array<unknown>) => void) => {
  if (hostname === "inside.test")
    return callback(new ScrapeError({ reason: "BlockedAddress", url: hostname, message: "refused 127.0.0.2" }), "")
  const address = hostname === "site.test" ? "127.0.0.1" : hostname
  if ((options as { all?: boolean }).all === true) callback(null, [{ address, family: 4 }])
  else callback(null, address, 4)
}) as unknown as LookupFunction

const proxyWith = (options: Partial<GuardProxyOptions> = {}) => {
  const seen = { refused: new Map<string, ScrapeError>(), over: [] as Array<string> }
  const opening = openGuardProxy({
    // The guard refuses 127.0.0.2, as it would a private address.
    check: async (url) =>
      new URL(url).hostname === "127.0.0.2"
        ? new ScrapeError({ reason: "BlockedAddress", url, message: `refused ${url}` })
        : undefined,
    lookup,
    maxBytes: 1024 * 1024,
    onRefused: (target, refusal) => seen.refused.set(target, refusal),
    onOverBudget: (url) => seen.over.push(url),
    ...options,
  })
  return { opening, seen }
}

/** A plain-HTTP GET through the proxy: status and body, or the error that ended it. */
const viaProxy = (proxy: string, url: string) =>
  new Promise<{ status?: number; body?: string; error?: string }>((resolve) => {
    const { hostname, port } = new URL(proxy)
    const req = request({ host: hostname, port, path: url, headers: { host: new URL(url).host } }, (res) => {
      let body = ""
      res.on("data", (chunk) => {
        body += chunk
      })
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }))
      res.on("error", (error) => resolve({ error: error.message }))
    })
    req.on("error", (error) => resolve({ error: error.message }))
    req.end()
  })

/** A CONNECT to `authority` through the proxy, then a GET in the tunnel: the proxy's answer line and the reply. */
const tunnel = (proxy: string, authority: string) =>
  new Promise<string>((resolve) => {
    const { hostname, port } = new URL(proxy)
    const socket = connect({ host: hostname, port: Number(port) })
    let text = ""
    socket.on("connect", () => socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`))
    socket.on("data", (chunk) => {
      text += chunk
      if (text.includes("200 Connection Established\r\n\r\n") && !text.includes("GET-SENT"))
        socket.write(`GET /in-tunnel HTTP/1.1\r\nHost: ${authority}\r\nConnection: close\r\n\r\n`, () => {
          text += "GET-SENT"
        })
    })
    socket.on("close", () => resolve(text))
    socket.on("error", () => resolve(text))
  })

describe("guard proxy", () => {
  it("sends plain HTTP on to allowed targets, by the guard's look-up, and refuses the rest unseen", async () => {
    const { opening, seen } = proxyWith()
    const proxy = await opening
    try {
      const named = `http://site.test:${new URL(site.url).port}/named`
      expect(await viaProxy(proxy.server, named)).toEqual({ status: 200, body: "site /named" })
      const target = `${refused.url}/secret`
      expect((await viaProxy(proxy.server, target)).error).toBeDefined()
      expect(refusalFor(seen.refused, target)?.reason).toBe("BlockedAddress")
      // A name whose address the look-up refuses: refused as the connection opens.
      const inside = `http://inside.test:${new URL(refused.url).port}/secret`
      expect((await viaProxy(proxy.server, inside)).error).toBeDefined()
      expect(refusalFor(seen.refused, inside)?.reason).toBe("BlockedAddress")
      expect(await tunnel(proxy.server, `inside.test:${new URL(refused.url).port}`)).toMatch(/^HTTP\/1\.1 403/)
      expect(refusedHits).toEqual([])
    } finally {
      await proxy.close()
    }
  })

  it("sends many requests over one kept-alive connection to a target without piling listeners on it", async () => {
    const warnings: Array<string> = []
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`)
    process.on("warning", onWarning)
    const proxy = await proxyWith().opening
    try {
      for (let i = 0; i < 15; i++)
        expect(await viaProxy(proxy.server, `${site.url}/page/${i}`)).toEqual({ status: 200, body: `site /page/${i}` })
      // Node reports a listener leak on the next turn.
      await new Promise((resolve) => setImmediate(resolve))
      expect(warnings.filter((warning) => warning.startsWith("MaxListenersExceededWarning"))).toEqual([])
    } finally {
      process.off("warning", onWarning)
      await proxy.close()
    }
  })

  it("tunnels to allowed targets and answers 403 to a CONNECT to a refused one", async () => {
    const { opening, seen } = proxyWith()
    const proxy = await opening
    try {
      expect(await tunnel(proxy.server, new URL(site.url).host)).toContain("site /in-tunnel")
      const answer = await tunnel(proxy.server, new URL(refused.url).host)
      expect(answer).toMatch(/^HTTP\/1\.1 403/)
      expect(refusedHits).toEqual([])
      // A request the browser sent in that tunnel is matched to the refusal by its host and port.
      expect(refusalFor(seen.refused, `${refused.url.replace("http:", "https:")}/page`)).toBeDefined()
    } finally {
      await proxy.close()
    }
  })

  it("goes on through an operator's proxy, with its credentials, after checking the target itself", async () => {
    const operator = await startForwardProxy("user:secret")
    const upstream = new URL(operator.url)
    upstream.username = "user"
    upstream.password = "secret"
    const { opening } = proxyWith({ upstream: upstream.href })
    const proxy = await opening
    try {
      expect(await viaProxy(proxy.server, `${site.url}/plain`)).toEqual({ status: 200, body: "site /plain" })
      expect(await tunnel(proxy.server, new URL(site.url).host)).toContain("site /in-tunnel")
      expect(operator.seen).toEqual([`${site.url}/plain`, `CONNECT ${new URL(site.url).host}`])
      // A refused target never reaches the operator's proxy.
      expect(await tunnel(proxy.server, new URL(refused.url).host)).toMatch(/^HTTP\/1\.1 403/)
      expect(operator.seen).toHaveLength(2)
    } finally {
      await proxy.close()
      await operator.close()
    }
  })

  it("cuts what a page receives at its budget", async () => {
    const big = await listenOnLoopback(createServer((_, res) => res.end(Buffer.alloc(3 * 1024 * 1024, 0x61))))
    const { opening, seen } = proxyWith({ maxBytes: 1024 * 1024 })
    const proxy = await opening
    try {
      const answer = await viaProxy(proxy.server, `${big.url}/big`)
      expect((answer.body?.length ?? 0) < 2 * 1024 * 1024 || answer.error !== undefined).toBe(true)
      expect(seen.over).toEqual([`${big.url}/big`])
    } finally {
      await proxy.close()
      await big.close()
    }
  })
})
