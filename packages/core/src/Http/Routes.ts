/**
 * The contract's routes as method and path patterns, so that a request for a known path with a method it does not
 * offer answers 405 with `Allow` (HttpApi's router only knows "no route": 404).
 */
import { WebdataApi } from "./Api.js"

interface Route {
  readonly method: string
  readonly pattern: RegExp
}

const toPattern = (path: string): RegExp =>
  new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:[A-Za-z]+/g, "[^/]+")}/?$`)

const routes: ReadonlyArray<Route> = Object.values(WebdataApi.groups).flatMap((group) =>
  Object.values(group.endpoints).map((endpoint) => ({ method: endpoint.method, pattern: toPattern(endpoint.path) })),
)

/** The methods the contract offers for `pathname`; empty for a path it does not know. */
export const allowedMethods = (pathname: string): ReadonlyArray<string> => [
  ...new Set(routes.filter((route) => route.pattern.test(pathname)).map((route) => route.method)),
]
