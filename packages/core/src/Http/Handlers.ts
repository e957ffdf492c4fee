/** Implementations of the contract's groups. Each handler decodes its body strictly and maps errors in one place. */
import { HttpApiBuilder, HttpServerResponse, OpenApi } from "@effect/platform"
import { Effect, Layer } from "effect"
import { decodeStrict } from "../Domain/Decode.js"
import { ScrapeRequest } from "../Domain/ScrapeOptions.js"
import type { EngineError } from "../Errors.js"
import { Scrape } from "../Scrape.js"
import { VERSION } from "../Version.js"
import { WebdataApi } from "./Api.js"
import { readJsonBody } from "./Body.js"
import { errorResponse } from "./ErrorResponse.js"

/** Runs a handler body and turns its failures into the error envelope. */
const respond = <E extends EngineError, R>(
  effect: Effect.Effect<unknown, E, R>,
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, R> =>
  effect.pipe(
    Effect.map((body) => HttpServerResponse.unsafeJson(body)),
    Effect.catchAll((error) => Effect.succeed(errorResponse(error))),
  )

const decodeScrapeRequest = decodeStrict(ScrapeRequest)

export const ScrapeHandlers = HttpApiBuilder.group(WebdataApi, "scrape", (handlers) =>
  Effect.gen(function* () {
    const scraper = yield* Scrape
    return handlers.handleRaw("scrape", ({ request }) =>
      respond(
        readJsonBody(request).pipe(
          Effect.flatMap(decodeScrapeRequest),
          Effect.flatMap(scraper.scrape),
          Effect.map((data) => ({ success: true, data })),
        ),
      ),
    )
  }),
)

const openApiDocument = OpenApi.fromApi(WebdataApi)

export const MetaHandlers = HttpApiBuilder.group(WebdataApi, "meta", (handlers) =>
  handlers
    .handle("health", () =>
      Effect.succeed({
        success: true as const,
        message: "webdata API",
        version: VERSION,
        documentation_url: "/v2/openapi.json",
      }),
    )
    .handle("openapi", () => Effect.succeed(openApiDocument)),
)

export const layer = Layer.mergeAll(ScrapeHandlers, MetaHandlers)
