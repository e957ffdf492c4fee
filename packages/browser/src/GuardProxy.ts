/**
 * A page's own HTTP proxy on loopback. Its browser context sends every request through it (plain HTTP as absolute
 * URLs, HTTPS and WebSockets as CONNECT tunnels), so that:
 * - every connection goes to an address the URL guard allows, each redirect hop included (a hop is a request of its
 *   own here, which Playwright's routes are not), and to the address that was checked (the guard's own look-up opens
 *   the socket: a DNS answer that changes between the check and the connection is not followed);
 * - what the page receives streams through, counted against a budget: a hostile page cannot make this process hold
 *   its responses, nor pull more than the budget.
 * An operator's proxy, when the scrape uses one, is the next hop: it resolves the targets' names itself (as for plain
 * HTTP), after their URLs are checked here.
 */

import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http"
import { connect, type LookupFunction, type Socket } from "node:net"
import { ScrapeError } from "@webdata/core/engine"
import type { CheckTarget, Refusals } from "./RequestGuard.js"

export interface GuardProxyOptions {
  /** The URL guard's check of a URL without DNS (scheme, IP-literal hosts, intranet names). */
  readonly check: CheckTarget
  /**
   * The URL guard's `dns.lookup`: connections are opened with it, so a host name is resolved once, its addresses
   * checked, and the socket goes to a checked one. Its refusals are `ScrapeError`s.
   */
  readonly lookup: LookupFunction
  /** The operator's proxy (`http://[user:pass@]host:port`) to go through, if any. */
  readonly upstream?: string | undefined
  /** Bytes the page may receive, all its responses together. */
  readonly maxBytes: number
  /** A target the guard refused (or could not resolve): a URL for plain HTTP, `host:port` for a tunnel (`refusalFor`). */
  readonly onRefused: (target: string, refusal: ScrapeError) => void
  /** The budget ran out while `url` was being received. */
  readonly onOverBudget: (url: string) => void
}

export interface GuardProxy {
  /** `http://127.0.0.1:<port>`, for the context's `proxy.server`. */
  readonly server: string
  readonly close: () => Promise<void>
}

/** The most bytes one page receives by default: room for a heavy page's images and scripts, not for a flood. */
export const PAGE_BYTES = 256 * 1024 * 1024

const basicAuth = (url: URL) =>
  url.username === ""
    ? undefined
    : `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString("base64")}`

/** Opens a tunnel to `host:port` through an HTTP proxy (CONNECT); the socket once the proxy answers 200. */
const tunnelThrough = (upstream: URL, authority: string): Promise<Socket> =>
  new Promise((resolve, reject) => {
    const socket = connect({ host: upstream.hostname, port: Number(upstream.port || 80) })
    const auth = basicAuth(upstream)
    socket.once("connect", () =>
      socket.write(
        `CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${auth !== undefined ? `Proxy-Authorization: ${auth}\r\n` : ""}\r\n`,
      ),
    )
    let head = Buffer.alloc(0)
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk])
      const end = head.indexOf("\r\n\r\n")
      if (end < 0) {
        if (head.length > 16_384) fail(new Error("The proxy's answer to CONNECT is too long"))
        return
      }
      socket.off("data", onData)
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(head.subarray(0, end).toString("latin1"))?.[1]
      if (status !== "200") return fail(new Error(`The proxy answered CONNECT with ${status ?? "no status"}`))
      const rest = head.subarray(end + 4)
      if (rest.length > 0) socket.unshift(rest)
      resolve(socket)
    }
    const fail = (error: Error) => {
      socket.destroy()
      reject(error)
    }
    socket.on("data", onData)
    socket.once("error", fail)
  })

export const openGuardProxy = async (options: GuardProxyOptions): Promise<GuardProxy> => {
  const upstream = options.upstream !== undefined ? new URL(options.upstream) : undefined
  let left = options.maxBytes
  const sockets = new Set<Socket>()
  // Once per socket: the agent keeps a target's connection alive for the next request, which gets the same socket.
  const track = (socket: Socket) => {
    if (sockets.has(socket)) return
    sockets.add(socket)
    socket.once("close", () => sockets.delete(socket))
  }
  /** Counts what a target sends; false once the page's budget is spent. */
  const received = (bytes: number, url: string) => {
    left -= bytes
    if (left >= 0) return true
    if (left + bytes >= 0) options.onOverBudget(url)
    return false
  }

  const refused = async (url: string, target: string) => {
    const refusal = await options.check(url)
    if (refusal !== undefined) options.onRefused(target, refusal)
    return refusal !== undefined
  }
  /** Whether a connection failed because the guard's look-up refused (or could not resolve) its host. */
  const refusedByLookup = (error: unknown, target: string) => {
    if (!(error instanceof ScrapeError)) return false
    options.onRefused(target, error)
    return true
  }

  const server = createServer()

  // HTTPS and WebSockets: a tunnel to a checked address.
  server.on("connect", async (req: IncomingMessage, client: Socket, head: Buffer) => {
    track(client)
    client.on("error", () => client.destroy())
    const authority = req.url ?? ""
    const [, host = "", port = "443"] = /^\[?([^\]]*?)\]?:(\d+)$/.exec(authority) ?? []
    const origin = `${port === "80" ? "http" : "https"}://${host.includes(":") ? `[${host}]` : host}:${port}`
    if (host === "" || (await refused(origin, authority))) return void client.end("HTTP/1.1 403 Forbidden\r\n\r\n")
    const target = await (upstream !== undefined
      ? tunnelThrough(upstream, authority)
      : new Promise<Socket>((resolve, reject) => {
          const socket = connect({ host, port: Number(port), lookup: options.lookup })
          socket.once("connect", () => resolve(socket))
          socket.once("error", reject)
        })
    ).catch((error: unknown) => (refusedByLookup(error, authority) ? "refused" : undefined))
    if (target === "refused") return void client.end("HTTP/1.1 403 Forbidden\r\n\r\n")
    if (target === undefined) return void client.end("HTTP/1.1 502 Bad Gateway\r\n\r\n")
    track(target)
    target.on("error", () => client.destroy())
    client.on("close", () => target.destroy())
    target.on("close", () => client.destroy())
    client.write("HTTP/1.1 200 Connection Established\r\n\r\n")
    if (head.length > 0) target.write(head)
    client.pipe(target)
    target.on("data", (chunk: Buffer) => {
      if (!received(chunk.length, origin)) return void target.destroy()
      if (!client.write(chunk)) {
        target.pause()
        client.once("drain", () => target.resume())
      }
    })
  })

  // Plain HTTP: each request (each redirect hop) checked and sent on.
  server.on("request", async (req: IncomingMessage, res: ServerResponse) => {
    const url = URL.parse(req.url ?? "")
    if (url === null || url.protocol !== "http:") return void res.writeHead(400).end()
    if (await refused(url.href, url.href)) return void res.destroy()
    const headers = { ...req.headers }
    delete headers["proxy-connection"]
    delete headers["proxy-authorization"]
    const auth = upstream !== undefined ? basicAuth(upstream) : undefined
    const outgoing = httpRequest({
      method: req.method,
      headers: auth !== undefined ? { ...headers, "proxy-authorization": auth } : headers,
      ...(upstream !== undefined
        ? { host: upstream.hostname, port: Number(upstream.port || 80), path: url.href }
        : {
            host: url.hostname,
            port: Number(url.port || 80),
            path: `${url.pathname}${url.search}`,
            lookup: options.lookup,
          }),
    })
    outgoing.on("socket", track)
    outgoing.on("error", (error) => {
      refusedByLookup(error, url.href)
      res.destroy()
    })
    res.on("close", () => outgoing.destroy())
    outgoing.on("response", (response) => {
      res.writeHead(response.statusCode ?? 502, response.rawHeaders)
      response.on("data", (chunk: Buffer) => {
        if (!received(chunk.length, url.href)) {
          outgoing.destroy()
          return void res.destroy()
        }
        if (!res.write(chunk)) {
          response.pause()
          res.once("drain", () => response.resume())
        }
      })
      response.on("end", () => res.end())
      response.on("error", () => res.destroy())
      response.on("aborted", () => res.destroy())
    })
    req.pipe(outgoing)
  })
  server.on("connection", track)
  // Chromium tunnels WebSockets with CONNECT: an upgrade sent here is not one of its requests.
  server.on("upgrade", (_req, socket: Socket) => socket.destroy())

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as { port: number }
  return {
    server: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}

/** The refusal a request met in its page's proxy: by its URL, or by its host and port when it went through a tunnel. */
export const refusalFor = (refusals: ReadonlyMap<string, ScrapeError>, url: string): ScrapeError | undefined => {
  const parsed = URL.parse(url)
  if (parsed === null) return undefined
  const port = parsed.port || (parsed.protocol === "https:" || parsed.protocol === "wss:" ? "443" : "80")
  return refusals.get(parsed.href) ?? refusals.get(`${parsed.hostname}:${port}`)
}

/** A context's guard proxy that records what it refused, and what went over the budget, in `refusals`. */
export const openProxyFor = (
  refusals: Refusals,
  options: Pick<GuardProxyOptions, "check" | "lookup" | "upstream" | "maxBytes">,
): Promise<GuardProxy> =>
  openGuardProxy({
    ...options,
    onRefused: (target, refusal) => {
      refusals.urls.push(target)
      refusals.proxied.set(target, refusal)
    },
    onOverBudget: (url) => {
      refusals.overBudget ??= url
    },
  })

/** A context's proxy setting for its guard proxy: loopback included (Chromium leaves it out unless told). */
export const proxySetting = (proxy: GuardProxy) => ({ server: proxy.server, bypass: "<-loopback>" })

/** The failure of a page whose responses went over its budget. */
export const overBudgetError = (refusals: Refusals, url: string): ScrapeError | undefined =>
  refusals.overBudget === undefined
    ? undefined
    : new ScrapeError({
        reason: "ResponseTooLarge",
        url,
        message: `The page ${url} received more than the browser lets a page receive (at ${refusals.overBudget}); it was not loaded whole.`,
      })
