/**
 * An SQS queue on 127.0.0.1 that speaks the JSON protocol's SendMessageBatch and GetQueueAttributes (the depth: the
 * messages sent, due and not received): it checks each request's SigV4
 * signature as SQS would, keeps the messages, and turns them into the SQS events Lambda's event source mapping sends.
 */
import { randomUUID } from "node:crypto"
import { createServer } from "node:http"
import { listenOnLoopback } from "../../../core/test/support/loopback.js"
import { hasValidSignature } from "../../../core/test/support/sigV4.js"

export const FAKE_CREDENTIALS = { accessKeyId: "AKIDTEST", secretAccessKey: "test-secret" }

export interface SentMessage {
  readonly messageId: string
  readonly body: string
  readonly delaySeconds: number
  readonly sentAt: number
}

export interface FakeSqs {
  /** `http://127.0.0.1:<port>/000000000000/webdata-work` */
  readonly queueUrl: string
  readonly sent: Array<SentMessage>
  /** Requests refused for a bad signature. */
  readonly unsigned: () => number
  /** Answers every request with a 500 while true. */
  failing: boolean
  /** The messages sent since the last call, delayed or not, as one SQS event; they count as received. */
  readonly takeEvent: () => { Records: Array<{ messageId: string; body: string }> }
  /**
   * Up to `max` messages whose delay has passed, not received before, as an event source mapping receives them;
   * undefined when none is due.
   */
  readonly receive: (max: number) => { Records: Array<{ messageId: string; body: string }> } | undefined
  readonly close: () => Promise<void>
}

export const startFakeSqs = async (): Promise<FakeSqs> => {
  const sent: Array<SentMessage> = []
  let taken = 0
  const received = new Set<string>()
  /** Messages a consumer could receive now. */
  const due = () => {
    const now = Date.now()
    return sent.filter(
      (message) => !received.has(message.messageId) && message.sentAt + message.delaySeconds * 1000 <= now,
    )
  }
  let unsigned = 0
  const fake = {
    failing: false,
  }
  const listening = await listenOnLoopback(
    createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        const body = Buffer.concat(chunks)
        const answer = (status: number, value: unknown) => {
          response.writeHead(status, { "content-type": "application/x-amz-json-1.0" })
          response.end(JSON.stringify(value))
        }
        if (
          !hasValidSignature(
            { method: request.method ?? "", url: request.url ?? "", headers: request.headers, body },
            FAKE_CREDENTIALS.secretAccessKey,
          )
        ) {
          unsigned++
          return answer(403, { __type: "com.amazon.coral.service#InvalidSignatureException", message: "bad signature" })
        }
        if (fake.failing) return answer(500, { __type: "InternalError", message: "failing on purpose" })
        if (request.headers["x-amz-target"] === "AmazonSQS.GetQueueAttributes")
          return answer(200, { Attributes: { ApproximateNumberOfMessages: String(due().length) } })
        if (request.headers["x-amz-target"] !== "AmazonSQS.SendMessageBatch")
          return answer(400, { __type: "InvalidAction", message: String(request.headers["x-amz-target"]) })
        const { Entries } = JSON.parse(body.toString()) as {
          Entries: Array<{ Id: string; MessageBody: string; DelaySeconds?: number }>
        }
        const successful = Entries.map((entry) => {
          const messageId = randomUUID()
          sent.push({ messageId, body: entry.MessageBody, delaySeconds: entry.DelaySeconds ?? 0, sentAt: Date.now() })
          return { Id: entry.Id, MessageId: messageId }
        })
        answer(200, { Successful: successful, Failed: [] })
      })
    }),
  )
  return Object.assign(fake, {
    queueUrl: `${listening.url}/000000000000/webdata-work`,
    sent,
    unsigned: () => unsigned,
    takeEvent: () => {
      const records = sent.slice(taken).map(({ messageId, body }) => ({ messageId, body }))
      for (const record of records) received.add(record.messageId)
      taken = sent.length
      return { Records: records }
    },
    receive: (max: number) => {
      const batch = due().slice(0, max)
      for (const message of batch) received.add(message.messageId)
      return batch.length === 0 ? undefined : { Records: batch.map(({ messageId, body }) => ({ messageId, body })) }
    },
    close: listening.close,
  })
}
