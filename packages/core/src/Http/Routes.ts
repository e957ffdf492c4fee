/**
 * The contract's routes as method and path patterns, so that a request for a known path with a method it does not
 * offer answers 405 with `Allow` (HttpApi's router only knows "no route": 404), and metrics and logs name a request by
 * its route's template rather than its path (bounded label values).
 */
import { WebdataApi } from "./Api.js"

interface Route {
  readonly method: string
  readonly path: string
  readonly pattern: RegExp
}

const toPattern = (path: string): RegExp =>
  new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:[A-Za-z]+/g, "[^/]+")}/?$`)

const routes: ReadonlyArray<Route> = Object.values(WebdataApi.groups).flatMap((group) =>
  Object.values(group.endpoints).map((endpoint) => ({
    method: endpoint.method,
    path: endpoint.path,
    pattern: toPattern(endpoint.path),
  })),
)

/** The methods the contract offers for `pathname`; empty for a path it does not know. */
export const allowedMethods = (pathname: string): ReadonlyArray<string> => [
  ...new Set(routes.filter((route) => route.pattern.test(pathname)).map((route) => route.method)),
]

const parameters = (path: string) => path.split("/:").length - 1

/** Templates, the most literal first: `/v2/crawl/ongoing` is not `/v2/crawl/:id`. */
const templates = [...new Map(routes.map((route) => [route.path, route])).values()].sort(
  (a, b) => parameters(a.path) - parameters(b.path),
)

/** The template of the contract's path that `pathname` is (`/v2/crawl/:id`); undefined for a path it does not know. */
export const templateOf = (pathname: string): string | undefined =>
  templates.find((route) => route.pattern.test(pathname))?.path
