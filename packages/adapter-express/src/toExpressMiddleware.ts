/**
 * Express ⇄ web `Request`/`Response`. Works with or without a body parser in front (an already-parsed body is sent
 * on as JSON), under any mount path, streams a response of unstated length and keeps every `Set-Cookie` header.
 */
import { Readable } from "node:stream"
import type { PlainRequest, PlainResponse } from "@webdata/core"
import type { Request as ExpressRequest, Response as ExpressResponse, NextFunction, RequestHandler } from "express"

/** A web handler; the second argument tells it the client's address (Express's `req.ip`, per `trust proxy`). */
export type WebHandlerFunction = (
  request: Request,
  origin?: { readonly clientAddress?: string | undefined },
) => Promise<Response>

/** The web handler's answerer of its hottest requests from plain data (`WebHandler.handlePlain`). */
export type PlainHandlerFunction = (
  request: PlainRequest,
  origin?: { readonly clientAddress?: string | undefined },
) => Promise<PlainResponse> | undefined

export interface ExpressMiddlewareOptions {
  /**
   * Answers the requests it knows (status polls) without a web `Request` and `Response`, which cost more than the
   * answer; the others go to the web handler.
   */
  readonly handlePlain?: PlainHandlerFunction
  /** Largest request body read from the socket; larger bodies answer 413 without being buffered. Default 60 MiB. */
  readonly maxBodyBytes?: number
}

export const DEFAULT_MAX_BODY_BYTES = 60 * 1024 * 1024

const BODYLESS = new Set(["GET", "HEAD"])

const tooLarge = (res: ExpressResponse) =>
  res.status(413).json({ success: false, code: "PAYLOAD_TOO_LARGE", error: "Request body is too large" })

/**
 * A method a web `Request` cannot carry and Node still hands to Express (`CONNECT` and `TRACK` never get this far:
 * `attachClientErrorEnvelope` answers them): no route of the API takes it.
 */
const FORBIDDEN_METHODS = new Set(["TRACE"])

const methodNotAllowed = (res: ExpressResponse, method: string) =>
  res
    .status(405)
    .json({ success: false, code: "METHOD_NOT_ALLOWED", error: `Method ${method} is not allowed on this API` })

/** The request's URL; undefined when its `Host` header cannot be part of one (`a b`, `[`, `x:99999`, empty). */
const requestUrl = (req: ExpressRequest): URL | undefined => {
  try {
    // The connection's own scheme: a forwarded one reaches the API as a header, checked there.
    const scheme = (req.socket as { encrypted?: boolean }).encrypted === true ? "https" : "http"
    return new URL(req.url, `${scheme}://${req.get("host") ?? "localhost"}`)
  } catch {
    return undefined
  }
}

const badHost = (res: ExpressResponse) =>
  res.status(400).json({ success: false, code: "BAD_REQUEST", error: "Bad request: malformed Host header" })

/** Whether a body parser (express.json() and the like) turned the body into a value. */
const hasParsedBody = (req: ExpressRequest): boolean =>
  req.body !== undefined && !Buffer.isBuffer(req.body) && typeof req.body !== "string"

/**
 * The body as bytes: re-serialised when a parser already consumed the stream, else read from `stream` (the request
 * itself, unless `req` is a view of it) with a cap.
 */
const readBody = async (
  req: ExpressRequest,
  maxBytes: number,
  stream: Readable = req,
): Promise<Buffer | "too-large" | undefined> => {
  if (BODYLESS.has(req.method)) return undefined
  const parsed: unknown = req.body
  if (hasParsedBody(req)) return Buffer.from(JSON.stringify(parsed))
  if (Buffer.isBuffer(parsed)) return parsed
  if (typeof parsed === "string") return Buffer.from(parsed)
  if (stream.readableEnded) return undefined
  const chunks: Array<Buffer> = []
  let size = 0
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > maxBytes) return "too-large"
    chunks.push(chunk)
  }
  return Buffer.concat(chunks)
}

/** Headers only a proxy in front may set: passed on only when Express trusts the peer (its `trust proxy` setting). */
const FORWARDING = new Set(["x-forwarded-proto", "x-forwarded-host", "x-forwarded-prefix"])

const fromTrustedProxy = (req: ExpressRequest): boolean => {
  const trust = req.app.get("trust proxy fn") as ((address: string, hop: number) => boolean) | undefined
  return trust?.(req.socket.remoteAddress ?? "", 0) === true
}

/**
 * The request's headers as the API sees them (names in lower case; a repeated header's values joined), with the
 * path the API is mounted at.
 */
const requestHeaders = (req: ExpressRequest, reserialised: boolean, mountPath: string): Record<string, string> => {
  const headers: Record<string, string> = {}
  const trusted = fromTrustedProxy(req)
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || (!trusted && FORWARDING.has(name))) continue
    // The body may have been re-serialised: its length and encoding are no longer the client's.
    if (reserialised && (name === "content-length" || name === "content-encoding" || name === "transfer-encoding"))
      continue
    headers[name] = Array.isArray(value) ? value.join(", ") : value
  }
  if (reserialised) headers["content-type"] = "application/json"
  // The mount path, so that absolute links the API builds (e.g. `next`) include it.
  // A trusted proxy's own prefix comes first.
  if (mountPath !== "")
    headers["x-forwarded-prefix"] = `${(headers["x-forwarded-prefix"] ?? "").replace(/\/+$/, "")}${mountPath}`
  return headers
}

const send = async (response: Response, res: ExpressResponse): Promise<void> => {
  res.status(response.status)
  for (const [name, value] of response.headers) if (name !== "set-cookie") res.setHeader(name, value)
  const cookies = response.headers.getSetCookie()
  if (cookies.length > 0) res.setHeader("set-cookie", cookies)
  if (response.body === null) {
    res.end()
    return
  }
  // A body of stated length is one in memory (the API's JSON answers): one write, no stream to pump.
  if (response.headers.has("content-length")) {
    res.end(Buffer.from(await response.arrayBuffer()))
    return
  }
  const body = Readable.fromWeb(response.body as import("node:stream/web").ReadableStream<Uint8Array>)
  await new Promise<void>((resolve, reject) => {
    body.on("error", reject)
    res.on("close", resolve)
    body.pipe(res)
  })
}

/** Aborts when the client goes away before its answer was written. */
const abortedOnClose = (res: ExpressResponse): AbortSignal => {
  const aborter = new AbortController()
  res.on("close", () => {
    if (!res.writableFinished) aborter.abort()
  })
  return aborter.signal
}

/** What `handlePlain` may take: a GET (a status poll) or a POST (a scrape, whose body it reads only if it takes it). */
const PLAIN_METHODS = new Set(["GET", "POST"])

/**
 * Answers a request that `handlePlain` takes (a status poll, a scrape), under `mountPath`; false for any other
 * request. `req` and `res` carry Express's prototypes (its `ip`, `get` and trust settings), `stream` is the request
 * the body is read from (`req`, unless `req` is a view of it); a failure goes to `onError`.
 */
export const answerPlain = (
  req: ExpressRequest,
  res: ExpressResponse,
  handlePlain: PlainHandlerFunction,
  options: {
    readonly mountPath: string
    readonly maxBodyBytes: number
    readonly stream?: Readable
    /** Aborts when the client goes away (made here for a POST when not given). */
    readonly signal?: AbortSignal
    readonly onError: (error: unknown) => void
  },
): boolean => {
  if (!PLAIN_METHODS.has(req.method)) return false
  const url = requestUrl(req)
  if (url === undefined) return false
  const post = req.method === "POST"
  const reserialised = post && hasParsedBody(req)
  const answer = handlePlain(
    {
      method: req.method,
      url: url.href,
      headers: requestHeaders(req, reserialised, options.mountPath),
      ...(post
        ? {
            body: async (maxBytes: number) =>
              (await readBody(req, Math.min(maxBytes, options.maxBodyBytes), options.stream)) ?? new Uint8Array(),
            signal: options.signal ?? abortedOnClose(res),
          }
        : {}),
    },
    { clientAddress: req.ip },
  )
  if (answer === undefined) return false
  answer.then((plain) => void res.writeHead(plain.status, plain.headers).end(plain.body), options.onError)
  return true
}

/** Wraps a web handler as Express middleware. Requests it answers with 404 for an unknown route still end here. */
export const toExpressMiddleware = (
  handler: WebHandlerFunction,
  options: ExpressMiddlewareOptions = {},
): RequestHandler => {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES
  const { handlePlain } = options
  return (req: ExpressRequest, res: ExpressResponse, next: NextFunction) => {
    const signal = abortedOnClose(res)
    if (
      handlePlain !== undefined &&
      answerPlain(req, res, handlePlain, { mountPath: req.baseUrl, maxBodyBytes, signal, onError: next })
    )
      return
    const run = async () => {
      if (FORBIDDEN_METHODS.has(req.method)) return void methodNotAllowed(res, req.method)
      const url = requestUrl(req)
      if (url === undefined) return void badHost(res)
      const reserialised = hasParsedBody(req)
      const body = await readBody(req, maxBodyBytes)
      if (body === "too-large") return void tooLarge(res)
      const request = new Request(url, {
        method: req.method,
        headers: requestHeaders(req, reserialised, req.baseUrl),
        // Node accepts a Buffer as a body; the DOM typings only know ArrayBuffer-backed views.
        ...(body !== undefined ? { body: body as unknown as BodyInit } : {}),
        signal,
      })
      await send(await handler(request, { clientAddress: req.ip }), res)
    }
    run().catch(next)
  }
}
