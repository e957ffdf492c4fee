/**
 * Routes opened by URL, with no API key: what the URL holds is the credential (an artifact's random name, a session's
 * token). A stored screenshot or PDF, and a session's live view page.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Option } from "effect"
import { ArtifactStore } from "../Artifacts/ArtifactStore.js"
import { RequestError } from "../Errors.js"
import { InteractSessions } from "../Interact/InteractSessions.js"
import { livePage } from "../Interact/LivePage.js"
import { WebdataApi } from "./Api.js"
import { respond } from "./Respond.js"

const noArtifact = (name: string) =>
  new RequestError({ reason: "NotFound", code: "NOT_FOUND", message: `No artifact ${name.slice(0, 80)}.` })

export const PublicHandlers = HttpApiBuilder.group(WebdataApi, "public", (handlers) =>
  Effect.gen(function* () {
    const sessions = yield* InteractSessions
    const artifacts = Option.getOrUndefined(yield* Effect.serviceOption(ArtifactStore))
    return handlers
      .handleRaw("artifact", ({ path }) =>
        respond(
          Effect.gen(function* () {
            const found = artifacts === undefined ? Option.none() : yield* artifacts.get(path.name)
            if (Option.isNone(found)) return yield* noArtifact(path.name)
            return HttpServerResponse.uint8Array(found.value.bytes, {
              contentType: found.value.contentType,
              headers: { "cache-control": "private, max-age=86400", "x-content-type-options": "nosniff" },
            })
          }),
        ),
      )
      .handleRaw("liveView", ({ path, urlParams }) =>
        respond(
          Effect.map(sessions.access(path.id, urlParams.token ?? ""), (access) =>
            HttpServerResponse.text(livePage(access.control), {
              contentType: "text/html; charset=utf-8",
              // The token is in the page's URL: it must not leak to other sites through the Referer.
              headers: { "referrer-policy": "no-referrer", "cache-control": "no-store" },
            }),
          ),
        ),
      )
  }),
)
