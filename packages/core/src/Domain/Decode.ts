/**
 * Strict decoding of request bodies into domain types, with failures shaped like Firecrawl's (zod) 400s: unknown keys
 * are errors, and `details` is a list of `{ code, path, message }` issues that its clients print.
 */
import { Effect, Option, ParseResult, Schema, type SchemaAST } from "effect"
import { RequestError } from "../Errors.js"

export interface ValidationIssue {
  readonly code: "unrecognized_keys" | "invalid_type" | "custom"
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
  readonly keys?: ReadonlyArray<string>
}

const UNRECOGNIZED = "Unrecognized key in body -- please review the v2 API documentation for request body changes"

/**
 * Issue messages quote the bad value (`actual "…"`) and keys can be any length: a 2 MB string must not come back as
 * a 2 MB error. Each quoted text is cut to this many characters, and at most `MAX_ISSUES` issues are listed.
 */
const MAX_ECHO = 200
const MAX_ISSUES = 100

const capped = (text: string): string => (text.length <= MAX_ECHO ? text : `${text.slice(0, MAX_ECHO)}… (cut)`)

const toIssue = (issue: ParseResult.ArrayFormatterIssue): ValidationIssue | undefined => {
  switch (issue._tag) {
    case "Unexpected": {
      const key = capped(String(issue.path[issue.path.length - 1]))
      return {
        code: "unrecognized_keys",
        keys: [key],
        path: issue.path.slice(0, -1),
        message: `Unrecognized key: "${key}"`,
      }
    }
    case "Missing":
      return { code: "invalid_type", path: issue.path, message: "Required" }
    default:
      // Optional fields report a second "Expected undefined" alternative for every bad value: noise for callers.
      if (issue.message.startsWith("Expected undefined")) return undefined
      // Messages written by our own filters (not Effect's "Expected …") are the equivalent of zod's refine issues.
      return {
        code: issue._tag === "Refinement" || !issue.message.startsWith("Expected ") ? "custom" : "invalid_type",
        path: issue.path,
        message: capped(issue.message),
      }
  }
}

/** An object with a literal `type` (behind any refinements): a member of a discriminated union. */
const hasLiteralType = (ast: SchemaAST.AST): boolean =>
  ast._tag === "Refinement"
    ? hasLiteralType(ast.from)
    : ast._tag === "TypeLiteral" &&
      ast.propertySignatures.some((property) => property.name === "type" && property.type._tag === "Literal")

/**
 * A plain union of alternatives, zod's `z.union`: not an optional field (`X | undefined`, which Effect also models as
 * a union), and not a union discriminated by `type` (zod's `discriminatedUnion` reports the chosen member's issues).
 */
const isPlainUnion = (ast: SchemaAST.AST): boolean => {
  if (ast._tag !== "Union") return false
  const members = ast.types.filter((member) => member._tag !== "UndefinedKeyword")
  return members.length > 1 && !members.every(hasLiteralType)
}

/**
 * Whether the first failure lies inside a union (`parsers`, `formats`, …): zod reports those as `invalid_union`,
 * never as a refinement's message, so Firecrawl answers "Bad Request" for them.
 */
const firstFailureInUnion = (issue: ParseResult.ParseIssue, inUnion = false): boolean => {
  switch (issue._tag) {
    case "Composite": {
      const first = Array.isArray(issue.issues) ? issue.issues[0] : issue.issues
      const union = inUnion || isPlainUnion(issue.ast)
      return first === undefined ? union : firstFailureInUnion(first as ParseResult.ParseIssue, union)
    }
    case "Pointer":
    case "Refinement":
    case "Transformation":
      return firstFailureInUnion(issue.issue, inUnion)
    default:
      return inUnion
  }
}

/** The 400 error of a failed decode, with Firecrawl's choice of top-level message. */
export const validationError = (error: ParseResult.ParseError): RequestError => {
  const issues = ParseResult.ArrayFormatter.formatErrorSync(error)
    .flatMap((issue) => toIssue(issue) ?? [])
    .slice(0, MAX_ISSUES)
  const message = issues.some((issue) => issue.code === "unrecognized_keys")
    ? UNRECOGNIZED
    : issues[0]?.code === "custom" && !firstFailureInUnion(error.issue)
      ? issues[0].message
      : "Bad Request"
  return new RequestError({ reason: "Validation", code: "BAD_REQUEST", message, details: issues })
}

/** The 400 error of path or query parameters the contract could not decode (`?limit=abc`), in the same shape. */
export const parameterError = (issues: ReadonlyArray<ParseResult.ArrayFormatterIssue>): RequestError => {
  const details = issues.flatMap((issue) => toIssue(issue) ?? []).slice(0, MAX_ISSUES)
  return new RequestError({
    reason: "Validation",
    code: "BAD_REQUEST",
    message: details[0]?.message ?? "Bad Request",
    details,
  })
}

/**
 * No request of the API nests deeper than a few levels (a JSON schema in a `json` format the most); past this, decoding
 * and formatting its errors would recurse thousands of frames deep.
 */
export const MAX_NESTING = 64

/** Whether `value` nests objects or arrays deeper than `max` levels; iterative, so any depth is safe to measure. */
const nestedDeeperThan = (value: unknown, max: number): boolean => {
  const pending: Array<readonly [unknown, number]> = [[value, 0]]
  while (pending.length > 0) {
    const [node, depth] = pending.pop()!
    if (node === null || typeof node !== "object") continue
    if (depth >= max) return true
    for (const child of Object.values(node)) pending.push([child, depth + 1])
  }
  return false
}

const decodeWith =
  (onExcessProperty: "error" | "ignore") =>
  <A, I>(schema: Schema.Schema<A, I, never>) =>
  (input: unknown): Effect.Effect<A, RequestError> =>
    nestedDeeperThan(input, MAX_NESTING)
      ? Effect.fail(
          new RequestError({
            reason: "Validation",
            code: "BAD_REQUEST",
            message: `The request nests objects or arrays more than ${MAX_NESTING} levels deep.`,
          }),
        )
      : Effect.suspend(() => Schema.decodeUnknown(schema, { errors: "all", onExcessProperty })(input)).pipe(
          Effect.mapError(validationError),
          // Effect's discriminated unions read the discriminator with `String()`, which throws (while decoding, so
          // inside `suspend`) on an object whose `toString` is not a function (`{"type": {"toString": 0}}`): a bad
          // value, not a defect.
          Effect.catchSomeDefect((defect) =>
            defect instanceof TypeError
              ? Option.some(
                  Effect.fail(new RequestError({ reason: "Validation", code: "BAD_REQUEST", message: "Bad Request" })),
                )
              : Option.none(),
          ),
        )

/** Decodes an unknown value strictly (unknown keys are errors), failing with a Firecrawl-shaped 400. */
export const decodeStrict = decodeWith("error")

/** Like `decodeStrict` with unknown keys dropped: Firecrawl's non-strict bodies (`/v2/interact*`). */
export const decodeLenient = decodeWith("ignore")
