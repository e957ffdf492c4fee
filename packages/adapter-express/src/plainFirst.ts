/**
 * The request listener of an Express app serving the API at its root that answers status polls and scrapes before the
 * app's router sees them: routing a request through Express costs more CPU than answering a poll (see bench/README.md,
 * "Server under load"). Any other request goes to the app.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http"
import type { Express, Request as ExpressRequest, Response as ExpressResponse } from "express"
import { webdataErrorHandler } from "./router.js"
import { answerPlain, DEFAULT_MAX_BODY_BYTES, type PlainHandlerFunction } from "./toExpressMiddleware.js"

/**
 * The request as the app's middleware would read it (`ip`, `get`, the `trust proxy` setting), without giving Node's
 * request Express's prototype: changing a live object's prototype slows every later use of such objects.
 */
const viewOf = (app: Express, req: IncomingMessage): ExpressRequest =>
  Object.assign(Object.create(app.request) as ExpressRequest, {
    method: req.method,
    url: req.url,
    headers: req.headers,
    socket: req.socket,
    connection: req.socket,
  })

export const plainFirst =
  (
    app: Express,
    handlePlain: PlainHandlerFunction,
    /** As the app's `toExpressMiddleware` has it: the largest body read from the socket. */
    { maxBodyBytes = DEFAULT_MAX_BODY_BYTES }: { readonly maxBodyBytes?: number } = {},
  ): RequestListener =>
  (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === "GET" || req.method === "POST") {
      const view = viewOf(app, req)
      // Written only through Node's own `writeHead`/`end`; Express's response methods serve the error envelope.
      const response = res as ExpressResponse
      const onError = (error: unknown) => {
        Object.setPrototypeOf(res, app.response)
        Object.assign(res, { req: view })
        Object.assign(view, { res })
        webdataErrorHandler(error, view, response, () => res.end())
      }
      if (answerPlain(view, response, handlePlain, { mountPath: "", maxBodyBytes, stream: req, onError })) return
    }
    app(req, res)
  }
