/**
 * What `POST /v2/scrape` answers for a request body: the API's route and the hot route (`HotScrape.ts`) share it.
 */
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { decodeStrict } from "../Domain/Decode.js"
import { ScrapeRequest } from "../Domain/ScrapeOptions.js"
import { JobControl } from "../Jobs/JobControl.js"
import { Scrape } from "../Scrape.js"
import { CREDITS_PER_PAGE } from "../Tenants/Costing.js"
import { Usage } from "../Tenants/Usage.js"
import { Caller } from "./Api.js"

const decodeScrapeRequest = decodeStrict(ScrapeRequest)

/**
 * The scrape of a decoded body for the caller, answered as JSON: charged, and kept for `GET /v2/scrape/{id}` unless
 * zero retention. The document is serialised once, for the answer and the kept copy (~0.2 ms for a 100 KB page).
 */
export const makeScrapeAnswer = Effect.gen(function* () {
  const scraper = yield* Scrape
  const control = yield* JobControl
  const usage = yield* Usage
  return (body: unknown) =>
    Effect.gen(function* () {
      const input = yield* decodeScrapeRequest(body)
      const owner = (yield* Caller).owner
      const data = yield* scraper.scrape({ ...input, owner })
      yield* usage.charge(owner, { credits: CREDITS_PER_PAGE })
      const json = JSON.stringify(data)
      if (!input.zeroDataRetention) yield* control.keepScrape(data, owner, json)
      return HttpServerResponse.text(`{"success":true,"data":${json}}`, { contentType: "application/json" })
    })
})
