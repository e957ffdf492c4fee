/**
 * A webhook receiver on 127.0.0.1 that keeps every event it accepts (parsed JSON, with its raw body and headers), in
 * order. `statusOf` can refuse deliveries (a receiver that is down answers 5xx): refused ones are not kept in `events`.
 */
import type { IncomingHttpHeaders } from "node:http"
import { createServer } from "node:http"
import { listenOnLoopback } from "./loopback.js"

export interface ReceivedEvent {
  readonly type: string
  readonly success: boolean
  readonly id: string
  readonly webhookId: string
  // biome-ignore lint/suspicious/noExplicitAny: an event's data as sent, for tests to inspect freely.
  readonly data: ReadonlyArray<any>
  readonly error?: string
  readonly metadata?: Record<string, unknown>
}

export interface ReceivedRequest {
  readonly raw: Buffer
  readonly headers: IncomingHttpHeaders
  readonly status: number
}

export interface WebhookReceiver {
  readonly url: string
  readonly events: ReadonlyArray<ReceivedEvent>
  /** Every request, accepted or refused. */
  readonly requests: ReadonlyArray<ReceivedRequest>
  /** Resolves once `count` events arrived (rejects after `timeoutMs`). */
  readonly waitFor: (count: number, timeoutMs?: number) => Promise<ReadonlyArray<ReceivedEvent>>
  readonly close: () => Promise<void>
}

export const startWebhookReceiver = async (
  statusOf: (index: number) => number = () => 200,
): Promise<WebhookReceiver> => {
  const events: Array<ReceivedEvent> = []
  const requests: Array<ReceivedRequest> = []
  const listening = await listenOnLoopback(
    createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        const raw = Buffer.concat(chunks)
        const status = statusOf(requests.length)
        requests.push({ raw, headers: request.headers, status })
        if (status < 300) events.push(JSON.parse(raw.toString("utf8")) as ReceivedEvent)
        response.writeHead(status).end()
      })
    }),
  )
  return {
    url: listening.url,
    events,
    requests,
    waitFor: async (count, timeoutMs = 10_000) => {
      for (const deadline = Date.now() + timeoutMs; events.length < count; ) {
        if (Date.now() > deadline) throw new Error(`${events.length} of ${count} webhook events arrived in time`)
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      return events
    },
    close: listening.close,
  }
}
