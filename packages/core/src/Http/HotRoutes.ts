/**
 * The requests a host may hand over as plain data, answered without the API's generic request path: the status polls,
 * `GET /v2/crawl/{id}` and `GET /v2/batch/scrape/{id}` (here), and `POST /v2/scrape` (`HotScrape.ts`). Every client of
 * a job polls it, so polls are most of a busy server's requests; a scrape is the most frequent request with a body.
 * HttpApi's router and a web `Request`/`Response` pair cost ~0.5 ms of CPU per request on a small machine, several
 * times the status read itself (bench/README.md, "Server under load"); here a host hands the request over as plain
 * data and gets the answer back as plain data.
 *
 * The answer is the API's: the same key check and limits (`Auth.makeAuthorize`), the same status body, the same
 * envelope for errors, the same request id, metrics and log line (`Observe.observed`), the same CORS headers. A
 * request with anything unusual (another query parameter, a malformed number, a path that is not a UUID) is left to
 * the API, which answers it as it answers every request.
 *
 * Most polls do not even need Effect: an open server's or a configured key's poll with no status limit, of its own
 * job, on a store that reads synchronously (`JobStore.readNow`), is answered in plain code (`answerNow`); the effect's
 * fiber and services cost several times the two reads (0.21–0.46 ms against ~0.074 ms per poll, measured). Every
 * other poll (a key the store must be asked about, a limit to count, a refusal, a 404, zero data retention, a store
 * that must be waited for) runs the effect.
 */
import { Effect } from "effect"
import { JobControl, type StatusTexts } from "../Jobs/JobControl.js"
import type { JobKind } from "../Jobs/JobStore.js"
import type { Scrape } from "../Scrape.js"
import type { KeyRing } from "../Tenants/KeyRing.js"
import type { Quotas } from "../Tenants/Quotas.js"
import type { Usage } from "../Tenants/Usage.js"
import { Caller } from "./Api.js"
import * as Auth from "./Auth.js"
import { ClientAddress } from "./ClientAddress.js"
import { failureResponse } from "./ErrorResponse.js"
import * as HotScrape from "./HotScrape.js"
import { jobStatus, statusAnswer, statusRequestOf } from "./JobHandlers.js"
import { makeObserveNow, type ObservedRequest, observed, REQUEST_ID_HEADER, requestIdOf } from "./Observe.js"
import { bearerToken, corsHeaders, type PlainRequest, type PlainResponse, pathAndQuery, toPlain } from "./Plain.js"
import { publicBaseOf } from "./PublicUrl.js"
import { templateOf } from "./Routes.js"
import type { ServerConfig } from "./ServerConfig.js"

/** The jobs whose status polls are hot routes. */
type PolledKind = Extract<JobKind, "crawl" | "batch">

/** A status poll: the kind of job, its id, and the page asked for. */
interface StatusPoll {
  readonly kind: PolledKind
  readonly id: string
  readonly skip: number | undefined
  readonly limit: number | undefined
}

const STATUS_PATH =
  /^\/v2\/(crawl|batch\/scrape)\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?:\?(.*))?$/i
const PAGE_PARAMETER = /^(skip|limit)=(\d{1,9})$/

/** The status poll `request` is, when it is a plain one (else the API answers it). */
export const statusPoll = (request: PlainRequest): StatusPoll | undefined => {
  if (request.method !== "GET") return undefined
  const match = STATUS_PATH.exec(pathAndQuery(request.url))
  if (match === null) return undefined
  const page: { skip?: number; limit?: number } = {}
  for (const parameter of match[3] === undefined || match[3] === "" ? [] : match[3].split("&")) {
    const found = PAGE_PARAMETER.exec(parameter)
    if (found === null || page[found[1] as "skip" | "limit"] !== undefined) return undefined
    page[found[1] as "skip" | "limit"] = Number(found[2])
  }
  return { kind: match[1] === "crawl" ? "crawl" : "batch", id: match[2] as string, skip: page.skip, limit: page.limit }
}

const utf8 = new TextEncoder()

/**
 * Answers a hot route's request; undefined when the request is not one (the API answers it). A poll's answer is at
 * hand when it needs no store but reads that do not wait and no limit to count (`answerNow`); a scrape whose caller
 * is known without the store answers as a promise (`HotScrape.ts`); else an effect.
 */
export type AnswerHot = (
  request: PlainRequest,
  clientAddress: string | undefined,
) => PlainResponse | Promise<PlainResponse> | Effect.Effect<PlainResponse, never, JobControl> | undefined

/** The answerer of the hot routes, over the services of the API. */
export const make = (options: {
  readonly exposedHeaders: ReadonlyArray<string>
}): Effect.Effect<AnswerHot, never, JobControl | KeyRing | Quotas | Scrape | ServerConfig | Usage> =>
  Effect.gen(function* () {
    const { authorize, authorizeNow } = yield* Auth.makeAuthorize
    const control = yield* JobControl
    const observeNow = yield* makeObserveNow
    const cors = corsHeaders(options.exposedHeaders)
    const answerScrape = yield* HotScrape.make({ cors, observeNow })
    // Every poll of a kind has the same route template: looked up once.
    const anyId = "00000000-0000-0000-0000-000000000000"
    const routes: Record<PolledKind, string> = {
      crawl: templateOf(`/v2/crawl/${anyId}`) ?? "unmatched",
      batch: templateOf(`/v2/batch/scrape/${anyId}`) ?? "unmatched",
    }

    /** A poll answered without Effect, as the effect below answers it; undefined when it takes more (see above). */
    const answerNow = (poll: StatusPoll, asked: ObservedRequest, token: string, base: () => string) => {
      const started = performance.now()
      const caller = authorizeNow(asked, token)
      if (caller === undefined) return undefined
      let page: StatusTexts | undefined
      try {
        page = control.statusNow(poll.kind, poll.id, caller.owner, statusRequestOf(poll.skip, poll.limit))
      } catch {
        // The effect reads again and answers the failure as the API does.
        return undefined
      }
      if (page === undefined) return undefined
      const body = utf8.encode(statusAnswer(poll.kind, poll.id, page, base, poll.limit))
      const requestId = requestIdOf(asked.requestId)
      const route = routes[poll.kind]
      const answered = { requestId, route, status: 200, seconds: (performance.now() - started) / 1000, fields: {} }
      observeNow(asked, answered)
      const response: PlainResponse = {
        status: answered.status,
        headers: {
          "content-type": "application/json",
          "content-length": String(body.length),
          [REQUEST_ID_HEADER]: requestId,
          ...cors,
        },
        body,
      }
      return response
    }

    return (request, clientAddress) => {
      if (HotScrape.isHotScrape(request)) return answerScrape(request, clientAddress)
      const poll = statusPoll(request)
      if (poll === undefined) return undefined
      const { headers } = request
      // The request as the key check, the metrics and the log line read it (a poll is a GET).
      const asked: ObservedRequest = {
        method: request.method,
        pathname: pathAndQuery(request.url).replace(/\?.*$/, ""),
        requestId: headers[REQUEST_ID_HEADER],
        authorization: headers.authorization,
      }
      const token = bearerToken(headers.authorization)
      const base = () => publicBaseOf(headers, request.url)
      const now = answerNow(poll, asked, token, base)
      if (now !== undefined) return now
      const respond = Effect.flatMap(authorize(asked, token), (caller) =>
        Effect.provideService(jobStatus(poll.kind, poll.id, base, poll.skip, poll.limit), Caller, caller),
      ).pipe(Effect.catchAllCause(failureResponse))
      return observed(
        asked,
        clientAddress === undefined ? respond : Effect.provideService(respond, ClientAddress, clientAddress),
      ).pipe(Effect.map((response) => toPlain(response, cors)))
    }
  })
