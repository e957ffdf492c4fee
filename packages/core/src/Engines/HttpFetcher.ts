/**
 * The plain-HTTP `Fetcher` on undici. Every connection is opened through the URL guard's `lookup`, so it goes only
 * to addresses the guard checked; every hop's URL is checked before it is requested (IP literals never reach a
 * lookup). Redirects are followed by hand with a per-fetch cookie jar, bodies are decoded under size caps, and the
 * request's `timeoutMs` bounds the whole fetch: the time limit or an interruption aborts whatever is in flight.
 */
import type { Readable } from "node:stream"
import { Config, type ConfigError, Effect, Exit, Layer, type Scope } from "effect"
import { CookieJar } from "tough-cookie"
import { ScrapeError } from "../Errors.js"
import { clientOwnedHeaders, findScrapeError, guardedAgent, proxyAgents } from "../Net/GuardedHttp.js"
import { UrlGuard } from "../Net/UrlGuard.js"
import { readBody } from "./BodyReader.js"
import { type FetchedPage, Fetcher, type FetchRequest } from "./Fetcher.js"

export interface FetcherConfig {
  /** Redirect hops followed before `TooManyRedirects`. */
  readonly maxRedirects: number
  /** Bytes read from the wire for one response (before decompression). */
  readonly maxBodyBytes: number
  /** Bytes of one response after decompression. */
  readonly maxDecompressedBytes: number
  readonly userAgent: string
}

const MiB = 1024 * 1024

export const defaultFetcherConfig: FetcherConfig = {
  maxRedirects: 10,
  maxBodyBytes: 20 * MiB,
  maxDecompressedBytes: 50 * MiB,
  userAgent:
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36",
}

const defaultHeaders = (config: FetcherConfig): Record<string, string> => ({
  "user-agent": config.userAgent,
  accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
  "accept-language": "en-US,en;q=0.9",
  // No zstd: Node 20's zlib cannot decode it.
  "accept-encoding": "gzip, deflate, br",
})

/** Credentials the caller meant for the first origin are not sent to another one after a redirect (as in fetch). */
const originBoundHeaders = new Set(["authorization", "cookie", "proxy-authorization"])

const redirectStatuses = new Set([301, 302, 303, 307, 308])

const headerValue = (value: string | ReadonlyArray<string> | undefined): string | undefined =>
  value === undefined ? undefined : typeof value === "string" ? value : value.join(", ")

const responseHeaders = (headers: Record<string, string | ReadonlyArray<string> | undefined>) => {
  const result: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    const text = headerValue(value)
    if (text !== undefined) result[name.toLowerCase()] = text
  }
  return result
}

const errorCodes = (error: unknown): ReadonlyArray<string> => {
  const codes: Array<string> = []
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code
    if (typeof code === "string") codes.push(code)
    current = current.cause
  }
  return codes
}

const connectionMessages: Record<string, string> = {
  ECONNREFUSED: "the connection was refused",
  ECONNRESET: "the connection was reset",
  EPIPE: "the connection was closed while sending",
  EHOSTUNREACH: "the host is unreachable",
  ENETUNREACH: "the network is unreachable",
  ETIMEDOUT: "the connection timed out",
  UND_ERR_SOCKET: "the server closed the connection before the response was complete",
  UND_ERR_CLOSED: "the connection was closed",
  UND_ERR_CONNECT_TIMEOUT: "connecting timed out",
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: "the server closed the connection before sending the whole body",
}

const isTlsCode = (code: string) => /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET|EPROTO/.test(code)

/** One line that says what failed and where; the guard's own errors keep their wording and gain the URL. */
const toScrapeError = (error: unknown, url: string): ScrapeError => {
  const own = findScrapeError(error)
  if (own !== undefined)
    return own.url !== undefined
      ? own
      : new ScrapeError({ reason: own.reason, url, message: `${own.message} while fetching ${url}` })
  const codes = errorCodes(error)
  const message = error instanceof Error ? error.message : String(error)
  const fail = (reason: ScrapeError["reason"], text: string) => new ScrapeError({ reason, url, message: text })
  const code = codes[0] ?? "no code"
  const connection = codes.find((candidate) => candidate in connectionMessages)
  if (codes.some((candidate) => ["ENOTFOUND", "EAI_AGAIN", "EAI_NONAME", "EAI_NODATA"].includes(candidate)))
    return fail("DnsResolution", `Could not resolve the host of ${url} (${code})`)
  if (codes.some(isTlsCode)) return fail("Tls", `TLS error fetching ${url}: ${message} (${code})`)
  if (connection !== undefined)
    return fail("Connection", `Could not fetch ${url}: ${connectionMessages[connection]} (${connection})`)
  if (codes.includes("UND_ERR_HEADERS_TIMEOUT") || codes.includes("UND_ERR_BODY_TIMEOUT"))
    return fail("Timeout", `Fetching ${url} timed out waiting for the server (${code})`)
  if (codes.some((candidate) => candidate.startsWith("Z_") || candidate.startsWith("ERR__ERROR_FORMAT")))
    return fail("EngineFailed", `Could not decompress the response of ${url}: ${message} (${code})`)
  return fail("EngineFailed", `Fetching ${url} failed: ${message} (${code})`)
}

/** Drops a body we will not read; undici reports the abort as a stream error, which nobody needs to hear. */
const discard = (body: Readable) => {
  body.on("error", () => {})
  body.destroy()
}

/** Builds the fetcher; its two agents (verifying TLS or not) live as long as the enclosing scope. */
export const make = (
  options: Partial<FetcherConfig> = {},
): Effect.Effect<Fetcher["Type"], never, UrlGuard | Scope.Scope> =>
  Effect.gen(function* () {
    const config: FetcherConfig = { ...defaultFetcherConfig, ...options }
    const guard = yield* UrlGuard
    const verifying = yield* guardedAgent(guard, { rejectUnauthorized: true })
    const lenient = yield* guardedAgent(guard, { rejectUnauthorized: false })
    const throughProxy = yield* proxyAgents()

    const headersFor = (request: FetchRequest, url: URL, firstOrigin: string, cookies: string) => {
      const headers = defaultHeaders(config)
      for (const [name, value] of Object.entries(request.headers)) {
        const key = name.toLowerCase()
        if (clientOwnedHeaders.has(key) || (url.origin !== firstOrigin && originBoundHeaders.has(key))) continue
        headers[key] = value
      }
      if (cookies !== "") headers.cookie = headers.cookie !== undefined ? `${headers.cookie}; ${cookies}` : cookies
      return headers
    }

    const fetch = Effect.fn("Fetcher.fetch")(
      function* (request: FetchRequest, controller: AbortController) {
        const agent =
          request.proxy !== undefined
            ? throughProxy(request.proxy, !request.skipTlsVerification)
            : request.skipTlsVerification
              ? lenient
              : verifying
        // Made on the first Set-Cookie: most fetches are one hop without cookies.
        let jar: CookieJar | undefined
        const first = yield* guard.checkUrl(request.url)
        let url = first
        for (let hop = 0; ; hop++) {
          const current = url
          const response = yield* Effect.tryPromise({
            try: () =>
              agent.request({
                origin: current.origin,
                path: `${current.pathname}${current.search}`,
                method: "GET",
                headers: headersFor(request, current, first.origin, jar?.getCookieStringSync(current.href) ?? ""),
                signal: controller.signal,
              }),
            catch: (error) => toScrapeError(error, current.href),
          })
          for (const cookie of [response.headers["set-cookie"] ?? []].flat()) {
            jar ??= new CookieJar()
            jar.setCookieSync(cookie, current.href, { ignoreError: true })
          }
          const location = headerValue(response.headers.location)
          const target = location !== undefined ? URL.parse(location, current) : null
          if (redirectStatuses.has(response.statusCode) && target !== null) {
            discard(response.body)
            if (hop >= config.maxRedirects)
              return yield* new ScrapeError({
                reason: "TooManyRedirects",
                url: request.url,
                message: `Too many redirects fetching ${request.url}: more than ${config.maxRedirects} (the last one to ${target.href})`,
              })
            url = yield* guard.checkUrl(target)
            continue
          }
          const contentEncoding = headerValue(response.headers["content-encoding"])
          const declaredLength = Number(headerValue(response.headers["content-length"]))
          if (declaredLength > config.maxBodyBytes) {
            discard(response.body)
            return yield* new ScrapeError({
              reason: "ResponseTooLarge",
              url: current.href,
              message: `The response of ${current.href} declares ${declaredLength} bytes, over the body size limit of ${config.maxBodyBytes} bytes`,
            })
          }
          const body = yield* Effect.tryPromise({
            try: () => readBody(response.body as Readable, contentEncoding, config, current.href, controller.signal),
            catch: (error) => toScrapeError(error, current.href),
          })
          const headers = responseHeaders(response.headers)
          const page: FetchedPage = {
            url: current.href,
            status: response.statusCode,
            headers,
            contentType: headers["content-type"],
            body,
          }
          return page
        }
      },
      (effect, request, controller) =>
        Effect.suspend(() => {
          // The time limit aborts what is in flight (the request and the body read both take the signal) instead of
          // racing the fetch against a sleep: a race is two fibers per fetch, ~35 µs of CPU (measured).
          let timedOut = false
          const timer = setTimeout(() => {
            timedOut = true
            controller.abort()
          }, request.timeoutMs)
          return effect.pipe(
            Effect.catchIf(
              () => timedOut,
              () =>
                new ScrapeError({
                  reason: "Timeout",
                  url: request.url,
                  message: `Fetching ${request.url} timed out after ${request.timeoutMs} ms`,
                }),
            ),
            // A failure or an interruption tears down the request in flight; a success has read it all.
            Effect.onExit((exit) =>
              Effect.sync(() => {
                clearTimeout(timer)
                if (!Exit.isSuccess(exit)) controller.abort()
              }),
            ),
          )
        }),
    )

    return { fetch: (request: FetchRequest) => Effect.suspend(() => fetch(request, new AbortController())) }
  })

/** The fetcher with explicit limits (missing fields take the defaults). */
export const layerWith = (options: Partial<FetcherConfig>): Layer.Layer<Fetcher, never, UrlGuard> =>
  Layer.scoped(Fetcher, make(options))

/** The fetcher with the default limits: 10 redirects, 20 MiB read, 50 MiB decompressed. */
export const layer: Layer.Layer<Fetcher, never, UrlGuard> = layerWith({})

/**
 * The fetcher from the environment: `WEBDATA_FETCH_MAX_REDIRECTS`, `WEBDATA_FETCH_MAX_BODY_MB`,
 * `WEBDATA_FETCH_MAX_DECOMPRESSED_MB`, `WEBDATA_USER_AGENT`; each falls back to its default.
 */
export const layerConfig: Layer.Layer<Fetcher, ConfigError.ConfigError, UrlGuard> = Layer.unwrapEffect(
  Effect.gen(function* () {
    const maxRedirects = yield* Config.integer("WEBDATA_FETCH_MAX_REDIRECTS").pipe(
      Config.withDefault(defaultFetcherConfig.maxRedirects),
    )
    const bodyMb = yield* Config.number("WEBDATA_FETCH_MAX_BODY_MB").pipe(
      Config.withDefault(defaultFetcherConfig.maxBodyBytes / MiB),
    )
    const decompressedMb = yield* Config.number("WEBDATA_FETCH_MAX_DECOMPRESSED_MB").pipe(
      Config.withDefault(defaultFetcherConfig.maxDecompressedBytes / MiB),
    )
    const userAgent = yield* Config.string("WEBDATA_USER_AGENT").pipe(
      Config.withDefault(defaultFetcherConfig.userAgent),
    )
    return layerWith({
      maxRedirects,
      maxBodyBytes: Math.round(bodyMb * MiB),
      maxDecompressedBytes: Math.round(decompressedMb * MiB),
      userAgent,
    })
  }),
)
