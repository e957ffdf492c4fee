/** Bearer-key authentication: one middleware for every protected group, and the same check for the WebSocket. */
import { HttpServerRequest } from "@effect/platform"
import { Effect, Layer, Redacted } from "effect"
import { Authorization, Unauthorized } from "./Api.js"
import { ServerConfig } from "./ServerConfig.js"

const unauthorized = (error: string) => new Unauthorized({ success: false, code: "UNAUTHORIZED", error })

/** The caller's key if the server accepts it (any caller when it runs open, with no key). */
export const checkKey = (
  apiKeys: ReadonlySet<string>,
  token: string,
): Effect.Effect<{ readonly apiKey: string | undefined }, Unauthorized> => {
  if (apiKeys.size === 0) return Effect.succeed({ apiKey: undefined })
  const key = token.trim()
  if (key === "") return Effect.fail(unauthorized("Unauthorized: missing API key (Authorization: Bearer <key>)"))
  if (!apiKeys.has(key)) return Effect.fail(unauthorized("Unauthorized: Invalid token"))
  return Effect.succeed({ apiKey: key })
}

/** A key sent without its scheme (`Authorization: <key>`) is told so, instead of being called invalid. */
const wrongScheme = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
  const header = request.headers.authorization?.trim() ?? ""
  return header !== "" && !/^bearer\s/i.test(header)
    ? Effect.fail(unauthorized("Unauthorized: send the key as `Authorization: Bearer <key>`"))
    : Effect.void
})

export const layer: Layer.Layer<Authorization, never, ServerConfig> = Layer.effect(
  Authorization,
  Effect.gen(function* () {
    const { apiKeys } = yield* ServerConfig
    return {
      // An open server ignores whatever authorization a caller sends.
      bearer: (token) =>
        Effect.zipRight(apiKeys.size === 0 ? Effect.void : wrongScheme, checkKey(apiKeys, Redacted.value(token))),
    }
  }),
)
