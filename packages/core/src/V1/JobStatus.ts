/** A crawl's or batch scrape's status page in v1's shape: v2's head without its timing fields, v1 documents. */
import type { Document } from "../Domain/Document.js"
import { toV1Document } from "./ScrapeOptions.js"

/** The head of a v2 status answer (`statusHead` of the job routes). */
export interface V2StatusHead {
  readonly success: true
  readonly status: "scraping" | "completed" | "failed" | "cancelled"
  readonly completed: number
  readonly total: number
  readonly creditsUsed: number
  readonly expiresAt: string
  readonly next?: string
}

/** `next` must already point at the v1 route. */
export const toV1Status = (head: V2StatusHead, documents: ReadonlyArray<Document>) => ({
  success: head.success,
  status: head.status,
  completed: head.completed,
  total: head.total,
  creditsUsed: head.creditsUsed,
  expiresAt: head.expiresAt,
  ...(head.next !== undefined ? { next: head.next } : {}),
  // The job keeps v2 options, which do not say whether v1 asked for `extract` or `json`.
  data: documents.map((document) => toV1Document(document, "both")),
})
