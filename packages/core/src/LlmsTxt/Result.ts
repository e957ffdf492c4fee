/**
 * An llms.txt job's answer, built from the pages it recorded whenever it is asked for (as an extract's is): the
 * start page first, the others by URL, so the same pages always give the same file.
 */
import { Effect } from "effect"
import { RequestError } from "../Errors.js"
import { pageErrorsLine } from "../Extract/ExtractResult.js"
import { pageTaskOf } from "../Extract/ExtractTasks.js"
import { decodeSpec, type LlmsTxtSpec } from "../Jobs/JobSpec.js"
import type { Job, JobErrorRecord, JobStore } from "../Jobs/JobStore.js"
import { addUsage, NO_USAGE, type TokenUsage } from "../Llm/Llm.js"
import { formatLlmsFullTxt, formatLlmsTxt, type LlmsSite, siteTitle } from "./Format.js"
import type { LlmsPageRecord } from "./Tasks.js"

export type LlmsTxtStatus = "processing" | "completed" | "failed"

export interface LlmsTxtOutcome {
  readonly status: LlmsTxtStatus
  /** Empty until completed. */
  readonly llmstxt: string
  /** With `showFullText`, once completed. */
  readonly llmsfulltxt?: string
  readonly error?: string
  readonly warnings: ReadonlyArray<string>
  readonly usage: TokenUsage
  readonly pages: number
  readonly failedPages: number
}

const keyOf = (url: string): string | undefined => pageTaskOf(url)?.key

/** The site the pages make: its title and summary from the start page, and every page's line. */
export const siteOf = (spec: LlmsTxtSpec, records: ReadonlyArray<LlmsPageRecord>): LlmsSite => {
  const startKey = keyOf(spec.url)
  // Known by the URL its task asked for: the start page may redirect (to https, to a language's home).
  const start = records.find((record) => keyOf(record.sourceURL) === startKey)
  // Two URLs that redirect to one page make one line.
  const listed = new Set(start === undefined ? [] : [keyOf(start.url)])
  const others = records
    .filter((record) => {
      const key = keyOf(record.url)
      if (record === start || listed.has(key)) return false
      listed.add(key)
      return true
    })
    .sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0))
  return {
    title: siteTitle(spec.url, start),
    summary: start?.line ?? "",
    pages: start === undefined ? others : [start, ...others],
  }
}

export const llmsTxtOutcome = (
  job: Job,
  spec: LlmsTxtSpec,
  records: ReadonlyArray<LlmsPageRecord>,
  errors: ReadonlyArray<JobErrorRecord>,
): LlmsTxtOutcome => {
  const usage = records.reduce((sum, record) => addUsage(sum, record.usage), NO_USAGE)
  const base = { llmstxt: "", warnings: [], usage, pages: records.length, failedPages: errors.length }
  if (job.status === "scraping") return { ...base, status: "processing" }
  if (job.status !== "completed")
    return {
      ...base,
      status: "failed",
      error: job.error ?? (job.status === "cancelled" ? "The generation was cancelled." : "The generation failed."),
    }
  if (records.length === 0)
    return {
      ...base,
      status: "failed",
      error:
        errors.length === 0
          ? `No page of ${spec.url} could be read.`
          : `No page of the site could be read: ${pageErrorsLine(errors)}`,
    }
  const site = siteOf(spec, records)
  return {
    ...base,
    status: "completed",
    llmstxt: formatLlmsTxt(site),
    ...(spec.showFullText ? { llmsfulltxt: formatLlmsFullTxt(site) } : {}),
    warnings: errors.length > 0 ? [`${errors.length} page(s) could not be read and are not listed.`] : [],
  }
}

/** The pages and errors of an llms.txt job, read back for its answer. */
export const readLlmsTxt = (store: JobStore["Type"], job: Job) =>
  Effect.gen(function* () {
    const spec = yield* decodeSpec(job.options)
    if (spec.kind !== "llmstxt")
      return yield* new RequestError({ reason: "NotFound", code: "NOT_FOUND", message: "Job not found" })
    const stored = yield* store.documents(job.id, { skip: 0, limit: spec.maxUrls + 10 })
    const { errors } = yield* store.errors(job.id)
    return llmsTxtOutcome(
      job,
      spec,
      stored.map((entry) => entry.document as LlmsPageRecord),
      errors,
    )
  })
