/**
 * The part of the path clients see before the API's own routes (`/v2/...`): an API Gateway stage, a custom domain's
 * base path. It is stripped for routing and passed on as `X-Forwarded-Prefix`, from which the API builds its links.
 */

export interface RoutedPath {
  /** `/prod`, `/prod/firecrawl`, or "" when nothing was stripped. */
  readonly prefix: string
  readonly path: string
}

/** Moves `leading` from the start of the path to the prefix when the path starts with it as whole segments. */
export const stripLeading = (routed: RoutedPath, leading: string): RoutedPath =>
  leading !== "" && (routed.path === leading || routed.path.startsWith(`${leading}/`))
    ? { prefix: routed.prefix + leading, path: routed.path.slice(leading.length) || "/" }
    : routed

/**
 * API Gateway REST leaves the stage out of `path` but keeps it in `requestContext.path`, which is the path as the
 * client sent it: what comes before `path` there is the prefix.
 */
export const contextPrefix = (path: string, contextPath: string | undefined): string => {
  if (contextPath === undefined) return ""
  // The root's context path is `/prod/`.
  if (path === "/") return contextPath.replace(/\/+$/, "")
  return contextPath.endsWith(path) ? contextPath.slice(0, -path.length) : ""
}

/** A base path as an operator may write it (`firecrawl`, `/firecrawl/`) in the form `/firecrawl`; "" for none. */
export const normalizeBasePath = (basePath: string | undefined): string =>
  (basePath ?? "").replace(/^\/*/, "/").replace(/\/+$/, "")
