/** A webhook receiver on 127.0.0.1 that keeps every event it is sent (parsed JSON), in order. */
import { createServer } from "node:http"
import { listenOnLoopback } from "./loopback.js"

export interface ReceivedEvent {
  readonly type: string
  readonly success: boolean
  // biome-ignore lint/suspicious/noExplicitAny: an event's data as sent, for tests to inspect freely.
  readonly data: ReadonlyArray<any>
  readonly error?: string
}

export interface WebhookReceiver {
  readonly url: string
  readonly events: ReadonlyArray<ReceivedEvent>
  /** Resolves once `count` events arrived (rejects after `timeoutMs`). */
  readonly waitFor: (count: number, timeoutMs?: number) => Promise<ReadonlyArray<ReceivedEvent>>
  readonly close: () => Promise<void>
}

export const startWebhookReceiver = async (): Promise<WebhookReceiver> => {
  const events: Array<ReceivedEvent> = []
  const listening = await listenOnLoopback(
    createServer((request, response) => {
      let body = ""
      request.on("data", (chunk) => {
        body += chunk
      })
      request.on("end", () => {
        events.push(JSON.parse(body) as ReceivedEvent)
        response.end()
      })
    }),
  )
  return {
    url: listening.url,
    events,
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
