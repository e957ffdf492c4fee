/**
 * Sending messages to an SQS queue: `SendMessageBatch` (and `GetQueueAttributes` for the queue's depth) over SQS's
 * JSON protocol, signed with SigV4 by `aws4fetch` (already the engine's S3 client). The AWS SDK would do the same in a
 * bundle many times the size of this package, and sending is all the workers need (Lambda's event source mapping
 * receives and deletes).
 */
import { AwsClient } from "aws4fetch"
import { Data, Effect } from "effect"

/** SQS refused a message, or could not be reached. */
export class SqsError extends Data.TaggedError("SqsError")<{ readonly message: string; readonly cause?: unknown }> {}

export interface SqsCredentials {
  readonly accessKeyId: string
  readonly secretAccessKey: string
  /** The session token of temporary credentials (a Lambda function's role). */
  readonly sessionToken?: string | undefined
}

export interface SqsQueueOptions {
  /** `https://sqs.<region>.amazonaws.com/<account>/<name>`; requests go to its origin. */
  readonly queueUrl: string
  /** Used when the queue URL's host name does not tell (an SQS-compatible endpoint). */
  readonly region?: string | undefined
  readonly credentials: SqsCredentials
}

export interface OutgoingMessage {
  readonly body: string
  /** Seconds SQS keeps the message from consumers, at most 900. */
  readonly delaySeconds?: number
}

export interface SqsQueue {
  readonly queueUrl: string
  /** Sends the messages (in batches of 10, SQS's limit); fails when any is refused after one retry. */
  readonly send: (messages: ReadonlyArray<OutgoingMessage>) => Effect.Effect<void, SqsError>
  /**
   * Messages ready to be received (`ApproximateNumberOfMessages`: not in flight, not delayed). Approximate, as SQS
   * says: for not sending wake-ups that enough waiting messages already give.
   */
  readonly waiting: Effect.Effect<number, SqsError>
}

/** SQS's longest delay. */
export const MAX_DELAY_SECONDS = 900

/** The delay of a message for work due at `at` (epoch ms): SQS's longest at most; that message finds it due later. */
export const secondsUntil = (at: number): number =>
  Math.max(0, Math.min(MAX_DELAY_SECONDS, Math.ceil((at - Date.now()) / 1000)))

const regionOf = (queueUrl: URL): string | undefined => /^sqs[.-]([a-z0-9-]+)\./.exec(queueUrl.hostname)?.[1]

interface AttributesAnswer {
  readonly Attributes?: Readonly<Record<string, string>>
}

interface BatchAnswer {
  readonly Failed?: ReadonlyArray<{ readonly Id: string; readonly Code?: string; readonly Message?: string }>
}

export const make = (options: SqsQueueOptions): SqsQueue => {
  const url = new URL(options.queueUrl)
  const region = regionOf(url) ?? options.region
  if (region === undefined)
    throw new Error(`Cannot tell the region of the queue ${options.queueUrl}: set AWS_REGION (or pass region)`)
  const { accessKeyId, secretAccessKey, sessionToken } = options.credentials
  const client = new AwsClient({
    accessKeyId,
    secretAccessKey,
    ...(sessionToken !== undefined ? { sessionToken } : {}),
    service: "sqs",
    region,
    retries: 2,
  })

  /** One action of SQS's JSON protocol on this queue; its answer's JSON. */
  const call = (action: string, payload: Record<string, unknown>) =>
    Effect.tryPromise({
      try: async () => {
        const response = await client.fetch(`${url.origin}/`, {
          method: "POST",
          headers: { "content-type": "application/x-amz-json-1.0", "x-amz-target": `AmazonSQS.${action}` },
          body: JSON.stringify({ QueueUrl: options.queueUrl, ...payload }),
        })
        const text = await response.text()
        if (!response.ok) throw new Error(`SQS answered ${response.status}: ${text.slice(0, 300)}`)
        return JSON.parse(text) as unknown
      },
      catch: (cause) =>
        new SqsError({ message: `${action} on ${options.queueUrl} failed: ${(cause as Error).message}`, cause }),
    })

  /** One SendMessageBatch; answers the entries SQS did not take. */
  const sendBatch = (entries: ReadonlyArray<{ readonly Id: string; readonly message: OutgoingMessage }>) =>
    call("SendMessageBatch", {
      Entries: entries.map(({ Id, message }) => ({
        Id,
        MessageBody: message.body,
        ...(message.delaySeconds !== undefined
          ? { DelaySeconds: Math.max(0, Math.min(MAX_DELAY_SECONDS, Math.ceil(message.delaySeconds))) }
          : {}),
      })),
    }).pipe(
      Effect.map((answer) => {
        const failed = (answer as BatchAnswer).Failed ?? []
        return entries.filter((entry) => failed.some((failure) => failure.Id === entry.Id))
      }),
    )

  const waiting = call("GetQueueAttributes", { AttributeNames: ["ApproximateNumberOfMessages"] }).pipe(
    Effect.map((answer) => Number((answer as AttributesAnswer).Attributes?.ApproximateNumberOfMessages ?? 0)),
  )

  const send = (messages: ReadonlyArray<OutgoingMessage>) =>
    Effect.forEach(
      Array.from({ length: Math.ceil(messages.length / 10) }, (_, i) =>
        messages.slice(i * 10, i * 10 + 10).map((message, j) => ({ Id: String(j), message })),
      ),
      (batch) =>
        sendBatch(batch).pipe(
          // Entries SQS refused alone (throttled, internal error) get one more try.
          Effect.flatMap((refused) => (refused.length === 0 ? Effect.succeed(refused) : sendBatch(refused))),
          Effect.flatMap((refused) =>
            refused.length === 0
              ? Effect.void
              : Effect.fail(
                  new SqsError({ message: `SQS refused ${refused.length} message(s) to ${options.queueUrl}` }),
                ),
          ),
        ),
      { discard: true },
    )

  return { queueUrl: options.queueUrl, send, waiting }
}

/**
 * The queue at `queueUrl` with the credentials of the environment: a Lambda function's role gives `AWS_ACCESS_KEY_ID`,
 * `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN` and `AWS_REGION`.
 */
export const fromEnvironment = (queueUrl: string, env: NodeJS.ProcessEnv = process.env): SqsQueue => {
  const accessKeyId = env.AWS_ACCESS_KEY_ID
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY
  if (accessKeyId === undefined || secretAccessKey === undefined)
    throw new Error("WEBDATA_WORK_QUEUE_URL is set but AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY are not")
  return make({
    queueUrl,
    region: env.AWS_REGION ?? env.AWS_DEFAULT_REGION,
    credentials: { accessKeyId, secretAccessKey, sessionToken: env.AWS_SESSION_TOKEN },
  })
}
