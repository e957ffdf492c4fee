/**
 * The v2 REST contract, declared once. Handlers (`Handlers.ts`) implement it, the OpenAPI document is generated from
 * it, and every HTTP adapter serves it through one web handler (`WebHandler.ts`).
 *
 * Handlers decode request bodies themselves (strictly, with Firecrawl's 400 shape) and build responses directly, so
 * the schemas here describe the wire format for the OpenAPI document and typed clients; a contract test checks that
 * real responses decode with them.
 */
import {
  HttpApi,
  HttpApiEndpoint,
  HttpApiGroup,
  HttpApiMiddleware,
  HttpApiSchema,
  HttpApiSecurity,
  OpenApi,
} from "@effect/platform"
import { Context, JSONSchema, Schema } from "effect"
import { Document } from "../Domain/Document.js"
import { ScrapeRequest } from "../Domain/ScrapeOptions.js"

const DECODE_ERROR_REF = "#/components/schemas/HttpApiDecodeError"
const BAD_REQUEST_DESCRIPTION =
  "Malformed JSON (BAD_REQUEST_INVALID_JSON), a validation failure (BAD_REQUEST; `details` lists the issues), or an option this server cannot honour yet"

/**
 * HttpApi documents its own decode error on every endpoint, but handlers decode bodies themselves and answer
 * `ErrorBody`, so that schema is dropped from the document to keep it true.
 */
const withoutDecodeError = (spec: Record<string, unknown>): Record<string, unknown> => {
  const strip = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(strip)
    if (node === null || typeof node !== "object") return node
    const object = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, strip(value)])) as JsonObject
    if (Array.isArray(object.anyOf)) {
      const rest = object.anyOf.filter((member) => (member as JsonObject).$ref !== DECODE_ERROR_REF)
      if (rest.length === 1) {
        const { anyOf: _, ...others } = object
        return { ...others, ...(rest[0] as JsonObject) }
      }
      object.anyOf = rest
    }
    return object
  }
  const result = strip(spec) as OpenApi.OpenAPISpec
  for (const operations of Object.values(result.paths))
    for (const operation of Object.values(operations) as Array<OpenApi.OpenAPISpecOperation | undefined>) {
      const bad = operation?.responses?.["400"]
      if (operation === undefined || bad === undefined) continue
      const schema = bad.content?.["application/json"]?.schema as JsonObject | undefined
      if (schema?.$ref === DECODE_ERROR_REF) delete operation.responses["400"]
      else bad.description = BAD_REQUEST_DESCRIPTION
    }
  for (const name of ["HttpApiDecodeError", "Issue", "PropertyKey"]) delete result.components.schemas[name]
  return result as unknown as Record<string, unknown>
}
type JsonObject = Record<string, unknown>

/** The error envelope: `{ success: false, code, error, details? }`. */
export const ErrorBody = Schema.Struct({
  success: Schema.Literal(false),
  code: Schema.optional(Schema.String),
  error: Schema.String,
  details: Schema.optional(Schema.Unknown),
})
export type ErrorBody = typeof ErrorBody.Type

/**
 * Error responses for the document only. Handlers answer errors as ready responses, so at run time these schemas
 * must match nothing: HttpApi encodes unexpected failures against every declared error schema, and a structural
 * match would turn a defect into an empty response of the wrong status.
 */
const { $schema: _draft, ...errorBodyJsonSchema } = JSONSchema.make(ErrorBody)
const errorBody = (status: number, description: string) =>
  Schema.declare((_: unknown): _ is ErrorBody => false, {
    identifier: "ErrorBody",
    jsonSchema: errorBodyJsonSchema,
  }).annotations(HttpApiSchema.annotations({ status, description }))

export class Unauthorized extends Schema.Class<Unauthorized>("Unauthorized")(
  {
    success: Schema.Literal(false),
    code: Schema.Literal("UNAUTHORIZED"),
    error: Schema.String,
  },
  HttpApiSchema.annotations({ status: 401, description: "Missing or invalid API key" }),
) {}

/** Who is calling: the API key used (undefined when the server runs without keys). Jobs belong to it. */
export class Caller extends Context.Tag("@webdata/core/Caller")<Caller, { readonly apiKey: string | undefined }>() {}

export class Authorization extends HttpApiMiddleware.Tag<Authorization>()("Authorization", {
  failure: Unauthorized,
  provides: Caller,
  security: {
    bearer: HttpApiSecurity.bearer.pipe(
      HttpApiSecurity.annotate(
        OpenApi.Description,
        "`Authorization: Bearer <key>`; not needed when the server runs open",
      ),
    ),
  },
}) {}

export const ScrapeResponse = Schema.Struct({ success: Schema.Literal(true), data: Document }).annotations({
  identifier: "ScrapeResponse",
})

const scrapeGroup = HttpApiGroup.make("scrape")
  .add(
    HttpApiEndpoint.post("scrape", "/v2/scrape")
      .setPayload(ScrapeRequest)
      .addSuccess(ScrapeResponse)
      .addError(errorBody(400, BAD_REQUEST_DESCRIPTION))
      .addError(errorBody(403, "The target address is not allowed"))
      .addError(errorBody(404, "No cached data (minAge / lockdown)"))
      .addError(errorBody(408, "The scrape timed out (SCRAPE_TIMEOUT)"))
      .addError(errorBody(413, "Request body too large"))
      .addError(errorBody(500, "The target could not be scraped"))
      .annotate(OpenApi.Summary, "Scrape a single URL")
      .annotate(
        OpenApi.Description,
        "Fetches the URL and returns the requested formats (markdown, html, rawHtml, links, images).",
      ),
  )
  .middleware(Authorization)

export const HealthResponse = Schema.Struct({
  success: Schema.Literal(true),
  message: Schema.String,
  version: Schema.String,
  documentation_url: Schema.String,
})

const metaGroup = HttpApiGroup.make("meta")
  .add(HttpApiEndpoint.get("health", "/").addSuccess(HealthResponse).annotate(OpenApi.Summary, "Health check"))
  .add(
    HttpApiEndpoint.get("openapi", "/v2/openapi.json")
      .addSuccess(Schema.Unknown)
      .annotate(OpenApi.Summary, "This OpenAPI document"),
  )

export class WebdataApi extends HttpApi.make("webdata")
  .add(metaGroup)
  .add(scrapeGroup)
  .annotate(OpenApi.Title, "webdata API")
  .annotate(OpenApi.Version, "2.0.0")
  .annotate(
    OpenApi.Description,
    "Web data engine with a Firecrawl v2-compatible REST API. Point the official Firecrawl SDKs at this server's root URL.",
  )
  .annotate(OpenApi.Transform, withoutDecodeError) {}
