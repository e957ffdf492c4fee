/**
 * What every outgoing HTTP client of the engine shares (the scrape fetcher, webhook delivery): an undici agent whose
 * connections go only to addresses the URL guard checked, the headers a caller may not set, and how to find the
 * guard's own error inside the error chain undici wraps it in.
 */
import { Effect, type Scope } from "effect"
import { Agent, type Dispatcher, ProxyAgent } from "undici"
import { ScrapeError } from "../Errors.js"
import type { UrlGuard } from "./UrlGuard.js"

/**
 * An undici agent whose connections go only to addresses the guard checked; destroyed with the scope. IP-literal
 * hosts never reach a lookup, so callers still check each URL with `guard.checkUrl` before requesting it.
 */
export const guardedAgent = (
  guard: UrlGuard["Type"],
  options: { readonly rejectUnauthorized: boolean },
): Effect.Effect<Agent, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => new Agent({ connect: { lookup: guard.lookup, rejectUnauthorized: options.rejectUnauthorized } })),
    (agent) => Effect.promise(() => agent.destroy()),
  )

/**
 * Agents through the operator's proxies, one per proxy and TLS mode, made on first use and destroyed with the scope.
 * The proxy resolves the target's name itself: callers check each URL with `guard.checkUrl` first.
 */
export const proxyAgents = (): Effect.Effect<
  (proxy: string, rejectUnauthorized: boolean) => Dispatcher,
  never,
  Scope.Scope
> =>
  Effect.map(
    Effect.acquireRelease(
      Effect.sync(() => new Map<string, ProxyAgent>()),
      (agents) => Effect.promise(() => Promise.all([...agents.values()].map((agent) => agent.destroy()))),
    ),
    (agents) => (proxy, rejectUnauthorized) => {
      const key = `${rejectUnauthorized}|${proxy}`
      let agent = agents.get(key)
      if (agent === undefined) {
        // Plain-HTTP targets are sent to the proxy as absolute URLs (what every HTTP proxy speaks), HTTPS ones tunnel.
        agent = new ProxyAgent({ uri: proxy, proxyTunnel: false, requestTls: { rejectUnauthorized } })
        agents.set(key, agent)
      }
      return agent
    },
  )

/** Connection-level headers (lower case) are the client's business; undici rejects several of them outright. */
export const clientOwnedHeaders: ReadonlySet<string> = new Set([
  "host",
  "connection",
  "content-length",
  "transfer-encoding",
  "keep-alive",
  "upgrade",
  "expect",
  "te",
  "trailer",
  "proxy-connection",
])

/** The guard's `ScrapeError` (a refusal, a DNS failure) when it is somewhere in an undici error's cause chain. */
export const findScrapeError = (error: unknown): ScrapeError | undefined => {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    if (current instanceof ScrapeError) return current
    current = current.cause
  }
  return undefined
}
