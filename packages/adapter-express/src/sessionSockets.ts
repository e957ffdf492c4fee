/**
 * The WebSockets of interact sessions on a node HTTP server: `<prefix>/v2/interact/{id}/cdp?token=…` relays the
 * session's Chrome DevTools Protocol (what `chromium.connectOverCDP(cdpUrl)` opens; the control token only), and
 * `<prefix>/v2/interact/{id}/view?token=…` sends the live view's frames and, with the control token, takes its
 * clicks and keys. The token in the URL is the session's, from the answer that opened it.
 */
import type { IncomingMessage, Server } from "node:http"
import type { Duplex } from "node:stream"
import type { LiveInput, SessionSocket, WebHandler } from "@webdata/core"
import { WebSocket, WebSocketServer } from "ws"
import { claim, listen, pass, refuse } from "./upgrades.js"

export interface SessionSocketsOptions {
  /** Where the API is mounted (`app.use("/api", router)` → `"/api"`). Default: the root. */
  readonly prefix?: string
}

/** What the sockets need: a `WebdataRouter` or the core's `WebHandler`. */
export type SessionSocketSource = Pick<WebHandler, "openSessionSocket">

export interface SessionSockets {
  /** Stops handling upgrades and closes the open sockets. */
  readonly close: () => void
}

const ROUTE = /^\/v2\/interact\/([^/]+)\/(cdp|view)$/

/** A message of the live view page as an input event, or undefined when it is not one. */
const inputOf = (text: string): LiveInput | undefined => {
  let value: Record<string, unknown>
  try {
    value = JSON.parse(text) as Record<string, unknown>
  } catch {
    return undefined
  }
  const number = (key: string) => (typeof value[key] === "number" && Number.isFinite(value[key]) ? value[key] : 0)
  if (value.type === "click") return { type: "click", x: number("x"), y: number("y") }
  if (value.type === "scroll") return { type: "scroll", x: number("x"), y: number("y"), deltaY: number("deltaY") }
  if (value.type === "key" && typeof value.key === "string" && value.key.length <= 32)
    return { type: "key", key: value.key }
  if (value.type === "text" && typeof value.text === "string" && value.text.length <= 1000)
    return { type: "text", text: value.text }
  return undefined
}

/** Relays the DevTools protocol between the caller and the session until either side closes. */
const relay = (client: WebSocket, session: SessionSocket) => {
  const upstream = new WebSocket(session.cdpEndpoint, { perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 })
  // The protocol is JSON in text frames: what arrives as text leaves as text.
  const pending: Array<readonly [WebSocket.RawData, boolean]> = []
  upstream.on("open", () => {
    for (const [data, binary] of pending.splice(0)) upstream.send(data, { binary })
  })
  client.on("message", (data, isBinary) => {
    session.touch()
    if (upstream.readyState === WebSocket.OPEN) upstream.send(data, { binary: isBinary })
    else pending.push([data, isBinary])
  })
  upstream.on("message", (data, isBinary) => {
    if (client.readyState === WebSocket.OPEN) client.send(data, { binary: isBinary })
  })
  const end = () => {
    client.close()
    upstream.close()
  }
  for (const socket of [client, upstream]) {
    socket.on("close", end)
    socket.on("error", end)
  }
}

/** Sends the session's frames to the viewer, and its input to the session when the token allows. */
const view = async (client: WebSocket, session: SessionSocket) => {
  client.on("error", () => client.terminate())
  const stop = await session
    .watch((frame) => {
      // A viewer that cannot keep up skips frames rather than queueing them.
      if (client.readyState === WebSocket.OPEN && client.bufferedAmount < 4 * 1024 * 1024)
        client.send(JSON.stringify({ type: "frame", ...frame }))
    })
    .catch(() => undefined)
  if (stop === undefined) return client.close(1011)
  client.on("message", (data) => {
    const event = session.control ? inputOf(data.toString()) : undefined
    if (event === undefined) return
    session.touch()
    void session.input(event).catch(() => undefined)
  })
  void session.closed.then(() => {
    if (client.readyState === WebSocket.OPEN) client.send(JSON.stringify({ type: "closed" }))
    client.close(1000)
  })
  client.on("close", () => void stop())
}

/** Serves the session sockets on `server` for the API mounted at `prefix`. */
export const attachSessionSockets = (
  server: Server,
  source: SessionSocketSource,
  options: SessionSocketsOptions = {},
): SessionSockets => {
  const prefix = (options.prefix ?? "").replace(/\/+$/, "")
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 })
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Split by hand: this runs in an event listener, where a URL parser's exception would be uncaught.
    const [path = "/", query = ""] = (request.url ?? "/").split("?")
    const match = path.startsWith(prefix) ? ROUTE.exec(path.slice(prefix.length)) : null
    if (match === null) return pass(server, request, socket)
    claim(request)
    const token = new URLSearchParams(query).get("token") ?? ""
    void source.openSessionSocket(match[1]!, token).then(
      (session) => {
        if (session === undefined || (match[2] === "cdp" && !session.control)) return refuse(socket, "404 Not Found")
        wss.handleUpgrade(request, socket, head, (client) =>
          match[2] === "cdp" ? relay(client, session) : void view(client, session),
        )
      },
      () => refuse(socket, "500 Internal Server Error"),
    )
  }
  return { close: listen(server, wss, onUpgrade) }
}
