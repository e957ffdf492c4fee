/**
 * The answers of a hot route (`WebHandler.handlePlain`) and of the API's generic path (`WebHandler.handler`) to the same
 * request, in one shape to compare: status, headers sorted, body as text.
 */
import { expect } from "vitest"
import type { PlainRequest } from "../../src/Http/Plain.js"
import type { WebHandler } from "../../src/Http/WebHandler.js"

export interface ComparableAnswer {
  readonly status: number
  readonly headers: ReadonlyArray<[string, string]>
  readonly body: string
}

const decoder = new TextDecoder()

/**
 * Both answers to `plain` and `request`, without the headers `ignored` names (`x-request-id` is each answer's own
 * unless the caller chose it).
 */
export const bothAnswers = async (
  web: WebHandler,
  plainRequest: PlainRequest,
  request: Request,
  ignored: ReadonlyArray<string> = [],
) => {
  const answer = web.handlePlain(plainRequest)
  if (answer === undefined) throw new Error(`not a hot route: ${plainRequest.method} ${plainRequest.url}`)
  const plain = await answer
  const response = await web.handler(request)
  const chosenId = plainRequest.headers["x-request-id"] !== undefined
  const comparable = (entries: Iterable<[string, string]>): Array<[string, string]> =>
    [...entries].filter(([name]) => (name !== "x-request-id" || chosenId) && !ignored.includes(name)).sort()
  return {
    plain: {
      status: plain.status,
      headers: comparable(Object.entries(plain.headers)),
      body: typeof plain.body === "string" ? plain.body : decoder.decode(plain.body),
    } satisfies ComparableAnswer,
    web: {
      status: response.status,
      headers: comparable(response.headers),
      body: await response.text(),
    } satisfies ComparableAnswer,
    plainRequestId: plain.headers["x-request-id"],
  }
}

/** Two answers past a limit: the same 429 with its code and a `Retry-After` (messages count requests, so may differ). */
export const expectSameRateLimit = (plain: ComparableAnswer, generic: ComparableAnswer): void => {
  const code = (body: string) => JSON.parse(body).code
  expect({ ...plain, body: code(plain.body) }).toEqual({ ...generic, body: code(generic.body) })
  expect([plain.status, code(plain.body)]).toEqual([429, "RATE_LIMIT_EXCEEDED"])
  expect(plain.headers.find(([name]) => name === "retry-after")?.[1]).toMatch(/^\d+$/)
}
