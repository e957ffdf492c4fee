/** The local search index on Postgres full-text search: a weighted tsvector per page, a GIN index, ts_rank_cd. */
import type { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import type { IndexSearch, JobStoreShape } from "@webdata/core/jobs"
import { Array as Arr, Effect } from "effect"
import type { Db } from "./Db.js"
import { type IndexRow, indexRowOf, toIndexedPage } from "./Rows.js"

type SearchIndex = Pick<JobStoreShape, "indexPage" | "searchIndex">

/**
 * Rank weights of the URL words (D), content (C), description (B) and title (A), in the order `ts_rank_cd` takes
 * them. The port's relative weights are 0.5, 1, 1.5 and 3; Postgres accepts weights up to 1, and only ratios count.
 */
const WEIGHTS = [0.5, 1, 1.5, 3].map((weight) => weight / 3)

/** A tsquery operand of `term` read as a prefix, quoted so that nothing in it is tsquery syntax. */
const prefixOperand = (term: string): string => `'${term.replaceAll("\\", "\\\\").replaceAll("'", "''")}':*`

/**
 * The tsquery of a search, built from the terms as data: `plainto_tsquery` reads no operators, and a prefix term is a
 * quoted operand. Each term matches its English stem in the prose or the word as it is among the URL's words
 * (indexed with 'simple'), so a term the English configuration drops as a stop word still finds a URL.
 */
export const tsquery = (sql: SqlClient.SqlClient, search: Pick<IndexSearch, "terms" | "match" | "prefixLast">) => {
  const last = search.terms.length - 1
  const operands = search.terms.map((term, i) =>
    search.prefixLast && i === last
      ? sql`(to_tsquery('english', ${prefixOperand(term)}) || to_tsquery('simple', ${prefixOperand(term)}))`
      : sql`(plainto_tsquery('english', ${term}) || plainto_tsquery('simple', ${term}))`,
  )
  return sql.join(search.match === "all" ? " && " : " || ", false)(operands)
}

/** The pages matching `search`, in its order: filters, then the slice `offset`..`offset + limit`. */
export const pages = (sql: SqlClient.SqlClient, search: IndexSearch) => {
  const filters: Array<Fragment> = [
    ...(search.owner === undefined ? [] : [sql`s.owner = ${search.owner ?? ""}`]),
    ...(search.from === undefined ? [] : [sql`s.scraped_at >= ${search.from}`]),
    ...(search.to === undefined ? [] : [sql`s.scraped_at <= ${search.to}`]),
  ]
  const slice = sql`LIMIT ${Math.max(0, search.limit)} OFFSET ${Math.max(0, search.offset)}`
  if (search.terms.length === 0)
    return sql<IndexRow>`
      SELECT s.owner, s.url, s.title, s.description, s.content, s.scraped_at FROM search_index s
      WHERE ${sql.and(filters)} ORDER BY s.scraped_at DESC, s.seq DESC ${slice}`
  const score = search.newestFirst ? sql`0` : sql`ts_rank_cd(${WEIGHTS}::float4[], s.search, q.query, 1)`
  // Ranked on the keys alone, then the few pages of the slice read whole: ranking reads each match's tsvector, and
  // carrying every match's text through the sort would cost more than the ranking.
  return sql<IndexRow>`
    SELECT p.owner, p.url, p.title, p.description, p.content, p.scraped_at
    FROM (
      SELECT s.seq, s.scraped_at, ${score} AS score
      FROM search_index s, (SELECT ${tsquery(sql, search)} AS query) q
      WHERE ${sql.and([sql`s.search @@ q.query`, ...filters])}
      ORDER BY score DESC, s.scraped_at DESC, s.seq DESC ${slice}
    ) r
    JOIN search_index p ON p.seq = r.seq
    ORDER BY r.score DESC, r.scraped_at DESC, r.seq DESC`
}

export const make = ({ sql, run }: Db): SearchIndex => ({
  // The newest write wins: a page indexed again replaces its owner's version, and the tsvector follows.
  indexPage: (page) =>
    run(
      Effect.asVoid(sql`
        INSERT INTO search_index ${sql.insert(indexRowOf(page))}
        ON CONFLICT (owner, (md5(url)::uuid)) DO UPDATE SET
          url = EXCLUDED.url, title = EXCLUDED.title, description = EXCLUDED.description, content = EXCLUDED.content,
          url_words = EXCLUDED.url_words, scraped_at = EXCLUDED.scraped_at`),
    ),

  searchIndex: (search) =>
    search.limit <= 0 ? Effect.succeed([]) : run(Effect.map(pages(sql, search), Arr.map(toIndexedPage))),
})
