/** The MATCH expression SQLite's FTS5 gets for a search of the index. */
import type { IndexSearch } from "@webdata/core/jobs"

/**
 * The FTS5 query of a search: each term a quoted string (so no term is ever read as FTS5 syntax: `NEAR`, `OR`, `-`,
 * `:`, `*`), the last one a prefix when asked, joined by AND or OR.
 */
export const matchExpression = (search: Pick<IndexSearch, "terms" | "match" | "prefixLast">): string => {
  const last = search.terms.length - 1
  return search.terms
    .map((term, i) => `"${term.replaceAll('"', '""')}"${search.prefixLast && i === last ? "*" : ""}`)
    .join(search.match === "all" ? " AND " : " OR ")
}
