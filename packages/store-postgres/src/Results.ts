/** What jobs and scrapes produced (documents, errors, stored scrapes), browser profiles and the scrape cache. */
import type { SqlClient } from "@effect/sql"
import { decodeJson, encodeJson, encodeScrapeDocument, type JobStoreShape } from "@webdata/core/jobs"
import { Array as Arr, Effect, Option } from "effect"
import { changes, type Db } from "./Db.js"
import {
  type CacheRow,
  type CountRow,
  type DocumentRow,
  decodeFirst,
  type ErrorRow,
  type Int8,
  toCachedPage,
  toCount,
  toDocument,
  toError,
} from "./Rows.js"

type Results = Pick<
  JobStoreShape,
  | "documents"
  | "countDocuments"
  | "deleteDocuments"
  | "errors"
  | "putScrape"
  | "getScrape"
  | "getProfile"
  | "putProfile"
  | "cacheGet"
  | "cacheSet"
>

/** A page of a job's documents: a range of the primary key `(job_id, seq)`. */
export const documentsPage = (sql: SqlClient.SqlClient, jobId: string, skip: number, limit: number) =>
  sql<DocumentRow>`
    SELECT * FROM documents WHERE job_id = ${jobId} AND seq >= ${Math.max(0, skip)}
    ORDER BY seq LIMIT ${Math.max(0, limit)}`

export const make = ({ sql, run, transaction, snapshot, lockJob }: Db): Results => ({
  documents: (jobId, { skip, limit }) =>
    run(Effect.flatMap(documentsPage(sql, jobId, skip, limit), Effect.forEach(toDocument))),

  countDocuments: (jobId) =>
    run(Effect.map(sql<CountRow>`SELECT count(*) FROM documents WHERE job_id = ${jobId}`, toCount)),

  // A job writer: under the job's lock, so it never overlaps a completion or a purge of the same job.
  deleteDocuments: (jobId, beforeSeq) =>
    transaction(
      Effect.flatMap(lockJob(jobId), (job) =>
        Option.isNone(job)
          ? Effect.succeed(0)
          : changes(sql`DELETE FROM documents WHERE job_id = ${jobId} AND seq < ${Math.max(0, beforeSeq)}`),
      ),
    ),

  errors: (jobId) =>
    snapshot(
      Effect.all({
        errors: Effect.map(
          sql<ErrorRow>`SELECT * FROM job_errors WHERE job_id = ${jobId} ORDER BY seq`,
          Arr.map(toError),
        ),
        robotsBlocked: Effect.map(
          sql<{ readonly url: string }>`SELECT url FROM robots_blocked WHERE job_id = ${jobId} ORDER BY seq`,
          Arr.map((row) => row.url),
        ),
      }),
    ),

  putScrape: (scrape) =>
    Effect.flatMap(encodeScrapeDocument(scrape), (json) =>
      run(
        Effect.asVoid(sql`
          INSERT INTO scrapes ${sql.insert({ id: scrape.id, owner: scrape.owner, document: json, expires_at: scrape.expiresAt })}
          ON CONFLICT (id) DO UPDATE
          SET owner = EXCLUDED.owner, document = EXCLUDED.document, expires_at = EXCLUDED.expires_at`),
      ),
    ),

  getScrape: (id) =>
    run(
      Effect.flatMap(
        sql<{ readonly owner: string | null; readonly document: string; readonly expires_at: Int8 }>`
          SELECT owner, document, expires_at FROM scrapes WHERE id = ${id}`,
        decodeFirst((row) =>
          Effect.map(decodeJson(row.document), (document) => ({
            id,
            owner: row.owner,
            document,
            expiresAt: Number(row.expires_at),
          })),
        ),
      ),
    ),

  getProfile: (owner, name) =>
    run(
      Effect.flatMap(
        sql<{ readonly state: string }>`SELECT state FROM profiles WHERE owner = ${owner ?? ""} AND name = ${name}`,
        decodeFirst((row) => decodeJson(row.state)),
      ),
    ),

  putProfile: (owner, name, state) =>
    Effect.flatMap(encodeJson(state), (json) =>
      run(
        Effect.asVoid(sql`
          INSERT INTO profiles ${sql.insert({ owner: owner ?? "", name, state: json })}
          ON CONFLICT (owner, name) DO UPDATE SET state = EXCLUDED.state, updated_at = DEFAULT`),
      ),
    ),

  cacheGet: (key) =>
    run(
      Effect.flatMap(
        sql<CacheRow>`SELECT * FROM scrape_cache WHERE md5(key)::uuid = md5(${key})::uuid AND key = ${key}`,
        decodeFirst(toCachedPage),
      ),
    ),

  cacheSet: (key, page) =>
    Effect.flatMap(page.file === undefined ? Effect.succeed(null) : encodeJson(page.file), (file) =>
      run(
        Effect.asVoid(sql`
          INSERT INTO scrape_cache ${sql.insert({
            key,
            url: page.url,
            status_code: page.statusCode,
            content_type: page.contentType ?? null,
            body: page.body,
            file,
            cached_at: page.cachedAt,
          })}
          ON CONFLICT ((md5(key)::uuid)) DO UPDATE SET
            url = EXCLUDED.url, status_code = EXCLUDED.status_code, content_type = EXCLUDED.content_type,
            body = EXCLUDED.body, file = EXCLUDED.file, cached_at = EXCLUDED.cached_at`),
      ),
    ),
})
