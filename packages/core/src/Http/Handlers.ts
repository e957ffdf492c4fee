/** Implementations of the contract's groups. Each handler decodes its body strictly and maps errors in one place. */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as OpenApi from "@effect/platform/OpenApi"
import { Effect, Layer } from "effect"
import { decodeMapRequest } from "../Domain/MapRequest.js"
import { decodeParseOptions } from "../Domain/ParseOptions.js"
import { decodeSearchRequest } from "../Domain/SearchRequest.js"
import { JobControl } from "../Jobs/JobControl.js"
import { newId } from "../Jobs/JobStore.js"
import { MapService } from "../Map.js"
import { Parse } from "../Parse.js"
import { Search } from "../Search.js"
import { CREDITS_PER_PAGE, CREDITS_PER_REQUEST } from "../Tenants/Costing.js"
import { Usage } from "../Tenants/Usage.js"
import { VERSION } from "../Version.js"
import { AgentHandlers } from "./AgentHandlers.js"
import { Caller, WebdataApi } from "./Api.js"
import { readJsonBody } from "./Body.js"
import { ExtractHandlers } from "./ExtractHandlers.js"
import { InteractHandlers } from "./InteractHandlers.js"
import { BatchHandlers, CrawlHandlers, checkJobId } from "./JobHandlers.js"
import { AdminHandlers, RegistrationHandlers } from "./KeyHandlers.js"
import { MonitorHandlers } from "./MonitorHandlers.js"
import { MetricsHandlers, ProbeHandlers } from "./ProbeHandlers.js"
import { PublicHandlers } from "./PublicHandlers.js"
import { publicPrefix } from "./PublicUrl.js"
import { respond } from "./Respond.js"
import { makeScrapeAnswer } from "./ScrapeAnswer.js"
import { ServerConfig } from "./ServerConfig.js"
import { TeamHandlers } from "./TeamHandlers.js"
import { readUpload } from "./Upload.js"
import { V1Handlers } from "./V1Handlers.js"

export const ScrapeHandlers = HttpApiBuilder.group(WebdataApi, "scrape", (handlers) =>
  Effect.gen(function* () {
    const scrapeAnswer = yield* makeScrapeAnswer
    const control = yield* JobControl
    return handlers
      .handleRaw("scrape", ({ request }) => respond(Effect.flatMap(readJsonBody(request), scrapeAnswer)))
      .handleRaw("scrapeById", ({ path }) =>
        respond(
          Effect.gen(function* () {
            const id = yield* checkJobId(path.id)
            const data = yield* control.getScrape(id, (yield* Caller).owner)
            return { success: true, data }
          }),
        ),
      )
  }),
)

export const ParseHandlers = HttpApiBuilder.group(WebdataApi, "parse", (handlers) =>
  Effect.gen(function* () {
    const parser = yield* Parse
    const usage = yield* Usage
    const { maxUploadBytes } = yield* ServerConfig
    return handlers.handleRaw("parse", ({ request }) =>
      respond(
        Effect.gen(function* () {
          const upload = yield* readUpload(request, maxUploadBytes)
          const options = yield* decodeParseOptions(upload.options)
          const { owner } = yield* Caller
          const data = yield* parser.parse(upload.file, options, owner)
          yield* usage.charge(owner, { credits: CREDITS_PER_PAGE })
          return { success: true, data }
        }),
      ),
    )
  }),
)

const openApiDocument = OpenApi.fromApi(WebdataApi)

export const MetaHandlers = HttpApiBuilder.group(WebdataApi, "meta", (handlers) =>
  handlers
    .handle("health", ({ request }) =>
      Effect.succeed({
        success: true as const,
        message: "webdata API",
        version: VERSION,
        documentation_url: `${publicPrefix(request)}/v2/openapi.json`,
      }),
    )
    .handle("openapi", () => Effect.succeed(openApiDocument)),
)

export const MapHandlers = HttpApiBuilder.group(WebdataApi, "map", (handlers) =>
  Effect.gen(function* () {
    const mapper = yield* MapService
    const usage = yield* Usage
    return handlers.handleRaw("map", ({ request }) =>
      respond(
        Effect.gen(function* () {
          const result = yield* mapper.map(yield* decodeMapRequest(yield* readJsonBody(request)))
          yield* usage.charge((yield* Caller).owner, { credits: CREDITS_PER_REQUEST })
          return { success: true, id: newId(), ...result }
        }),
      ),
    )
  }),
)

export const SearchHandlers = HttpApiBuilder.group(WebdataApi, "search", (handlers) =>
  Effect.gen(function* () {
    const searcher = yield* Search
    const usage = yield* Usage
    return handlers.handleRaw("search", ({ request }) =>
      respond(
        Effect.gen(function* () {
          const input = yield* decodeSearchRequest(yield* readJsonBody(request))
          const { owner } = yield* Caller
          const outcome = yield* searcher.search(input, owner)
          yield* usage.charge(owner, { credits: outcome.creditsUsed })
          return { success: true, ...outcome }
        }),
      ),
    )
  }),
)

export const layer = Layer.mergeAll(
  ScrapeHandlers,
  ParseHandlers,
  MetaHandlers,
  CrawlHandlers,
  BatchHandlers,
  MapHandlers,
  SearchHandlers,
  ExtractHandlers,
  AgentHandlers,
  MonitorHandlers,
  TeamHandlers,
  AdminHandlers,
  RegistrationHandlers,
  InteractHandlers,
  PublicHandlers,
  ProbeHandlers,
  MetricsHandlers,
  V1Handlers,
)
