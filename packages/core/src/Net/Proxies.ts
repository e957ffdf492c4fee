/**
 * The operator's outgoing proxies (`WEBDATA_PROXY_URL`, a comma-separated list of `http://[user:pass@]host:port`),
 * taken in turn. A scrape with `proxy: "basic"` goes through one; with `"auto"` (the default) it goes direct first and
 * again through one when the site answers 401, 403 or 429. The URL guard still checks every target before a request
 * is sent; the proxies themselves are the operator's and are not checked.
 */
import { Config, type ConfigError, Context, Effect, Layer } from "effect"

export interface ProxiesShape {
  /** The next proxy in turn, or undefined when there are none. */
  readonly next: () => string | undefined
}

export class Proxies extends Context.Tag("@webdata/core/Proxies")<Proxies, ProxiesShape>() {}

/** Statuses after which `proxy: "auto"` tries again through a proxy: the site refused this client. */
export const PROXY_RETRY_STATUSES: ReadonlySet<number> = new Set([401, 403, 429])

const parse = (value: string): string => {
  const url = URL.parse(value.trim())
  if (url === null || !/^https?:$/.test(url.protocol) || url.hostname === "")
    throw new Error(`Not a proxy URL (http://[user:password@]host:port): ${value.trim()}`)
  return url.href
}

export const make = (urls: ReadonlyArray<string>): ProxiesShape => {
  const list = urls.map(parse)
  let turn = 0
  return { next: () => (list.length === 0 ? undefined : list[turn++ % list.length]) }
}

/** Throws at once on a URL that is not an http(s) proxy, so that a misconfigured engine is not built at all. */
export const layer = (urls: ReadonlyArray<string> = []): Layer.Layer<Proxies> => Layer.succeed(Proxies, make(urls))

export const layerConfig: Layer.Layer<Proxies, Error | ConfigError.ConfigError> = Layer.effect(
  Proxies,
  Effect.gen(function* () {
    const value = yield* Config.string("WEBDATA_PROXY_URL").pipe(Config.withDefault(""))
    const urls = value.split(",").filter((entry) => entry.trim() !== "")
    return yield* Effect.try({ try: () => make(urls), catch: (error) => error as Error })
  }),
)
