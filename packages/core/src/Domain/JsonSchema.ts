/**
 * The JSON Schemas callers send with the `json` format, extract and agent, made ready for a model the way Firecrawl
 * does: `additionalProperties` dropped from objects that list their properties, `required` entries without a property
 * dropped, a schema without `type` read as a map of properties, and a top-level array wrapped in an object (models
 * answer objects), which `unwrap` undoes on the answer. An object that allows any property but lists none cannot be
 * given to a model and is refused with Firecrawl's message.
 */
import type { JsonSchema } from "../Llm/Llm.js"

type Json = { [key: string]: unknown }

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

const SCHEMA_KEYWORDS = new Set([
  "type",
  "properties",
  "$ref",
  "$defs",
  "definitions",
  "anyOf",
  "oneOf",
  "allOf",
  "enum",
  "const",
  "items",
  "patternProperties",
  "additionalProperties",
  "$schema",
])

const OPEN_OBJECT_MESSAGE =
  "Schema contains invalid structure for OpenAI: object type with no 'properties' defined but 'additionalProperties: true' (which allows any properties). Add explicit properties to the object, or set 'additionalProperties' to false. Note: Recursive schemas using '$ref' are supported."

/** The first object in the schema that allows any property but names none, as Firecrawl refuses it. */
export const schemaProblem = (schema: unknown): string | undefined => {
  const pending: Array<unknown> = [schema]
  while (pending.length > 0) {
    const node = pending.pop()
    if (Array.isArray(node)) pending.push(...node)
    else if (isObject(node)) {
      if (
        node.additionalProperties === true &&
        !isObject(node.properties) &&
        !isObject(node.patternProperties) &&
        (node.type === "object" || node.type === undefined)
      )
        return OPEN_OBJECT_MESSAGE
      pending.push(...Object.values(node))
    }
  }
  return undefined
}

/** `additionalProperties` off objects that list properties, `required` limited to listed properties; recursive. */
const tidy = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(tidy)
  if (!isObject(node)) return node
  const out: Json = {}
  for (const [key, value] of Object.entries(node)) {
    // Keys of `properties` are names, not keywords: their values are schemas, tidied one by one.
    out[key] =
      key === "properties" && isObject(value)
        ? Object.fromEntries(Object.entries(value).map(([name, each]) => [name, tidy(each)]))
        : tidy(value)
  }
  if (isObject(out.properties)) {
    delete out.additionalProperties
    if (Array.isArray(out.required)) {
      const names = new Set(Object.keys(out.properties))
      out.required = out.required.filter((name) => typeof name === "string" && names.has(name))
    }
  }
  return out
}

export interface PreparedSchema {
  /** A top-level object schema to give the model. */
  readonly schema: JsonSchema
  /** The caller's schema, tidied: what the unwrapped value must match. */
  readonly callerSchema: JsonSchema
  /** The caller's value from the model's answer (the array back out of its wrapper). */
  readonly unwrap: (value: unknown) => unknown
}

const identity = (value: unknown) => value

/** The caller's schema as a model gets it. */
export const prepareSchema = (input: JsonSchema): PreparedSchema => {
  const looksLikeSchema = Object.keys(input).some((key) => SCHEMA_KEYWORDS.has(key))
  const schema = tidy(looksLikeSchema ? input : { type: "object", properties: input }) as Json
  if (schema.type === "array")
    return {
      schema: { type: "object", properties: { items: schema }, required: ["items"] },
      callerSchema: schema,
      unwrap: (value) => (isObject(value) ? value.items : value),
    }
  return { schema, callerSchema: schema, unwrap: identity }
}
