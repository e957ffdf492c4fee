/**
 * Webhook delivery for crawl, batch-scrape, extract and agent jobs, in Firecrawl's wire format. `send` only enqueues, so a slow or
 * dead receiver never slows a crawl; a small pool of workers POSTs the payloads with retries and backoff. The queue is
 * bounded (a full queue drops with a warning instead of growing until OOM), one job's deliveries keep their order
 * (its `completed` never overtakes its `page`s) while different jobs are delivered concurrently, and every connection
 * goes through the URL guard like a scrape does. Redirects are not followed: a webhook's target is the URL given.
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
import type { Job } from "./JobStore.js"

export type WebhookJobKind = "crawl" | "batch" | "extract" | "agent"

/** The event type's prefix of each kind of job (`crawl.page`, `batch_scrape.completed`, `extract.failed`, ...). */
const TYPE_PREFIX: Record<WebhookJobKind, string> = {
  crawl: "crawl",
  batch: "batch_scrape",
  extract: "extract",
  agent: "agent",
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
  }
>() {}

/**
 * Announces an event of `job` to its webhook, if it has one (the job record keeps the request's decoded webhook).
 * Like `send`, it only enqueues.
 */
export const announce = (
  webhooks: Webhooks["Type"],
  job: Job,
  event: WebhookEvent,
  data: ReadonlyArray<unknown> = [],
  error?: string,
): Effect.Effect<void> => {
  const spec = job.webhook as WebhookSpec | undefined
  if (spec === undefined) return Effect.void
  return webhooks.send({
    spec,
    jobKind: job.kind === "crawl" || job.kind === "extract" || job.kind === "agent" ? job.kind : "batch",
    jobId: job.id,
    event,
    // Firecrawl's only unsuccessful event is the page that failed.
    success: error === undefined,
    data,
    ...(error !== undefined ? { error } : {}),
  })
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
  /** Deliveries queued or in flight; beyond it new ones are dropped with a warning. Default 10 000. */
  readonly capacity?: number | undefined
  /** Jobs delivered at the same time. Default 4. */
  readonly concurrency?: number | undefined
  /** On release, how long queued deliveries may still be sent before the rest is dropped. Default 5000 ms. */
  readonly shutdownTimeoutMs?: number | undefined
}

/** Why one attempt failed; `retryable` is false for what another try cannot change (a refused target). */
class AttemptFailed extends Data.TaggedError("AttemptFailed")<{
  readonly message: string
  readonly retryable: boolean
}> {}

interface Queued {
  readonly delivery: WebhookDelivery
  /** Fixed at enqueue, so retries carry the same id and receivers can deduplicate. */
  readonly webhookId: string
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

/** Builds the service; its workers and connections live as long as the enclosing scope. */
export const make = Effect.fn("Webhooks.make")(function* (options: WebhooksOptions = {}) {
  const secret = options.secret !== undefined && options.secret !== "" ? options.secret : undefined
  const maxAttempts = Math.max(1, options.maxAttempts ?? 4)
  const backoff = Duration.millis(options.backoffMs ?? 1000)
  const timeout = Duration.millis(options.timeoutMs ?? 10_000)
  const capacity = Math.max(1, options.capacity ?? 10_000)
  const concurrency = Math.max(1, options.concurrency ?? 4)
  const shutdownTimeout = Duration.millis(options.shutdownTimeoutMs ?? 5000)

  const guard = yield* UrlGuard
  const agent = yield* guardedAgent(guard, { rejectUnauthorized: true })

  // Queue state is plain data mutated only inside synchronous steps, which JavaScript never interleaves. A job key is
  // in `jobs` while it has deliveries waiting or in flight, and then it is either in `ready` or held by one worker:
  // that single owner is what keeps a job's deliveries in order.
  const jobs = new Map<string, Array<Queued>>()
  const ready = yield* Queue.unbounded<string>()
  let pending = 0
  let closed = false

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

  const deliver = Effect.fn("Webhooks.deliver")(
    function* (queued: Queued) {
      const { spec } = queued.delivery
      const target = yield* guard
        .checkUrl(spec.url)
        .pipe(Effect.mapError((error) => new AttemptFailed({ message: error.message, retryable: false })))
      const body = yield* encodeBody(queued)
      const headers = requestHeaders(spec, body, secret)
      let attempts = 0
      yield* Effect.suspend(() => {
        attempts++
        return post(target, headers, body)
      }).pipe(
        Effect.retry({
          schedule: Schedule.exponential(backoff).pipe(Schedule.jittered),
          times: maxAttempts - 1,
          while: (error) => error.retryable,
        }),
        Effect.mapError(
          (error) =>
            new AttemptFailed({ message: `${error.message} (gave up after ${attempts} attempt(s))`, retryable: false }),
        ),
      )
    },
    (effect, queued) =>
      effect.pipe(
        Effect.catchAll((error) => Effect.logWarning(`Webhook not delivered: ${error.message}`)),
        Effect.catchAllDefect((defect) => Effect.logWarning("Webhook not delivered", Cause.die(defect))),
        Effect.annotateLogs({
          webhookUrl: queued.delivery.spec.url,
          webhookType: eventType(queued.delivery),
          jobId: queued.delivery.jobId,
          webhookId: queued.webhookId,
        }),
      ),
  )

  /** Takes one ready job, delivers its oldest event, and puts the job back at the end if more are waiting. */
  const work = Effect.gen(function* () {
    const key = yield* Queue.take(ready)
    const waiting = jobs.get(key)
    const next = waiting?.[0]
    if (waiting === undefined || next === undefined) return
    yield* deliver(next)
    waiting.shift()
    pending--
    if (waiting.length > 0) yield* Queue.offer(ready, key)
    else jobs.delete(key)
  })

  yield* Effect.forkScoped(Effect.forever(work)).pipe(Effect.replicateEffect(concurrency))

  // Added after the workers, so it runs before they are interrupted: queued deliveries get a bounded last chance.
  yield* Effect.addFinalizer(() =>
    Effect.suspend(() => {
      closed = true
      return Effect.repeat(
        Effect.sync(() => pending),
        { schedule: Schedule.spaced(Duration.millis(20)), until: (count) => count === 0 },
      )
    }).pipe(
      // Finalizers run uninterruptibly, and a timeout cannot stop an uninterruptible wait.
      Effect.interruptible,
      Effect.timeout(shutdownTimeout),
      Effect.catchAll(() => Effect.logWarning(`Shutting down: ${pending} webhook delivery(ies) dropped`)),
    ),
  )

  const send = (delivery: WebhookDelivery): Effect.Effect<void> =>
    Effect.suspend(() => {
      if (!delivery.spec.events.includes(delivery.event)) return Effect.void
      const dropped = closed ? "the webhook service is shutting down" : pending >= capacity ? "the queue is full" : ""
      if (dropped !== "")
        return Effect.logWarning(`Webhook ${eventType(delivery)} for job ${delivery.jobId} dropped: ${dropped}`)
      pending++
      const queued: Queued = { delivery, webhookId: uuidv7() }
      const key = `${delivery.jobKind}:${delivery.jobId}`
      const waiting = jobs.get(key)
      if (waiting !== undefined) {
        waiting.push(queued)
        return Effect.void
      }
      jobs.set(key, [queued])
      return Queue.offer(ready, key)
    }).pipe(Effect.asVoid)

  return Webhooks.of({ send })
})

/** The service with explicit options (missing ones take the defaults). */
export const layer = (options: WebhooksOptions = {}): Layer.Layer<Webhooks, never, UrlGuard> =>
  Layer.scoped(Webhooks, make(options))

/** The service from the environment: `WEBDATA_WEBHOOK_SECRET` signs the payloads when set (an empty value is unset). */
export const layerConfig: Layer.Layer<Webhooks, ConfigError.ConfigError, UrlGuard> = Layer.unwrapEffect(
  Effect.map(Config.option(Config.redacted("WEBDATA_WEBHOOK_SECRET")), (secret) =>
    layer({ secret: Option.getOrUndefined(Option.map(secret, Redacted.value)) }),
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
