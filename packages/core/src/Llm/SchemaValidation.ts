/**
 * Validation of values against callers' JSON Schemas (the `json` format's schema, extract's, agent's), with
 * `@cfworker/json-schema`: it interprets the schema, where Ajv would compile it to JavaScript and run that code; a
 * schema from an API caller must never become code in this process. Messages are short, one per problem, with the
 * JSON pointer of the value they are about, so that they can be shown to a model that has to correct its answer.
 */
import { type Schema, type SchemaDraft, Validator } from "@cfworker/json-schema"
import type { JsonSchema } from "./Llm.js"

/** Keywords whose errors only say that a subschema failed; the subschema's own errors say how. */
const summaryKeywords = new Set([
  "properties",
  "patternProperties",
  "items",
  "prefixItems",
  "additionalItems",
  "allOf",
  "$ref",
  "$recursiveRef",
  "$dynamicRef",
  "dependentSchemas",
  "unevaluatedProperties",
  "unevaluatedItems",
  // "False boolean schema." after an `additionalProperties: false` error, which already names the property.
  "false",
])

const MAX_ERRORS = 20

const draftOf = (schema: JsonSchema): SchemaDraft => {
  const declared = typeof schema.$schema === "string" ? schema.$schema : ""
  if (declared.includes("draft-04")) return "4"
  if (declared.includes("draft-06") || declared.includes("draft-07")) return "7"
  if (declared.includes("2020-12")) return "2020-12"
  // 2019-09 reads both `definitions` and `$defs`, and the array form of `items`, as most callers' schemas use them.
  return "2019-09"
}

const validators = new WeakMap<object, Validator>()

const validatorFor = (schema: JsonSchema): Validator => {
  let validator = validators.get(schema)
  if (validator === undefined) {
    // Not short-circuiting: a model shown every mistake at once corrects them in one go.
    validator = new Validator(schema as Schema, draftOf(schema), false)
    validators.set(schema, validator)
  }
  return validator
}

const location = (instanceLocation: string): string => {
  const pointer = instanceLocation.replace(/^#/, "")
  return pointer === "" ? "(root)" : pointer
}

/**
 * What is wrong with `value` against `schema`, one message per problem (`/items/0/price: Instance type "string" is
 * invalid. Expected "number".`); empty when it is valid.
 */
export const schemaErrors = (schema: JsonSchema, value: unknown): ReadonlyArray<string> => {
  let result: ReturnType<Validator["validate"]>
  try {
    result = validatorFor(schema).validate(value)
  } catch (error) {
    // An unresolvable `$ref`, mostly: the schema's fault, reported as such.
    const message = error instanceof Error ? (error.message.split("\n")[0] ?? error.message) : String(error)
    return [`the schema cannot be used for validation: ${message}`]
  }
  if (result.valid) return []
  const detailed = result.errors.filter((each) => !summaryKeywords.has(each.keyword))
  const errors = detailed.length > 0 ? detailed : result.errors
  const messages = [...new Set(errors.map((each) => `${location(each.instanceLocation)}: ${each.error}`))]
  return messages.length > MAX_ERRORS
    ? [...messages.slice(0, MAX_ERRORS), `… and ${messages.length - MAX_ERRORS} more`]
    : messages
}
