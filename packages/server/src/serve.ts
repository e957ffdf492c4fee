/**
 * A ready Express server for the API (what `npm start` and `webdata serve` run): the router's handler, the error
 * envelope for what Node answers before Express, the crawl watcher and the interact sessions' sockets.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import {
  attachClientErrorEnvelope,
  attachCrawlWatcher,
  attachSessionSockets,
  plainFirst,
  toExpressMiddleware,
  webdataErrorHandler,
} from "@webdata/adapter-express"
import { type EngineServices, makeWebHandler, ServerConfig, ShutdownGrace } from "@webdata/core"
import { Effect, Layer } from "effect"
import express from "express"
import { engineFromEnvironment } from "./engine.js"

export interface ServeOptions {
  readonly port?: number
  readonly host?: string
  /**
   * Engine layer; defaults to `engineFromEnvironment()`: on the store `WEBDATA_STORE` names, with the browser engine
   * when Chromium is found (`CHROMIUM_PATH`, else on the PATH), and a worker unless `WEBDATA_WORKER=0`.
   */
  readonly engine?: Layer.Layer<EngineServices>
  /**
   * Which peers may set `X-Forwarded-Proto` / `-Host` / `-Prefix` (Express's `trust proxy` values: `true`, a hop count,
   * or addresses and CIDRs such as `"loopback, 10.0.0.0/8"`). Default: `WEBDATA_TRUST_PROXY`, else nobody.
   */
  readonly trustProxy?: boolean | number | string
  /** Server settings layer; defaults to `WEBDATA_API_KEYS` from the environment. */
  readonly serverConfig?: Layer.Layer<ServerConfig.ServerConfig>
  /**
   * On `close`, how long open requests may still finish before their connections are cut. Default:
   * `WEBDATA_SHUTDOWN_GRACE_MS`, else 10 s (the worker's running tasks get the same, once the requests are done).
   */
  readonly shutdownGraceMs?: number
}

export interface RunningServer {
  readonly server: Server
  /** `http://host:port`, with the port actually bound. */
  readonly url: string
  /**
   * Stops accepting connections, lets open requests finish (at most the shutdown grace), then releases the engine: the
   * worker's running tasks get the grace too, the others' leases are given back, the browser is closed.
   */
  readonly close: () => Promise<void>
}

/** `WEBDATA_TRUST_PROXY` as Express reads `trust proxy`: `true`, a hop count, or addresses; unset trusts nobody. */
const trustProxyFromEnvironment = (): boolean | number | string => {
  const value = (process.env.WEBDATA_TRUST_PROXY ?? "").trim()
  if (value === "" || value === "false") return false
  if (value === "true") return true
  return /^\d+$/.test(value) ? Number(value) : value
}

/**
 * Stops accepting connections and resolves once the open requests have ended; past `graceMs` their connections are
 * cut. Keep-alive connections are closed as soon as they are idle, since an idle one would hold the close until its
 * timeout.
 */
const closeServer = (server: Server, graceMs: number): Promise<void> =>
  new Promise<void>((resolve) => {
    const idle = setInterval(() => server.closeIdleConnections(), 50)
    const cut = setTimeout(() => server.closeAllConnections(), graceMs)
    server.close(() => {
      clearInterval(idle)
      clearTimeout(cut)
      resolve()
    })
    server.closeIdleConnections()
  })

export const serve = async (options: ServeOptions = {}): Promise<RunningServer> => {
  const graceMs = options.shutdownGraceMs ?? Effect.runSync(Effect.orDie(ShutdownGrace.config))
  const { handler, handlePlain, watchJob, openSessionSocket, ready, dispose } = makeWebHandler(
    Layer.merge(options.engine ?? engineFromEnvironment(), options.serverConfig ?? ServerConfig.layerConfig),
  )
  // The layers are built on the first request; one request now makes configuration errors fail at start and the
  // open-server warning appear at start.
  await handler(new Request("http://localhost/"))
  await ready()
  const app = express()
  app.disable("x-powered-by")
  app.set("trust proxy", options.trustProxy ?? trustProxyFromEnvironment())
  app.use(toExpressMiddleware(handler))
  app.use(webdataErrorHandler)
  const host = options.host ?? "127.0.0.1"
  const server = await new Promise<Server>((resolve, reject) => {
    const listening = createServer(plainFirst(app, handlePlain))
    listening.once("error", reject)
    listening.listen(options.port ?? 3002, host, () => {
      listening.off("error", reject)
      resolve(listening)
    })
  }).catch(async (error: unknown) => {
    // The engine (and its worker) already runs: stopped, so that a process that cannot listen can exit.
    await dispose()
    throw error
  })
  attachClientErrorEnvelope(server)
  const watcher = attachCrawlWatcher(server, { watchJob })
  const sessionSockets = attachSessionSockets(server, { openSessionSocket })
  const { port } = server.address() as AddressInfo
  return {
    server,
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    close: async () => {
      watcher.close()
      sessionSockets.close()
      await closeServer(server, graceMs)
      await dispose()
    },
  }
}
