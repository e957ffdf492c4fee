/** The answers this adapter gives itself, in the API's JSON error envelope (`{ success: false, code, error }`). */
import { randomUUID } from "node:crypto"

const envelope = (status: number, code: string, error: string): Response =>
  Response.json({ success: false, code, error }, { status })

export const badRequest = (reason: string): Response => envelope(400, "BAD_REQUEST", `Bad request: ${reason}`)

/** The handler threw: logged with an id the caller can quote, like the API's own 500s; the error is never sent. */
export const internalError = (error: unknown): Response => {
  const id = randomUUID()
  console.error(`Unhandled error ${id}`, error)
  return envelope(500, "UNKNOWN_ERROR", `An error occurred. Please check your logs for more details. Error ID: ${id}`)
}

export const tooLarge = (bytes: number, limit: number): Response =>
  envelope(
    502,
    "RESPONSE_TOO_LARGE",
    `The response is ${bytes} bytes, over Lambda's limit of ${limit} bytes for buffered responses; ` +
      "page with limit/skip or use the streaming handler",
  )
