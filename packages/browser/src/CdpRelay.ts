/**
 * A session's DevTools endpoint for callers: a WebSocket on the loopback interface, at a path nobody can guess, that
 * relays the Chrome DevTools Protocol to the session's Chromium and refuses the commands that would step outside the
 * session's guarded context (a new browser context has none of its request checks).
 */
import { randomBytes } from "node:crypto"
import type { AddressInfo } from "node:net"
import { WebSocket, WebSocketServer } from "ws"

/** Commands a caller may not send: each would open a way around the URL guard. */
const REFUSED = new Set(["Target.createBrowserContext"])

export interface CdpRelay {
  /** `ws://127.0.0.1:<port>/devtools/browser/<random>`. */
  readonly url: string
  readonly close: () => Promise<void>
}

/** The refusal of a command, in the protocol's error shape. */
const refusal = (message: { id?: unknown; sessionId?: unknown; method?: unknown }) =>
  JSON.stringify({
    id: message.id,
    ...(message.sessionId !== undefined ? { sessionId: message.sessionId } : {}),
    error: { code: -32000, message: `${String(message.method)} is not allowed in a webdata session` },
  })

export const startCdpRelay = async (target: string): Promise<CdpRelay> => {
  const path = `/devtools/browser/${randomBytes(18).toString("base64url")}`
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0, path, maxPayload: 256 * 1024 * 1024 })
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve)
    server.once("error", reject)
  })
  server.on("connection", (client) => {
    const upstream = new WebSocket(target, { maxPayload: 256 * 1024 * 1024, perMessageDeflate: false })
    const pending: Array<string> = []
    upstream.on("open", () => {
      for (const text of pending.splice(0)) upstream.send(text)
    })
    client.on("message", (data, isBinary) => {
      const text = data.toString()
      let message: { id?: unknown; sessionId?: unknown; method?: unknown }
      try {
        message = JSON.parse(text) as typeof message
      } catch {
        return client.close(1003, "The DevTools protocol speaks JSON")
      }
      if (typeof message.method === "string" && REFUSED.has(message.method)) return client.send(refusal(message))
      if (upstream.readyState === WebSocket.OPEN) upstream.send(text, { binary: isBinary })
      else pending.push(text)
    })
    upstream.on("message", (data, isBinary) => {
      if (client.readyState === WebSocket.OPEN) client.send(data, { binary: isBinary })
    })
    const end = () => {
      client.close()
      upstream.close()
    }
    upstream.on("close", end)
    upstream.on("error", end)
    client.on("close", end)
    client.on("error", end)
  })
  const { port } = server.address() as AddressInfo
  return {
    url: `ws://127.0.0.1:${port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of server.clients) client.terminate()
        server.close(() => resolve())
      }),
  }
}
