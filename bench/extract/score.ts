/**
 * Field-level scoring of the offline extractor against the hand-written fixtures (`fixtures/NAME.html` with
 * `NAME.json` = `{ url?, schema, expected }`). Values are compared leaf by leaf: a list of objects by position, an
 * object by property; a leaf is right when it equals the expected one (numbers within 1 %, strings ignoring case and
 * spacing), and a list of scalars earns partial credit per element (as sets of normalised strings). Precision is the
 * credit over the leaves filled, recall over the leaves expected.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { prepareSchema } from "../../packages/core/src/Domain/JsonSchema.js"
import { extractOffline } from "../../packages/core/src/Extract/Offline/OfflineExtractor.js"

export const FIXTURES = join(import.meta.dirname, "fixtures")

export interface Fixture {
  readonly name: string
  /** The file name's first word: product, article, event, recipe, job. */
  readonly kind: string
  readonly url: string
  readonly html: string
  readonly schema: { readonly [key: string]: unknown }
  readonly expected: Record<string, unknown>
}

export const loadFixtures = (folder = FIXTURES): Array<Fixture> =>
  readdirSync(folder)
    .filter((file) => file.endsWith(".html"))
    .sort()
    .map((file) => {
      const name = file.slice(0, -".html".length)
      const spec = JSON.parse(readFileSync(join(folder, `${name}.json`), "utf8")) as {
        readonly url?: string
        readonly schema: { readonly [key: string]: unknown }
        readonly expected: Record<string, unknown>
      }
      return {
        name,
        kind: name.split("-")[0]!,
        url: spec.url ?? `https://example.test/${name}`,
        html: readFileSync(join(folder, file), "utf8"),
        schema: spec.schema,
        expected: spec.expected,
      }
    })

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** Leaves by path: scalars and lists of scalars; objects and lists of objects are walked into. */
const leaves = (value: unknown, path = "", out = new Map<string, unknown>()): Map<string, unknown> => {
  if (isObject(value))
    for (const [key, each] of Object.entries(value)) leaves(each, path === "" ? key : `${path}.${key}`, out)
  else if (Array.isArray(value) && value.some(isObject))
    for (const [index, each] of value.entries()) leaves(each, `${path}[${index}]`, out)
  else out.set(path, value)
  return out
}

const normal = (value: unknown): string => String(value).replace(/\s+/g, " ").trim().toLowerCase()

export interface Credit {
  /** Share of the expected leaf that was found (recall's numerator). */
  readonly recall: number
  /** Share of the filled leaf that is right (precision's numerator). */
  readonly precision: number
}

export const compare = (expected: unknown, actual: unknown): Credit => {
  if (Array.isArray(expected) && Array.isArray(actual)) {
    const wanted = new Set(expected.map(normal))
    const got = new Set(actual.map(normal))
    const shared = [...got].filter((each) => wanted.has(each)).length
    return { recall: wanted.size === 0 ? 0 : shared / wanted.size, precision: got.size === 0 ? 0 : shared / got.size }
  }
  let right = false
  if (typeof expected === "number" && typeof actual === "number")
    right = expected === 0 ? actual === 0 : Math.abs(actual - expected) <= Math.abs(expected) * 0.01
  else if (typeof expected === "string" && typeof actual === "string") right = normal(expected) === normal(actual)
  else right = expected === actual
  return { recall: right ? 1 : 0, precision: right ? 1 : 0 }
}

export interface Miss {
  readonly path: string
  readonly expected: unknown
  readonly actual: unknown
}

export interface FixtureScore {
  readonly fixture: Fixture
  readonly filled: number
  readonly expectedLeaves: number
  readonly precisionCredit: number
  readonly recallCredit: number
  readonly misses: ReadonlyArray<Miss>
  readonly sources: Record<string, string>
  readonly millis: number
}

export const scoreFixture = (fixture: Fixture): FixtureScore => {
  const started = performance.now()
  // As the json format runs it: the schema prepared for the model, the answer unwrapped.
  const prepared = prepareSchema(fixture.schema)
  const extracted = extractOffline(fixture.html, fixture.url, prepared.schema)
  const millis = performance.now() - started
  const wanted = leaves(fixture.expected)
  const got = leaves(prepared.unwrap(extracted.value))
  let precisionCredit = 0
  let recallCredit = 0
  const misses: Array<Miss> = []
  for (const [path, expected] of wanted) {
    const credit = got.has(path) ? compare(expected, got.get(path)) : { recall: 0, precision: 0 }
    recallCredit += credit.recall
    if (credit.recall < 1) misses.push({ path, expected, actual: got.get(path) })
  }
  for (const [path, actual] of got) {
    const credit = wanted.has(path) ? compare(wanted.get(path), actual) : { recall: 0, precision: 0 }
    precisionCredit += credit.precision
    if (!wanted.has(path)) misses.push({ path, expected: undefined, actual })
  }
  return {
    fixture,
    filled: got.size,
    expectedLeaves: wanted.size,
    precisionCredit,
    recallCredit,
    misses,
    sources: extracted.sources,
    millis,
  }
}

export interface Totals {
  readonly fixtures: number
  readonly precision: number
  readonly recall: number
  readonly f1: number
}

/** Micro-averaged over the leaves of all the scores given. */
export const totals = (scores: ReadonlyArray<FixtureScore>): Totals => {
  const sum = (pick: (score: FixtureScore) => number) => scores.reduce((total, score) => total + pick(score), 0)
  const filled = sum((score) => score.filled)
  const expected = sum((score) => score.expectedLeaves)
  const precision = filled === 0 ? 0 : sum((score) => score.precisionCredit) / filled
  const recall = expected === 0 ? 0 : sum((score) => score.recallCredit) / expected
  return {
    fixtures: scores.length,
    precision,
    recall,
    f1: precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall),
  }
}
