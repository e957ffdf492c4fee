import { Chunk, Effect, Fiber, Layer, Logger, LogLevel, Stream } from "effect"
import { describe, expect, it } from "vitest"
import { offeredToken, type WatchEvent, type WatchedKind, watch } from "../../src/Http/CrawlWatch.js"
import * as ServerConfig from "../../src/Http/ServerConfig.js"
import * as JobControl from "../../src/Jobs/JobControl.js"
import { JobStore, type NewTask } from "../../src/Jobs/JobStore.js"
import * as JobsConfig from "../../src/Jobs/JobsConfig.js"
import * as MemoryJobStore from "../../src/Jobs/MemoryJobStore.js"
import { ownerOf } from "../../src/Jobs/Owner.js"
import * as WorkSignal from "../../src/Jobs/WorkSignal.js"
import * as KeyRing from "../../src/Tenants/KeyRing.js"

const services = (apiKeys: ReadonlyArray<string>) =>
  Layer.mergeAll(JobControl.layer, KeyRing.layer).pipe(
    Layer.provideMerge(
      Layer.mergeAll(MemoryJobStore.layer(), WorkSignal.layer, JobsConfig.layer(), ServerConfig.layer({ apiKeys })),
    ),
  )

const run = <A, E>(effect: Effect.Effect<A, E, JobStore | JobControl.JobControl | KeyRing.KeyRing>) =>
  Effect.runPromise(Effect.provide(effect, services(["k1", "k2"])))

const task = (path: string): NewTask => ({ url: `http://site.test${path}`, key: path, depth: 0, host: "site.test" })
const doc = (path: string) => ({ markdown: `# ${path}`, metadata: { sourceURL: `http://site.test${path}` } })

/** A crawl (or batch) of `paths` owned by `key`'s owner. */
const newCrawl = (key: string, paths: ReadonlyArray<string>, kind: "crawl" | "batch" = "crawl") =>
  Effect.flatMap(JobStore, (store) =>
    store.createJob(
      {
        kind,
        owner: ownerOf(key),
        url: "http://site.test/",
        options: {},
        limit: 100,
        zeroDataRetention: false,
        createdAt: Date.now(),
        expiresAt: Date.now() + 60_000,
      },
      paths.map(task),
    ),
  )

/** Leases the job's next task and records its document. */
const finishNext = Effect.gen(function* () {
  const store = yield* JobStore
  const [leased] = yield* store.leaseTasks({ worker: "test", now: Date.now(), leaseMs: 60_000, max: 1 })
  if (leased === undefined) return yield* Effect.die("no task to lease")
  yield* store.completeTask(leased, {
    now: Date.now(),
    document: doc(new URL(leased.url).pathname),
    discovered: [],
    robotsBlocked: [],
  })
})

const collect = (id: string, token: string | undefined, kind: WatchedKind = "crawl") =>
  Effect.map(Stream.runCollect(watch(kind, id, token)), (events) => Chunk.toReadonlyArray(events))

const parse = (event: WatchEvent | undefined) => {
  if (event?._tag !== "Message") throw new Error(`expected a message, got ${JSON.stringify(event)}`)
  return JSON.parse(event.text)
}

const done = { _tag: "Close", code: 1000, reason: '{"type":"done"}' }

describe("the crawl watcher", () => {
  it("catches up, sends each later document once, and closes with done when the crawl ends", async () => {
    const events = await run(
      Effect.gen(function* () {
        const job = yield* newCrawl("k1", ["/", "/a", "/b"])
        yield* finishNext
        const watching = yield* Effect.fork(collect(job.id, "k1"))
        yield* Effect.sleep("100 millis")
        yield* finishNext
        yield* Effect.sleep("50 millis")
        yield* finishNext
        return yield* Fiber.join(watching)
      }),
    )
    expect(events).toHaveLength(4)
    const catchup = parse(events[0])
    expect(catchup).toMatchObject({
      type: "catchup",
      data: { success: true, status: "scraping", completed: 1, total: 3, creditsUsed: 1 },
    })
    expect(catchup.data.data).toEqual([doc("/")])
    expect(typeof catchup.data.expiresAt).toBe("string")
    expect([parse(events[1]), parse(events[2])]).toEqual([
      { type: "document", data: doc("/a") },
      { type: "document", data: doc("/b") },
    ])
    expect(events[3]).toEqual(done)
  })

  it("speaks v1 at v1's crawl route, for a crawl and for a batch scrape, and refuses another key's job", async () => {
    const [crawl, batch, other] = await run(
      Effect.gen(function* () {
        const crawlJob = yield* newCrawl("k1", ["/", "/a"])
        yield* finishNext
        const watching = yield* Effect.fork(collect(crawlJob.id, "k1", "v1"))
        yield* Effect.sleep("100 millis")
        yield* finishNext
        const crawlEvents = yield* Fiber.join(watching)
        const batchJob = yield* newCrawl("k1", ["/b"], "batch")
        yield* finishNext
        return [crawlEvents, yield* collect(batchJob.id, "k1", "v1"), yield* collect(batchJob.id, "k2", "v1")]
      }),
    )
    const catchup = parse(crawl[0])
    expect(catchup).toMatchObject({ type: "catchup", data: { success: true, status: "scraping", completed: 1 } })
    // v1's status has no timing fields; its documents are v1's (the structured answer under `extract` too).
    expect(catchup.data).not.toHaveProperty("createdAt")
    expect(catchup.data.data).toEqual([doc("/")])
    expect(parse(crawl[1])).toEqual({ type: "document", data: doc("/a") })
    expect(crawl[2]).toEqual(done)
    expect(parse(batch[0])).toMatchObject({ type: "catchup", data: { status: "completed", data: [doc("/b")] } })
    expect(batch[1]).toEqual(done)
    expect(other).toEqual([{ _tag: "Close", code: 1008, reason: '{"type":"error","error":"Job not found"}' }])
  })

  it("closes right after the catchup for a crawl that has ended (cancelled included)", async () => {
    const events = await run(
      Effect.gen(function* () {
        const job = yield* newCrawl("k1", ["/", "/a"])
        yield* finishNext
        yield* JobControl.JobControl.pipe(Effect.flatMap((control) => control.cancel("crawl", job.id, ownerOf("k1"))))
        return yield* collect(job.id, "k1")
      }),
    )
    expect(events).toHaveLength(2)
    expect(parse(events[0])).toMatchObject({ type: "catchup", data: { status: "cancelled", data: [doc("/")] } })
    expect(events[1]).toEqual(done)
  })

  it("ends with done when the crawl is cancelled while watched", async () => {
    const events = await run(
      Effect.gen(function* () {
        const job = yield* newCrawl("k1", ["/", "/a"])
        const watching = yield* Effect.fork(collect(job.id, "k1"))
        yield* Effect.sleep("100 millis")
        yield* Effect.flatMap(JobControl.JobControl, (control) => control.cancel("crawl", job.id, ownerOf("k1")))
        return yield* Fiber.join(watching)
      }),
    )
    expect(parse(events[0])).toMatchObject({ type: "catchup", data: { status: "scraping", data: [] } })
    expect(events.slice(1)).toEqual([done])
  })

  it("refuses bad ids, bad keys and crawls of other keys with Firecrawl's close codes", async () => {
    const results = await run(
      Effect.gen(function* () {
        const job = yield* newCrawl("k1", ["/"])
        const unknown = "0190a000-0000-7000-8000-000000000000"
        return yield* Effect.all([
          collect("not-a-uuid", "k1"),
          collect(job.id, undefined),
          collect(job.id, "wrong"),
          collect(job.id, "k2"),
          collect(unknown, "k1"),
        ])
      }),
    )
    expect(results).toEqual([
      [{ _tag: "Close", code: 1008, reason: "Invalid job ID" }],
      [
        {
          _tag: "Close",
          code: 3000,
          reason: JSON.stringify({
            type: "error",
            error: "Unauthorized: missing API key (Authorization: Bearer <key>)",
          }),
        },
      ],
      [{ _tag: "Close", code: 3000, reason: '{"type":"error","error":"Unauthorized: Invalid token"}' }],
      [{ _tag: "Close", code: 1008, reason: '{"type":"error","error":"Job not found"}' }],
      [{ _tag: "Close", code: 1008, reason: '{"type":"error","error":"Job not found"}' }],
    ])
  })

  it("watches a batch scrape the same way, and never shows one kind as the other", async () => {
    const [asBatch, asCrawl] = await run(
      Effect.gen(function* () {
        const batch = yield* newCrawl("k1", ["/x"], "batch")
        yield* finishNext
        return yield* Effect.all([collect(batch.id, "k1", "batch"), collect(batch.id, "k1", "crawl")])
      }),
    )
    expect(parse(asBatch?.[0])).toMatchObject({ type: "catchup", data: { status: "completed", data: [doc("/x")] } })
    expect(asBatch?.[1]).toEqual(done)
    expect(asCrawl).toEqual([{ _tag: "Close", code: 1008, reason: '{"type":"error","error":"Job not found"}' }])
  })

  it("closes with 1011 when the store fails", async () => {
    const failing = Layer.succeed(JobControl.JobControl, {
      ...({} as JobControl.JobControl["Type"]),
      status: () => Effect.die(new Error("disk gone")),
    })
    const events = await Effect.runPromise(
      collect("0190a000-0000-7000-8000-000000000000", undefined).pipe(
        Effect.provide(
          Layer.merge(
            failing,
            KeyRing.layer.pipe(Layer.provide(Layer.merge(ServerConfig.layer(), MemoryJobStore.layer()))),
          ),
        ),
        // The failure is logged; the test only needs the close.
        Logger.withMinimumLogLevel(LogLevel.None),
      ),
    )
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({ _tag: "Close", code: 1011 })
    expect(JSON.parse((events[0] as { reason: string }).reason).type).toBe("error")
  })

  it("reads the key from the bearer header, else the first subprotocol", () => {
    expect(offeredToken({ authorization: "Bearer abc", protocols: "def" })).toBe("abc")
    expect(offeredToken({ protocols: "fc-key, other" })).toBe("fc-key")
    expect(offeredToken({ authorization: "Basic xyz" })).toBeUndefined()
    expect(offeredToken({})).toBeUndefined()
  })
})
