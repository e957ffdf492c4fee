/**
 * The hot reads and claims stay index lookups at scale: a schema filled with a million tasks (most of them done),
 * many finished jobs, a job's hundred thousand documents, a deep outbox and many records, then the store's own
 * statements EXPLAINed. A sequential scan of a big table in any of them would make the store O(n) in its history.
 */
import { SqlClient } from "@effect/sql"
import type { Statement } from "@effect/sql/Statement"
import { it } from "@effect/vitest"
import { Effect } from "effect"
import { describe, expect } from "vitest"
import { newJob, tasks } from "../../core/test/jobs/conformance.js"
import * as Counters from "../src/Counters.js"
import * as Leases from "../src/Leases.js"
import * as Outbox from "../src/Outbox.js"
import * as Records from "../src/Records.js"
import * as Results from "../src/Results.js"
import { rawLayer, scopedSchema, storeIn } from "./support.js"

const T0 = 1_700_000_000_000

interface PlanNode {
  readonly "Node Type": string
  readonly "Relation Name"?: string
  readonly "Index Name"?: string
  readonly "Index Cond"?: string
  readonly Plans?: ReadonlyArray<PlanNode>
}

const INDEX_SCANS = new Set(["Index Scan", "Index Only Scan", "Bitmap Index Scan"])

/** The plan's nodes, each with the type of its parent. */
const nodes = (plan: PlanNode, parent = ""): Array<PlanNode & { readonly parent: string }> => [
  { ...plan, parent },
  ...(plan.Plans ?? []).flatMap((child) => nodes(child, plan["Node Type"])),
]

describe("PostgreSQL store at scale", () => {
  it.scopedLive(
    "claims, pending work, document pages, job reads, outbox heads and records use indexes among a million tasks",
    () =>
      Effect.gen(function* () {
        const schema = yield* scopedSchema
        const store = yield* storeIn(schema)
        const sql = yield* SqlClient.SqlClient
        const started = performance.now()
        // Four running jobs made by the store (so their rows are what it writes), then history around them.
        const running = yield* Effect.forEach([0, 1, 2, 3], (i) =>
          store.createJob(newJob({ createdAt: T0 + i, url: `https://example.test/${i}` }), tasks(10)),
        )
        const [big] = running
        // Raw statements on the store's tables: in transactions that set the schema for themselves.
        const inSchema = <A, E>(effect: Effect.Effect<A, E>) =>
          sql.withTransaction(Effect.zipRight(sql`SET LOCAL search_path TO ${sql(schema)}`, effect))
        yield* inSchema(
          Effect.gen(function* () {
            yield* sql`
          INSERT INTO jobs (id, kind, owner, status, options, task_limit, zero_data_retention, total, completed,
            failed, created_at, updated_at, completed_at, expires_at)
          SELECT 'old-' || i, 'crawl', 'key-' || (i % 100), 'completed', '{}', 100, false, 5, 5, 0, ${T0}::int8 - i,
            ${T0}::int8 - i, ${T0}::int8 - i, ${T0}::int8 + i
          FROM generate_series(1, 200000) AS i`
            // A million tasks: 99 % done, the rest pending (some due, some later) or leased.
            yield* sql`
          INSERT INTO tasks (id, job_id, url, dedup_key, depth, host, status, attempts, not_before, due_at,
            lease_owner, lease_until)
          SELECT 't-' || i, (${running.map((job) => job.id)}::text[])[1 + i % 4], 'https://example.test/x' || i,
            'example.test/x' || i, 1, 'example.test',
            CASE WHEN i % 100 <> 0 THEN 'done' WHEN i % 300 = 0 THEN 'leased' ELSE 'pending' END, 0,
            ${T0}::int8 + (i % 7) * 1000, ${T0}::int8 + (i % 7) * 1000,
            CASE WHEN i % 300 = 0 THEN 'w' END, CASE WHEN i % 300 = 0 THEN ${T0}::int8 + 60000 END
          FROM generate_series(1, 1000000) AS i`
            yield* sql`
          INSERT INTO documents (job_id, seq, url, document, created_at)
          SELECT ${big!.id}, i, 'https://example.test/x' || i, '{"markdown":"# page"}', ${T0}
          FROM generate_series(0, 99999) AS i`
            yield* sql`
          INSERT INTO deliveries (id, job_id, payload, created_at)
          SELECT 'd-' || i, 'job-' || (i % 50), '{}', ${T0} FROM generate_series(1, 100000) AS i`
            // Twenty thousand monitors, each due at its own time, with nine checks each.
            yield* sql`
          INSERT INTO records (kind, id, owner, parent, label, due_at, value, version, created_at, updated_at)
          SELECT CASE WHEN i % 10 = 0 THEN 'monitor' ELSE 'monitor-check' END, 'r-' || i, 'key-' || (i % 100),
            CASE WHEN i % 10 <> 0 THEN 'r-' || (i - i % 10) END, 'done', CASE WHEN i % 10 = 0 THEN ${T0}::int8 + i END,
            '{}', 1, ${T0}::int8 + i, ${T0}::int8 + i
          FROM generate_series(1, 200000) AS i`
          }),
        )
        yield* inSchema(sql`ANALYZE`)
        const filled = performance.now()

        const explain = (statement: Statement<unknown>) =>
          Effect.map(
            sql<{
              readonly "QUERY PLAN": ReadonlyArray<{ readonly Plan: PlanNode }>
            }>`EXPLAIN (FORMAT JSON) ${statement}`,
            (rows) => nodes(rows[0]!["QUERY PLAN"][0]!.Plan),
          )
        const bigTables = new Set(["tasks", "documents", "jobs", "deliveries", "records"])
        const plans = yield* inSchema(
          Effect.all({
            candidates: explain(Leases.candidates(sql, T0, 8)),
            pendingWork: explain(Leases.pendingWork(sql, T0 + 3000)),
            claim: explain(
              Leases.claim(sql, { jobId: big!.id, worker: "w1", now: T0 + 3000, leaseUntil: T0 + 60_000, max: 8 }),
            ),
            documents: explain(Results.documentsPage(sql, big!.id, 50_000, 100)),
            job: explain(sql`SELECT * FROM jobs WHERE id = ${big!.id}`),
            deliveries: explain(Outbox.leaseHeads(sql, { worker: "w1", now: T0, leaseMs: 60_000, max: 10 })),
            dueRecords: explain(Records.due(sql, "monitor", T0 + 1000, 10)),
            children: explain(Records.listed(sql, { kind: "monitor-check", parent: "r-100", offset: 0, limit: 20 })),
            ownRecords: explain(Records.listed(sql, { kind: "monitor", owner: "key-10", offset: 0, limit: 20 })),
          }),
        )
        // No scan of a whole big table or index: every scan of one looks up a range (`Index Cond`) or stops at a
        // LIMIT. Except the runnable jobs, read in serving order: that partial index holds the running jobs only.
        for (const [name, plan] of Object.entries(plans)) {
          const whole = plan.filter(
            (node) =>
              bigTables.has(node["Relation Name"] ?? "") &&
              node["Index Name"] !== "jobs_runnable" &&
              (node["Node Type"] === "Seq Scan" ||
                (INDEX_SCANS.has(node["Node Type"]) && node["Index Cond"] === undefined && node.parent !== "Limit")),
          )
          expect(whole, `${name} scans a whole table or index`).toEqual([])
        }
        const indexes = (name: keyof typeof plans) => plans[name].flatMap((node) => node["Index Name"] ?? [])
        expect(indexes("candidates")).toEqual(expect.arrayContaining(["jobs_runnable", "tasks_due"]))
        expect(indexes("claim")).toContain("tasks_due")
        expect(indexes("pendingWork")).toEqual(expect.arrayContaining(["jobs_runnable", "tasks_due"]))
        expect(indexes("documents")).toContain("documents_pkey")
        expect(indexes("job")).toContain("jobs_pkey")
        expect(indexes("deliveries")).toContain("deliveries_job")
        expect(indexes("dueRecords")).toContain("records_due")
        expect(indexes("children")).toContain("records_parent")
        expect(indexes("ownRecords")).toContain("records_owner")

        // And the store works on it: the claim takes the due tasks of the big job, not its history.
        const leased = yield* store.leaseTasks({ worker: "w1", now: T0 + 3000, leaseMs: 60_000, max: 4 })
        expect(leased).toHaveLength(4)
        expect((yield* store.documents(big!.id, { skip: 99_998, limit: 10 })).map((doc) => doc.seq)).toEqual([
          99_998, 99_999,
        ])
        console.info(
          `postgres explain test: filled in ${((filled - started) / 1000).toFixed(1)} s,`,
          `checked in ${((performance.now() - filled) / 1000).toFixed(1)} s`,
        )
      }).pipe(Effect.provide(rawLayer)),
    120_000,
  )

  it.scopedLive("an add, a read and the purge of counters use indexes among 300 000 counters", () =>
    Effect.gen(function* () {
      const schema = yield* scopedSchema
      yield* storeIn(schema)
      const sql = yield* SqlClient.SqlClient
      const inSchema = <A, E>(effect: Effect.Effect<A, E>) =>
        sql.withTransaction(Effect.zipRight(sql`SET LOCAL search_path TO ${sql(schema)}`, effect))
      // A rate-limit window per key and minute, most of them long past.
      yield* inSchema(sql`
        INSERT INTO counters (name, value, expires_at)
        SELECT 'rate:key-' || (i % 1000) || ':' || (i / 1000), i % 60, ${T0}::int8 + (i / 1000) * 60000
        FROM generate_series(1, 300000) AS i`)
      yield* inSchema(sql`ANALYZE counters`)
      const explain = (statement: Statement<unknown>) =>
        Effect.map(
          sql<{
            readonly "QUERY PLAN": ReadonlyArray<{ readonly Plan: PlanNode }>
          }>`EXPLAIN (FORMAT JSON) ${statement}`,
          (rows) => nodes(rows[0]!["QUERY PLAN"][0]!.Plan),
        )
      const plans = yield* inSchema(
        Effect.all({
          add: explain(Counters.added(sql, "rate:key-1:299", 1, T0 + 299 * 60_000)),
          read: explain(Counters.read(sql, ["rate:key-1:299", "rate:key-2:299", "usage:key-1"])),
          // The purge a minute after the first window: a thousand rows out of 300 000.
          purge: explain(Counters.purged(sql, T0 + 60_000)),
        }),
      )
      for (const [name, plan] of Object.entries(plans))
        expect(
          plan.filter((node) => node["Relation Name"] === "counters" && node["Node Type"] === "Seq Scan"),
          `${name} scans the counters`,
        ).toEqual([])
      const indexes = (name: keyof typeof plans) => plans[name].flatMap((node) => node["Index Name"] ?? [])
      expect(indexes("read")).toContain("counters_pkey")
      expect(indexes("purge")).toContain("counters_expires")
    }).pipe(Effect.provide(rawLayer)),
  )
})
