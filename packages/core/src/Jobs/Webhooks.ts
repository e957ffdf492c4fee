/**
 * Webhook delivery for crawl, batch-scrape, extract and agent jobs and monitor checks, in Firecrawl's wire format.
 * `send` only writes the delivery to the job store's outbox, so a slow or dead receiver never slows a crawl and a
 * delivery survives the process that queued it; a task's page event (`jobDelivery`) is written by the very commit
 * that records the page. Workers lease deliveries from the outbox and POST them with retries and backoff: each is
 * sent by one process at a time, a job's in order (its `completed` never overtakes its `page`s), different jobs
 * concurrently. A process that dies mid-delivery leaves a lease; once it runs out another worker sends the delivery
 * again with the same `webhookId`, so receivers can deduplicate (delivery is at least once). Every connection goes
 * through the URL guard like a scrape does; redirects are not followed: a webhook's target is the URL given.
 */
import { createHmac } from "node:crypto"
import {
  Cause,
  Config,
  type ConfigError,
  Context,
  Data,
  Duration,
  Effect,
  FiberSet,
  Layer,
  Option,
  Queue,
  Redacted,
  Schedule,
} from "effect"
import { v7 as uuidv7 } from "uuid"
import type { WebhookEvent, WebhookSpec } from "../Domain/Webhook.js"
import { PRIVATE_TARGETS_OPT_IN } from "../ErrorCodes.js"
import { RequestError } from "../Errors.js"
import { clientOwnedHeaders, findScrapeError, guardedAgent } from "../Net/GuardedHttp.js"
import { UrlGuard, type UrlGuardService } from "../Net/UrlGuard.js"
import { type Delivery, type Job, JobStore, type NewDelivery } from "./JobStore.js"
import * as WorkerIdentity from "./WorkerIdentity.js"

export type WebhookJobKind = "crawl" | "batch" | "extract" | "agent" | "monitor"

/** The event type's prefix of each kind of job (`crawl.page`, `batch_scrape.completed`, `extract.failed`, ...). */
const TYPE_PREFIX: Record<WebhookJobKind, string> = {
  crawl: "crawl",
  batch: "batch_scrape",
  extract: "extract",
  agent: "agent",
  monitor: "monitor",
}

export interface WebhookDelivery {
  readonly spec: WebhookSpec
  readonly jobKind: WebhookJobKind
  readonly jobId: string
  readonly event: WebhookEvent
  readonly success: boolean
  readonly data: ReadonlyArray<unknown>
  readonly error?: string
}

export class Webhooks extends Context.Tag("@webdata/core/Webhooks")<
  Webhooks,
  {
    /** Enqueues a delivery and returns at once; never fails. Events the spec did not subscribe to are dropped. */
    readonly send: (delivery: WebhookDelivery) => Effect.Effect<void>
    /**
     * Tells this process's sender that another store write queued deliveries (a task's `completeTask`), so that it
     * looks at the outbox now rather than at its next poll.
     */
    readonly wake: Effect.Effect<void>
    /**
     * Waits until this process's sender has nothing due in the outbox and nothing in flight, or until `until` (epoch
     * ms); true when it got there. For hosts that freeze the process between invocations (AWS Lambda). A process that
     * only queues deliveries answers true at once.
     */
    readonly flush: (until: number) => Effect.Effect<boolean>
  }
>() {}

/** An event of `job` for its webhook, if it has one (the job record keeps the request's decoded webhook). */
const jobEvent = (
  job: Job,
  event: WebhookEvent,
  data: ReadonlyArray<unknown>,
  error: string | undefined,
): WebhookDelivery | undefined => {
  const spec = job.webhook as WebhookSpec | undefined
  // An llms.txt generation is made without one; the check tells the type so.
  if (spec === undefined || job.kind === "llmstxt") return undefined
  return {
    spec,
    jobKind: job.kind,
    jobId: job.id,
    event,
    // Firecrawl's only unsuccessful event is the page that failed.
    success: error === undefined,
    data,
    ...(error !== undefined ? { error } : {}),
  }
}

/** What the outbox keeps of a delivery: the event, and its `webhookId`, fixed at enqueue so retries carry it. */
interface Queued {
  readonly delivery: WebhookDelivery
  readonly webhookId: string
}

/** The outbox entry of `delivery`, or none when its webhook did not subscribe to the event. */
const outboxEntry = (delivery: WebhookDelivery): NewDelivery | undefined => {
  if (!delivery.spec.events.includes(delivery.event)) return undefined
  const payload: Queued = { delivery, webhookId: uuidv7() }
  return { jobId: delivery.jobId, payload, createdAt: Date.now() }
}

/**
 * The outbox entry of an event of `job`, for a store write that queues it with what it reports (`TaskOutcome`'s
 * `deliveries`); none when the job has no webhook or the webhook did not subscribe to the event. After the write,
 * `wake` the sender.
 */
export const jobDelivery = (
  job: Job,
  event: WebhookEvent,
  data: ReadonlyArray<unknown> = [],
  error?: string,
): NewDelivery | undefined => {
  const delivery = jobEvent(job, event, data, error)
  return delivery === undefined ? undefined : outboxEntry(delivery)
}

/** Announces an event of `job` to its webhook, if it has one. Like `send`, it only enqueues. */
export const announce = (
  webhooks: Webhooks["Type"],
  job: Job,
  event: WebhookEvent,
  data: ReadonlyArray<unknown> = [],
  error?: string,
): Effect.Effect<void> => {
  const delivery = jobEvent(job, event, data, error)
  return delivery === undefined ? Effect.void : webhooks.send(delivery)
}

export interface WebhooksOptions {
  /** HMAC-SHA256 key for `X-Firecrawl-Signature`; unset or empty: no signature header. */
  readonly secret?: string | undefined
  /** Attempts per delivery, the first included. Default 4 (3 retries). */
  readonly maxAttempts?: number | undefined
  /** Delay before the first retry, doubled for each later one, with ±20 % jitter. Default 1000 ms. */
  readonly backoffMs?: number | undefined
  /** Time one attempt may take, answer included. Default 10 000 ms. */
  readonly timeoutMs?: number | undefined
  /** Deliveries this process sends at the same time (to different jobs). Default 4. */
  readonly concurrency?: number | undefined
  /** Whether this process sends deliveries (a worker) or only queues them (an API process). Default true. */
  readonly deliver?: boolean | undefined
  /** How often an idle sender looks for due deliveries queued by other processes. Default 250 ms. */
  readonly pollMs?: number | undefined
  /** On release, how long due deliveries may still be sent before the sender stops. Default 5000 ms. */
  readonly shutdownTimeoutMs?: number | undefined
}

/** Why one attempt failed; `retryable` is false for what another try cannot change (a refused target). */
class AttemptFailed extends Data.TaggedError("AttemptFailed")<{
  readonly message: string
  readonly retryable: boolean
}> {}

const isQueued = (payload: unknown): payload is Queued => {
  const queued = payload as Partial<Queued> | null
  return typeof queued?.webhookId === "string" && typeof queued.delivery?.spec?.url === "string"
}

const eventType = (delivery: WebhookDelivery) => `${TYPE_PREFIX[delivery.jobKind]}.${delivery.event}`

const encodeBody = (queued: Queued): Effect.Effect<Buffer, AttemptFailed> => {
  const { delivery } = queued
  return Effect.try({
    try: () =>
      Buffer.from(
        JSON.stringify({
          success: delivery.success,
          type: eventType(delivery),
          id: delivery.jobId,
          webhookId: queued.webhookId,
          data: delivery.data,
          ...(delivery.error !== undefined ? { error: delivery.error } : {}),
          metadata: delivery.spec.metadata,
        }),
      ),
    catch: (error) =>
      new AttemptFailed({ message: `the payload is not serializable: ${String(error)}`, retryable: false }),
  })
}

const requestHeaders = (spec: WebhookSpec, body: Buffer, secret: string | undefined) => {
  const headers: Record<string, string> = { "content-type": "application/json" }
  for (const [name, value] of Object.entries(spec.headers)) {
    const key = name.toLowerCase()
    if (!clientOwnedHeaders.has(key) && key !== "x-firecrawl-signature") headers[key] = value
  }
  if (secret !== undefined)
    headers["x-firecrawl-signature"] = `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`
  return headers
}

const describeError = (error: unknown) => {
  const code = (error as { code?: unknown } | null)?.code
  const message = error instanceof Error ? error.message : String(error)
  return typeof code === "string" ? `${message} (${code})` : message
}

/** Builds the service; its sender and connections live as long as the enclosing scope. */
export const make = Effect.fn("Webhooks.make")(function* (options: WebhooksOptions = {}) {
  const secret = options.secret !== undefined && options.secret !== "" ? options.secret : undefined
  const maxAttempts = Math.max(1, options.maxAttempts ?? 4)
  const backoffMs = options.backoffMs ?? 1000
  const timeout = Duration.millis(options.timeoutMs ?? 10_000)
  const concurrency = Math.max(1, options.concurrency ?? 4)
  const pollMs = options.pollMs ?? 250
  const shutdownTimeout = Duration.millis(options.shutdownTimeoutMs ?? 5000)

  const store = yield* JobStore
  const guard = yield* UrlGuard
  const agent = yield* guardedAgent(guard, { rejectUnauthorized: true })
  /** Offered when this process queues a delivery: its own sender need not wait for the next poll. */
  const wake = yield* Queue.sliding<void>(1)

  const post = (target: URL, headers: Record<string, string>, body: Buffer) =>
    Effect.tryPromise({
      try: async (signal) => {
        const response = await agent.request({
          origin: target.origin,
          path: `${target.pathname}${target.search}`,
          method: "POST",
          headers,
          body,
          signal,
        })
        await response.body.dump()
        return response.statusCode
      },
      catch: (error) => {
        const refusal = findScrapeError(error)
        return refusal?.reason === "BlockedAddress"
          ? new AttemptFailed({ message: refusal.message, retryable: false })
          : new AttemptFailed({ message: describeError(error), retryable: true })
      },
    }).pipe(
      Effect.timeoutFail({
        duration: timeout,
        onTimeout: () =>
          new AttemptFailed({ message: `no answer within ${Duration.toMillis(timeout)} ms`, retryable: true }),
      }),
      Effect.flatMap((status) =>
        status >= 200 && status < 300
          ? Effect.void
          : Effect.fail(new AttemptFailed({ message: `the receiver answered ${status}`, retryable: true })),
      ),
    )

  /** One attempt: the guard's check of the target, then one POST. */
  const attempt = (queued: Queued) =>
    Effect.gen(function* () {
      const { spec } = queued.delivery
      const target = yield* guard
        .checkUrl(spec.url)
        .pipe(Effect.mapError((error) => new AttemptFailed({ message: error.message, retryable: false })))
      const body = yield* encodeBody(queued)
      yield* post(target, requestHeaders(spec, body, secret), body)
    })

  /** Sends a leased delivery once; then it is finished, or given back for a later attempt, or given up. */
  const deliver = Effect.fn("Webhooks.deliver")(
    function* (leased: Delivery) {
      const queued = leased.payload
      if (!isQueued(queued)) {
        yield* store.finishDelivery(leased)
        return yield* Effect.logWarning(`Webhook delivery ${leased.id} dropped: its stored form does not decode`)
      }
      const failure = yield* Effect.flip(attempt(queued)).pipe(Effect.option)
      const attempts = leased.attempts + 1
      if (Option.isNone(failure)) return yield* store.finishDelivery(leased)
      const { message, retryable } = failure.value
      if (retryable && attempts < maxAttempts) {
        const jitter = 0.8 + Math.random() * 0.4
        // Whole milliseconds: stores keep times as integers (Postgres refuses a fraction in a bigint).
        return yield* store.retryDelivery(leased, Date.now() + Math.round(backoffMs * 2 ** leased.attempts * jitter))
      }
      yield* store.finishDelivery(leased)
      yield* Effect.logWarning(`Webhook not delivered: ${message} (gave up after ${attempts} attempt(s))`).pipe(
        Effect.annotateLogs({
          webhookUrl: queued.delivery.spec.url,
          webhookType: eventType(queued.delivery),
          jobId: queued.delivery.jobId,
          webhookId: queued.webhookId,
        }),
      )
    },
    (effect) =>
      effect.pipe(
        Effect.catchAll((error) => Effect.logWarning("Webhook delivery: the outbox failed", error)),
        Effect.catchAllDefect((defect) => Effect.logWarning("Webhook not delivered", Cause.die(defect))),
      ),
  )

  let flush = (_until: number): Effect.Effect<boolean> => Effect.succeed(true)

  if (options.deliver ?? true) {
    const worker = WorkerIdentity.newHolder()
    // A lease outlives the attempt it covers, so no other process sends the same delivery meanwhile.
    const leaseMs = Duration.toMillis(timeout) + 5000
    const sending = yield* FiberSet.make()
    let inFlight = 0
    /** Whether the last look at the outbox found nothing due: with nothing in flight, the sender is idle. */
    let drained = false
    /** Looks at the outbox begun and ended: the sender makes one at a time. */
    let looksBegun = 0
    let looksEnded = 0

    const sendDue = Effect.gen(function* () {
      const free = concurrency - inFlight
      if (free <= 0) return false
      looksBegun++
      const leased = yield* store
        .leaseDeliveries({ worker, now: Date.now(), leaseMs, max: free })
        .pipe(Effect.ensuring(Effect.sync(() => looksEnded++)))
      drained = leased.length === 0
      for (const delivery of leased) {
        inFlight++
        yield* FiberSet.run(
          sending,
          deliver(delivery).pipe(
            Effect.ensuring(
              Effect.suspend(() => {
                inFlight--
                return Queue.offer(wake, undefined)
              }),
            ),
          ),
        )
      }
      return leased.length === free
    }).pipe(Effect.catchAll((error) => Effect.as(Effect.logWarning("Leasing webhook deliveries failed", error), false)))

    yield* Effect.forkScoped(
      Effect.forever(
        Effect.flatMap(sendDue, (more) =>
          more ? Effect.void : Queue.take(wake).pipe(Effect.timeout(Duration.millis(pollMs)), Effect.ignore),
        ),
      ),
    )

    flush = (until) =>
      Effect.gen(function* () {
        // Idle by a look begun after this call: other processes may have queued deliveries since the last one.
        const after = looksBegun
        yield* Queue.offer(wake, undefined)
        const looked = () => looksEnded > after
        const idle = () => looked() && inFlight === 0 && drained
        // Past `until`, still the one look (unless every sender is busy), so that an empty outbox answers true.
        const over = () => Date.now() >= until && (looked() || inFlight >= concurrency)
        yield* Effect.repeat(Effect.sync(idle), {
          schedule: Schedule.spaced(Duration.millis(20)),
          until: (done) => done || over(),
        })
        return idle()
      })

    // Added after the sender, so it runs before the sender is interrupted: due deliveries get a bounded last chance.
    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => flush(Date.now() + Duration.toMillis(shutdownTimeout))).pipe(
        // Finalizers run uninterruptibly; the wait polls, so it ends by itself.
        Effect.flatMap((idle) =>
          idle
            ? Effect.void
            : Effect.logWarning(
                `Shutting down: ${inFlight} webhook delivery(ies) unfinished; a durable store sends them once their lease runs out`,
              ),
        ),
      ),
    )
  }

  const wakeSender = Effect.asVoid(Queue.offer(wake, undefined))

  const send = (delivery: WebhookDelivery): Effect.Effect<void> =>
    Effect.suspend(() => {
      const entry = outboxEntry(delivery)
      if (entry === undefined) return Effect.void
      return store.enqueueDelivery(entry).pipe(
        Effect.flatMap((accepted) =>
          accepted
            ? wakeSender
            : Effect.logWarning(`Webhook ${eventType(delivery)} for job ${delivery.jobId} dropped: the outbox is full`),
        ),
        Effect.catchAll((error) =>
          Effect.logWarning(
            `Webhook ${eventType(delivery)} for job ${delivery.jobId} dropped: the outbox failed`,
            error,
          ),
        ),
      )
    }).pipe(Effect.asVoid)

  return Webhooks.of({ send, wake: wakeSender, flush: (until) => flush(until) })
})

/** The service with explicit options (missing ones take the defaults). */
export const layer = (options: WebhooksOptions = {}): Layer.Layer<Webhooks, never, UrlGuard | JobStore> =>
  Layer.scoped(Webhooks, make(options))

/**
 * The service from the environment: `WEBDATA_WEBHOOK_SECRET` signs the payloads when set (an empty value is unset).
 * Whether this process sends deliveries: `deliver` when given, else unless `WEBDATA_WORKER=0` (a process without a
 * worker only queues them, for the workers to send).
 */
export const layerConfig = (deliver?: boolean): Layer.Layer<Webhooks, ConfigError.ConfigError, UrlGuard | JobStore> =>
  Layer.unwrapEffect(
    Effect.map(
      Config.all([
        Config.option(Config.redacted("WEBDATA_WEBHOOK_SECRET")),
        deliver !== undefined
          ? Config.succeed(deliver)
          : Config.boolean("WEBDATA_WORKER").pipe(Config.withDefault(true)),
      ]),
      ([secret, sends]) => layer({ secret: Option.getOrUndefined(Option.map(secret, Redacted.value)), deliver: sends }),
    ),
  )

/**
 * A webhook whose URL this process's guard refuses (a private or loopback address without the opt-in) is a 400 when
 * the job is submitted, not a delivery that fails later in a log. A host that does not resolve now is accepted:
 * delivery checks again.
 */
export const checkWebhookTarget = (
  guard: UrlGuardService,
  webhook: WebhookSpec | undefined,
): Effect.Effect<void, RequestError> =>
  webhook === undefined
    ? Effect.void
    : guard.checkTarget(webhook.url).pipe(
        Effect.asVoid,
        Effect.catchAll((error) =>
          error.reason === "BlockedAddress"
            ? Effect.fail(
                new RequestError({
                  reason: "Validation",
                  code: "BAD_REQUEST",
                  message: `The webhook URL is refused: ${error.message}. ${PRIVATE_TARGETS_OPT_IN}`,
                }),
              )
            : Effect.void,
        ),
      )
