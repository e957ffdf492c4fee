/** Implementations of the contract's groups. Each handler decodes its body strictly and maps errors in one place. */
import { HttpApiBuilder, OpenApi } from "@effect/platform"
import { Effect, Layer } from "effect"
import { decodeStrict } from "../Domain/Decode.js"
import { decodeMapRequest } from "../Domain/MapRequest.js"
import { decodeParseOptions } from "../Domain/ParseOptions.js"
import { ScrapeRequest } from "../Domain/ScrapeOptions.js"
import { decodeSearchRequest } from "../Domain/SearchRequest.js"
import { JobControl } from "../Jobs/JobControl.js"
import { newId } from "../Jobs/JobStore.js"
import { ownerOf } from "../Jobs/Owner.js"
import { MapService } from "../Map.js"
import { Parse } from "../Parse.js"
import { Scrape } from "../Scrape.js"
import { Search } from "../Search.js"
import { VERSION } from "../Version.js"
import { AgentHandlers } from "./AgentHandlers.js"
import { Caller, WebdataApi } from "./Api.js"
import { readJsonBody } from "./Body.js"
import { ExtractHandlers } from "./ExtractHandlers.js"
import { InteractHandlers } from "./InteractHandlers.js"
import { BatchHandlers, CrawlHandlers, checkJobId } from "./JobHandlers.js"
import { MonitorHandlers } from "./MonitorHandlers.js"
import { PublicHandlers } from "./PublicHandlers.js"
import { publicPrefix } from "./PublicUrl.js"
import { respond } from "./Respond.js"
import { ServerConfig } from "./ServerConfig.js"
import { readUpload } from "./Upload.js"

const decodeScrapeRequest = decodeStrict(ScrapeRequest)

export const ScrapeHandlers = HttpApiBuilder.group(WebdataApi, "scrape", (handlers) =>
  Effect.gen(function* () {
    const scraper = yield* Scrape
    const control = yield* JobControl
    return handlers
      .handleRaw("scrape", ({ request }) =>
        respond(
          Effect.gen(function* () {
            const input = yield* decodeScrapeRequest(yield* readJsonBody(request))
            const owner = ownerOf((yield* Caller).apiKey)
            const data = yield* scraper.scrape({ ...input, owner })
            if (!input.zeroDataRetention) yield* control.keepScrape(data, owner)
            return { success: true, data }
          }),
        ),
      )
      .handleRaw("scrapeById", ({ path }) =>
        respond(
          Effect.gen(function* () {
            const id = yield* checkJobId(path.id)
            const data = yield* control.getScrape(id, ownerOf((yield* Caller).apiKey))
            return { success: true, data }
          }),
        ),
      )
  }),
)

export const ParseHandlers = HttpApiBuilder.group(WebdataApi, "parse", (handlers) =>
  Effect.gen(function* () {
    const parser = yield* Parse
    const { maxUploadBytes } = yield* ServerConfig
    return handlers.handleRaw("parse", ({ request }) =>
      respond(
        Effect.gen(function* () {
          const upload = yield* readUpload(request, maxUploadBytes)
          const options = yield* decodeParseOptions(upload.options)
          const data = yield* parser.parse(upload.file, options, ownerOf((yield* Caller).apiKey))
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
  Effect.map(MapService, (mapper) =>
    handlers.handleRaw("map", ({ request }) =>
      respond(
        Effect.gen(function* () {
          const result = yield* mapper.map(yield* decodeMapRequest(yield* readJsonBody(request)))
          return { success: true, id: newId(), ...result }
        }),
      ),
    ),
  ),
)

export const SearchHandlers = HttpApiBuilder.group(WebdataApi, "search", (handlers) =>
  Effect.map(Search, (searcher) =>
    handlers.handleRaw("search", ({ request }) =>
      respond(
        Effect.gen(function* () {
          const input = yield* decodeSearchRequest(yield* readJsonBody(request))
          const outcome = yield* searcher.search(input, ownerOf((yield* Caller).apiKey))
          return { success: true, ...outcome }
        }),
      ),
    ),
  ),
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
  InteractHandlers,
  PublicHandlers,
)
