/**
 * The absolute URL a client reaches this API at, for links in answers (`url` of a started job, `next`). Proxies
 * in front say so with `X-Forwarded-Proto` / `X-Forwarded-Host`, and the Express adapter passes its mount path as
 * `X-Forwarded-Prefix`.
 */
import type { HttpServerRequest } from "@effect/platform"

const first = (value: string | undefined): string | undefined => value?.split(",")[0]?.trim() || undefined

/** `proto://host[/prefix]` without a trailing slash. */
export const publicBase = (request: HttpServerRequest.HttpServerRequest): string => {
  const source = request.source instanceof Request ? new URL(request.source.url) : undefined
  const headers = request.headers
  const proto = first(headers["x-forwarded-proto"]) ?? source?.protocol.replace(/:$/, "") ?? "http"
  const host = first(headers["x-forwarded-host"]) ?? headers.host ?? source?.host ?? "localhost"
  return `${proto}://${host}${publicPrefix(request)}`
}

/** The mount path the API is served under (`/firecrawl`), or "" at the root. */
export const publicPrefix = (request: HttpServerRequest.HttpServerRequest): string =>
  (first(request.headers["x-forwarded-prefix"]) ?? "").replace(/\/+$/, "")
