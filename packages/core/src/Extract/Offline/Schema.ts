/**
 * The caller's JSON Schema as the extractor reads it: `$ref`s resolved (to `#/$defs/…` and `#/definitions/…`),
 * `allOf` merged, `anyOf`/`oneOf` and type lists kept as alternatives (without `null`), a schema without `type`
 * typed by what it has (`properties` → object, `items` → array, `enum` → enum). Depth, properties and nodes are
 * bounded, so a recursive or enormous schema costs a bounded amount (what is past the bound is not filled).
 */

export type Shape =
  | { readonly kind: "object"; readonly properties: ReadonlyArray<readonly [string, Shape]> }
  | { readonly kind: "array"; readonly items: Shape; readonly maxItems: number | undefined }
  | { readonly kind: "string"; readonly format: string | undefined; readonly enum: ReadonlyArray<unknown> | undefined }
  | { readonly kind: "number" | "integer"; readonly enum: ReadonlyArray<unknown> | undefined }
  | { readonly kind: "boolean" }
  | { readonly kind: "enum"; readonly values: ReadonlyArray<unknown> }
  | { readonly kind: "any" }
  | { readonly kind: "oneOf"; readonly options: ReadonlyArray<Shape> }

const MAX_DEPTH = 8
const MAX_PROPERTIES = 100
const MAX_NODES = 2_000

type Json = { readonly [key: string]: unknown }
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

const TYPES = new Set(["object", "array", "string", "number", "integer", "boolean"])

interface Reader {
  readonly root: Json
  nodes: number
}

const resolveRef = (ref: string, root: Json): unknown => {
  if (!ref.startsWith("#/")) return undefined
  let node: unknown = root
  for (const raw of ref.slice(2).split("/")) {
    const part = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~")
    node = isObject(node) && Object.hasOwn(node, part) ? node[part] : undefined
  }
  return node
}

/** `allOf` parts folded into one schema: properties merged, the first type kept. */
const mergeAllOf = (schema: Json, reader: Reader): Json => {
  const parts = Array.isArray(schema.allOf) ? schema.allOf : []
  let merged: Json = { ...schema, allOf: undefined }
  for (const part of parts.slice(0, 20)) {
    const resolved = isObject(part) && typeof part.$ref === "string" ? resolveRef(part.$ref, reader.root) : part
    if (!isObject(resolved)) continue
    merged = {
      ...resolved,
      ...merged,
      properties: {
        ...(isObject(resolved.properties) ? resolved.properties : {}),
        ...(isObject(merged.properties) ? merged.properties : {}),
      },
    }
  }
  return merged
}

const toShape = (input: unknown, depth: number, reader: Reader): Shape | undefined => {
  if (depth > MAX_DEPTH || ++reader.nodes > MAX_NODES) return undefined
  if (input === true || (isObject(input) && Object.keys(input).length === 0)) return { kind: "any" }
  if (!isObject(input)) return undefined
  let schema = input
  for (let hops = 0; typeof schema.$ref === "string" && hops < 8; hops++) {
    const target = resolveRef(schema.$ref, reader.root)
    if (!isObject(target)) return undefined
    // The target's own `$ref`, if any, is followed next.
    schema = { ...schema, $ref: undefined, ...target }
  }
  if (Array.isArray(schema.allOf)) schema = mergeAllOf(schema, reader)
  const alternatives = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : []
  if (alternatives.length > 0) {
    const options = alternatives
      .slice(0, 10)
      .filter((option) => !(isObject(option) && option.type === "null"))
      .map((option) => toShape(option, depth + 1, reader))
      .filter((shape) => shape !== undefined)
    return options.length === 1 ? options[0] : options.length > 1 ? { kind: "oneOf", options } : undefined
  }
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type]).filter(
    (type): type is string => typeof type === "string" && TYPES.has(type),
  )
  if (types.length > 1) {
    const options = types
      .map((type) => toShape({ ...schema, type }, depth + 1, reader))
      .filter((shape) => shape !== undefined)
    return { kind: "oneOf", options }
  }
  const enumValues = Array.isArray(schema.enum)
    ? schema.enum.filter((value) => value !== null)
    : schema.const !== undefined
      ? [schema.const]
      : undefined
  const type =
    types[0] ??
    (isObject(schema.properties)
      ? "object"
      : schema.items !== undefined
        ? "array"
        : enumValues !== undefined
          ? "enum"
          : undefined)
  switch (type) {
    case "object": {
      const properties: Array<readonly [string, Shape]> = []
      for (const [name, each] of Object.entries(isObject(schema.properties) ? schema.properties : {})) {
        if (properties.length >= MAX_PROPERTIES) break
        const shape = toShape(each, depth + 1, reader)
        if (shape !== undefined) properties.push([name, shape])
      }
      return { kind: "object", properties }
    }
    case "array": {
      const items = toShape(Array.isArray(schema.items) ? schema.items[0] : (schema.items ?? {}), depth + 1, reader)
      const maxItems = typeof schema.maxItems === "number" && schema.maxItems >= 0 ? schema.maxItems : undefined
      return items === undefined ? undefined : { kind: "array", items, maxItems }
    }
    case "string":
      return { kind: "string", format: typeof schema.format === "string" ? schema.format : undefined, enum: enumValues }
    case "number":
    case "integer":
      return { kind: type, enum: enumValues }
    case "boolean":
      return { kind: "boolean" }
    case "enum":
      return { kind: "enum", values: enumValues ?? [] }
    default:
      return { kind: "any" }
  }
}

/**
 * The object shape to fill: the schema itself when it describes an object, a bare map of properties read as one
 * (`{ name: { type: "string" } }`), anything else (a top-level array) under an `items` property.
 */
export const rootShape = (schema: { readonly [key: string]: unknown }): Extract<Shape, { kind: "object" }> => {
  const reader: Reader = { root: schema, nodes: 0 }
  const keywords = ["type", "properties", "$ref", "anyOf", "oneOf", "allOf", "items", "enum", "$defs", "definitions"]
  const looksLikeSchema = Object.keys(schema).some((key) => keywords.includes(key))
  const shape = toShape(looksLikeSchema ? schema : { type: "object", properties: schema }, 0, reader)
  if (shape === undefined) return { kind: "object", properties: [] }
  return shape.kind === "object" ? shape : { kind: "object", properties: [["items", shape]] }
}
