/**
 * Target URLs as Firecrawl accepts them: a missing scheme gets `http://`, only http(s), and the host must have a
 * public suffix or be an IP literal. Private and loopback hosts pass here; the URL guard refuses them at connect time
 * unless the operator allowed them, so `localhost` is accepted too (it cannot be reached without that permission).
 * Intranet names without a dot (`http://intranet:8765/`) are accepted only where the engine allows private targets:
 * its URL guard sets `IntranetHosts` for the fibers that decode requests.
 */
import { Effect, FiberRef, Schema } from "effect"
import { parse as parseDomain } from "tldts"

const SCHEME = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//

/** Adds `http://` when the input has no scheme, as Firecrawl does. */
export const withScheme = (input: string): string =>
  SCHEME.test(input.trim()) ? input.trim() : `http://${input.trim()}`

/** Which dotless host names are acceptable targets; by default none (Firecrawl's rule). */
export const IntranetHosts = FiberRef.unsafeMake<(hostname: string) => boolean>(() => false)

/**
 * Why a URL is not acceptable, or undefined when it is. Messages are Firecrawl's. `intranet` says which dotless host
 * names are acceptable.
 */
export const urlProblem = (
  input: string,
  intranet: (hostname: string) => boolean = () => false,
): string | undefined => {
  const candidate = withScheme(input)
  let url: URL
  try {
    url = new URL(candidate)
  } catch {
    return "Invalid URL"
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "URL uses unsupported protocol"
  // `http://http://x` parses with host "http"; Firecrawl rejects it explicitly.
  if (/^https?:\/\/https?:\/?\/?/i.test(candidate)) return "Invalid URL"
  if (!hasReachableHost(url.hostname) && !(!url.hostname.includes(".") && intranet(url.hostname)))
    return "URL must have a valid top-level domain or be an IP address"
  return undefined
}

/**
 * A request's URL list split into acceptable and not, each trimmed; a trailing `/*` (extract's and the agent's "every
 * page under this path") is allowed.
 */
export const partitionUrls = (
  urls: ReadonlyArray<string>,
): Effect.Effect<{ readonly valid: ReadonlyArray<string>; readonly invalid: ReadonlyArray<string> }> =>
  Effect.map(FiberRef.get(IntranetHosts), (intranet) => {
    const trimmed = urls.map((url) => url.trim())
    const bad = (url: string) => urlProblem(url.replace(/\/\*$/, "/"), intranet) !== undefined
    return { valid: trimmed.filter((url) => !bad(url)), invalid: trimmed.filter(bad) }
  })

const hasReachableHost = (hostname: string): boolean => {
  if (hostname === "localhost" || hostname.endsWith(".localhost")) return true
  const info = parseDomain(hostname, { allowPrivateDomains: true })
  if (info.isIp) return true
  return info.domain !== null && info.isIcann === true
}

/** A target URL in a request body. It stays as sent (it becomes `metadata.sourceURL`); use `withScheme` to fetch it. */
export const TargetUrl = Schema.String.pipe(
  Schema.filterEffect((input) =>
    Effect.map(FiberRef.get(IntranetHosts), (intranet) => urlProblem(input, intranet) ?? true),
  ),
).annotations({
  identifier: "TargetUrl",
  description: "An http(s) URL; `http://` is assumed when the scheme is missing",
  jsonSchema: { type: "string", format: "uri" },
})
