/**
 * Several of the adapter's WebSocket endpoints listen to one server's `upgrade` event. A request none of them takes is
 * left to the server's other listeners, or refused with 404 when there are none (an unanswered upgrade would hang).
 */
import type { IncomingMessage, Server } from "node:http"
import type { Duplex } from "node:stream"
import type { WebSocketServer } from "ws"

const claimed = new WeakSet<IncomingMessage>()
const ours = new WeakMap<Server, number>()

export type UpgradeListener = (request: IncomingMessage, socket: Duplex, head: Buffer) => void

/**
 * Adds one of the adapter's upgrade listeners to `server`; the returned function removes it and closes the sockets
 * `wss` opened (1001, going away).
 */
export const listen = (server: Server, wss: WebSocketServer, onUpgrade: UpgradeListener): (() => void) => {
  ours.set(server, (ours.get(server) ?? 0) + 1)
  server.on("upgrade", onUpgrade)
  return () => {
    ours.set(server, Math.max(0, (ours.get(server) ?? 1) - 1))
    server.off("upgrade", onUpgrade)
    for (const client of wss.clients) client.close(1001)
    wss.close()
  }
}

/** One of the adapter's listeners handles this request. */
export const claim = (request: IncomingMessage): void => {
  claimed.add(request)
}

export const refuse = (socket: Duplex, status: string): void => {
  socket.on("error", () => socket.destroy())
  socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`)
}

/** Called by a listener that does not take the request: 404 once every listener has passed, unless others listen. */
export const pass = (server: Server, request: IncomingMessage, socket: Duplex): void => {
  if (server.listenerCount("upgrade") > (ours.get(server) ?? 0)) return
  // The listeners run one after the other in this tick; whoever takes the request claims it before this runs.
  setImmediate(() => {
    if (!claimed.has(request) && !socket.destroyed) refuse(socket, "404 Not Found")
  })
}
