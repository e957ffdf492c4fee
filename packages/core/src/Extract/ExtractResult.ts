/**
 * An extract's answer, computed from what its pages gave: their values merged (arrays concatenated and
 * deduplicated, scalars by agreement), each value traced to the URLs it came from, checked against the schema, and
 * the tokens spent. Computed when asked rather than stored, so a job resumed after a crash needs no final step.
 */
import { Effect } from "effect"
import { prepareSchema } from "../Domain/JsonSchema.js"
import { RequestError } from "../Errors.js"
import { decodeSpec, type ExtractSpec } from "../Jobs/JobSpec.js"
import type { Job, JobErrorRecord, JobStore } from "../Jobs/JobStore.js"
import { addUsage, NO_USAGE, type TokenUsage } from "../Llm/Llm.js"
import { schemaErrors } from "../Llm/SchemaValidation.js"
import type { PageRecord } from "./ExtractTasks.js"
import { mergeValues } from "./Merge.js"

export type ExtractStatus = "processing" | "completed" | "failed" | "cancelled"

/** Why an extract past its `timeout` failed. */
export const EXTRACT_TIMED_OUT = "The extract did not finish within its timeout."

export interface ExtractOutcome {
  readonly status: ExtractStatus
  /** The merged value once completed; `[]` before, as Firecrawl answers. */
  readonly data: unknown
  /** Field path (`products[0].name`) → the URLs that gave it. */
  readonly sources: Readonly<Record<string, ReadonlyArray<string>>>
  readonly error?: string
  readonly warnings: ReadonlyArray<string>
  readonly usage: TokenUsage
  /** Pages read, and pages that could not be read. */
  readonly pages: number
  readonly failedPages: number
}

/** `/products/0/name` → `products[0].name`. */
const fieldPath = (pointer: string): string =>
  pointer
    .split("/")
    .slice(1)
    .map((part) => part.replaceAll("~1", "/").replaceAll("~0", "~"))
    .reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path === "" ? part : `${path}.${part}`), "")

const isEmptyValue = (value: unknown): boolean =>
  value === null ||
  value === undefined ||
  (Array.isArray(value) && value.length === 0) ||
  (typeof value === "object" && Object.keys(value).length === 0)

/** The first few of a job's page errors, as one line: `url: message; url: message (and 4 more)`. */
export const pageErrorsLine = (errors: ReadonlyArray<JobErrorRecord>): string =>
  `${errors
    .slice(0, 3)
    .map((error) => `${error.url}: ${error.message}`)
    .join("; ")}${errors.length > 3 ? ` (and ${errors.length - 3} more)` : ""}`

const failureMessage = (errors: ReadonlyArray<JobErrorRecord>): string =>
  errors.length === 0 ? "No page gave any of the requested data." : `No page could be read: ${pageErrorsLine(errors)}`

export const extractOutcome = (
  job: Job,
  spec: ExtractSpec,
  records: ReadonlyArray<PageRecord>,
  errors: ReadonlyArray<JobErrorRecord>,
): ExtractOutcome => {
  const usage = records.reduce((sum, record) => addUsage(sum, record.usage), NO_USAGE)
  const base = { sources: {}, warnings: spec.warnings, usage, pages: records.length, failedPages: errors.length }
  if (job.status === "scraping") return { ...base, status: "processing", data: [] }
  if (job.status === "cancelled") return { ...base, status: "cancelled", data: [] }
  if (job.status === "failed") return { ...base, status: "failed", data: [], error: job.error ?? "The extract failed." }
  const found = records.filter((record) => !isEmptyValue(record.value))
  if (found.length === 0) return { ...base, status: "failed", data: [], error: failureMessage(errors) }
  const merged = mergeValues(found.map((record) => ({ source: record.url, value: record.value })))
  const sources = Object.fromEntries(
    Object.entries(merged.sources).map(([pointer, urls]) => [fieldPath(pointer) || "$", urls]),
  )
  const warnings = [...spec.warnings]
  if (errors.length > 0) warnings.push(`${errors.length} page(s) could not be read; see the job's errors.`)
  if (spec.schema !== undefined) {
    const problems = schemaErrors(prepareSchema(spec.schema).callerSchema, merged.value)
    if (problems.length > 0)
      warnings.push(`The merged data does not fully match the schema: ${problems.slice(0, 5).join("; ")}`)
  }
  return { ...base, status: "completed", data: merged.value, sources, warnings }
}

/** Pages, status and errors of an extract job, read back for its answer and its final webhook. */
export const readExtract = (store: JobStore["Type"], job: Job) =>
  Effect.gen(function* () {
    const spec = yield* decodeSpec(job.options)
    if (spec.kind !== "extract")
      return yield* new RequestError({ reason: "NotFound", code: "NOT_FOUND", message: "Job not found" })
    const stored = yield* store.documents(job.id, { skip: 0, limit: spec.pageLimit + 10 })
    const { errors } = yield* store.errors(job.id)
    const records = stored.map((entry) => entry.document as PageRecord)
    return { spec, outcome: extractOutcome(job, spec, records, errors) }
  })
