/**
 * The absolute URL a client reaches this API at, for links in answers (`url` of a started job, `next`). Proxies
 * in front say so with `X-Forwarded-Proto` / `X-Forwarded-Host`, and the Express adapter passes its mount path as
 * `X-Forwarded-Prefix`.
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"

const first = (value: string | undefined): string | undefined => value?.split(",")[0]?.trim() || undefined

/** A forwarded scheme is used only when it is one a client can follow. */
const webScheme = (value: string | undefined): string | undefined =>
  value !== undefined && /^https?$/i.test(value) ? value.toLowerCase() : undefined

/** A forwarded host is used only when it is a host (and port) and nothing more. */
const plainHost = (value: string | undefined): string | undefined => {
  if (value === undefined) return undefined
  try {
    const url = new URL(`http://${value}`)
    return url.host === value.toLowerCase() && url.pathname === "/" ? url.host : undefined
  } catch {
    return undefined
  }
}

/**
 * `proto://host[/prefix]` without a trailing slash. The host adapter decides which forwarding headers to pass on
 * (the Express adapter only those of trusted proxies); the values are checked here either way.
 */
export const publicBase = (request: HttpServerRequest.HttpServerRequest): string =>
  publicBaseOf(request.headers, request.source instanceof Request ? request.source.url : undefined)

/** `publicBase` of a request known by its headers and the URL it came in on. */
export const publicBaseOf = (
  headers: Readonly<Record<string, string | undefined>>,
  url: string | undefined,
): string => {
  const source = url !== undefined ? new URL(url) : undefined
  const proto = webScheme(first(headers["x-forwarded-proto"])) ?? source?.protocol.replace(/:$/, "") ?? "http"
  const host = plainHost(first(headers["x-forwarded-host"])) ?? headers.host ?? source?.host ?? "localhost"
  return `${proto}://${host}${prefixOf(headers)}`
}

/** The mount path the API is served under (`/firecrawl`), or "" at the root; only plain path segments count. */
export const publicPrefix = (request: HttpServerRequest.HttpServerRequest): string => prefixOf(request.headers)

const prefixOf = (headers: Readonly<Record<string, string | undefined>>): string => {
  const prefix = (first(headers["x-forwarded-prefix"]) ?? "").replace(/\/+$/, "")
  return /^(\/[A-Za-z0-9._~-]+)*$/.test(prefix) ? prefix : ""
}
