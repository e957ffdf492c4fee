/**
 * The WebSockets `<prefix>/v2/crawl/{id}` and `<prefix>/v2/batch/scrape/{id}` that the Firecrawl SDK's `watcher()`
 * opens (and v1's `<prefix>/v1/crawl/{id}`), on a node HTTP server. Express never sees upgrade requests, so this listens to the server's `upgrade` event
 * and runs the core's job watch over the same services as the REST API.
 */
import type { IncomingMessage, Server } from "node:http"
import type { Duplex } from "node:stream"
import { CrawlWatch } from "@webdata/core"
import { type WebSocket, WebSocketServer } from "ws"
import { claim, listen, pass } from "./upgrades.js"

export interface CrawlWatcherOptions {
  /** Where the API is mounted (`app.use("/api", router)` → `"/api"`). Default: the root. */
  readonly prefix?: string
}

/** What the watcher needs: a `WebdataRouter` or the core's `WebHandler`. */
export interface CrawlWatchSource {
  readonly watchJob: (
    kind: CrawlWatch.WatchedKind,
    id: string,
    token: string | undefined,
  ) => AsyncIterable<CrawlWatch.WatchEvent>
}

export interface CrawlWatcher {
  /** Stops handling upgrades and closes the open watches (1001, going away). */
  readonly close: () => void
}

const routes: ReadonlyArray<readonly [string, CrawlWatch.WatchedKind]> = [
  ["/v2/crawl/", "crawl"],
  ["/v2/batch/scrape/", "batch"],
  ["/v1/crawl/", "v1"],
]

/** The job an upgrade URL under `prefix` watches, or undefined for any other path. */
const jobOf = (url: string | undefined, prefix: string) => {
  // Split by hand: this runs in an event listener, where a URL parser's exception would be uncaught.
  const path = (url ?? "/").split("?")[0] ?? "/"
  for (const [route, kind] of routes) {
    const id = path.startsWith(`${prefix}${route}`) ? path.slice(prefix.length + route.length) : ""
    if (id !== "" && !id.includes("/")) return { kind, id }
  }
  return undefined
}

const header = (value: string | ReadonlyArray<string> | undefined): string | undefined =>
  typeof value === "string" ? value : value?.[0]

/** Sends the watch's events to the socket until its close event, or until the client goes away. */
const stream = async (socket: WebSocket, events: AsyncIterable<CrawlWatch.WatchEvent>): Promise<void> => {
  // Protocol errors are followed by a close, which ends the loop; without a listener they would crash the process.
  socket.on("error", () => {})
  const iterator = events[Symbol.asyncIterator]()
  const gone = new Promise<"gone">((resolve) => socket.once("close", () => resolve("gone")))
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), gone])
      if (next === "gone" || next.done) return
      const event = next.value
      if (event._tag === "Close") return void socket.close(event.code, event.reason)
      await new Promise<void>((resolve, reject) =>
        socket.send(event.text, (error) => (error ? reject(error) : resolve())),
      )
    }
  } catch {
    // The client went away while a message was being sent; there is nobody left to tell.
  } finally {
    // Stops the watch (it polls the store) whatever ended the loop.
    await iterator.return?.()
    if (socket.readyState === socket.OPEN) socket.close(1011)
  }
}

/**
 * Serves the job watcher on `server` (the one `app.listen` returned) for the API mounted at `prefix`. Upgrade
 * requests for other paths are left to the server's other `upgrade` listeners, or refused with 404 when it has none.
 */
export const attachCrawlWatcher = (
  server: Server,
  source: CrawlWatchSource,
  options: CrawlWatcherOptions = {},
): CrawlWatcher => {
  const prefix = (options.prefix ?? "").replace(/\/+$/, "")
  // The SDK offers its API key as the only subprotocol and needs it echoed back to complete the handshake.
  const wss = new WebSocketServer({
    noServer: true,
    handleProtocols: (protocols) => protocols.values().next().value ?? false,
  })
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const job = jobOf(request.url, prefix)
    if (job === undefined) return pass(server, request, socket)
    claim(request)
    wss.handleUpgrade(request, socket, head, (ws) => {
      const token = CrawlWatch.offeredToken({
        authorization: header(request.headers.authorization),
        protocols: header(request.headers["sec-websocket-protocol"]),
      })
      void stream(ws, source.watchJob(job.kind, job.id, token))
    })
  }
  return { close: listen(server, wss, onUpgrade) }
}
