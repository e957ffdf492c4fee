/**
 * Key management with the admin key: make a key (answered once), list every key, revoke one; and the keyless route
 * that issues a key for a verified identity assertion.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect, Schema } from "effect"
import { decodeStrict } from "../Domain/Decode.js"
import { KeyRing } from "../Tenants/KeyRing.js"
import { Registration } from "../Tenants/Registration.js"
import { WebdataApi } from "./Api.js"
import { readJsonBody } from "./Body.js"
import { ClientAddress } from "./ClientAddress.js"
import { quotaResponse } from "./ErrorResponse.js"
import { respond } from "./Respond.js"

const decodeNewKey = decodeStrict(
  Schema.Struct({
    name: Schema.String,
    limits: Schema.optional(Schema.Unknown),
    flags: Schema.optional(Schema.Unknown),
  }),
)

const PAGE = 100

export const AdminHandlers = HttpApiBuilder.group(WebdataApi, "admin", (handlers) =>
  Effect.map(KeyRing, (keys) =>
    handlers
      .handleRaw("keyCreate", ({ request }) =>
        respond(
          Effect.gen(function* () {
            const { key, view } = yield* keys.create(yield* decodeNewKey(yield* readJsonBody(request)))
            return { success: true as const, key, data: view }
          }),
        ),
      )
      .handleRaw("keyList", ({ urlParams }) =>
        respond(
          Effect.map(
            keys.list(Math.max(0, urlParams.offset ?? 0), Math.min(PAGE, Math.max(1, urlParams.limit ?? PAGE))),
            (data) => ({ success: true as const, data }),
          ),
        ),
      )
      .handleRaw("keyRevoke", ({ path }) =>
        respond(Effect.map(keys.revoke(path.id), (data) => ({ success: true as const, data }))),
      ),
  ),
)

const decodeRegistration = decodeStrict(Schema.Struct({ assertion: Schema.String }))

export const RegistrationHandlers = HttpApiBuilder.group(WebdataApi, "registration", (handlers) =>
  Effect.map(Registration, (registration) =>
    handlers.handleRaw("keyRegister", ({ request }) =>
      respond(
        Effect.gen(function* () {
          const { assertion } = yield* decodeRegistration(yield* readJsonBody(request))
          const { key, view } = yield* registration.register(assertion, yield* Effect.serviceOption(ClientAddress))
          return { success: true as const, key, data: view }
        }).pipe(Effect.catchTag("QuotaExceeded", (refusal) => Effect.succeed(quotaResponse(refusal)))),
      ),
    ),
  ),
)
