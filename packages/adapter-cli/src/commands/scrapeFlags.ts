/** The scrape options every command that scrapes pages offers (scrape, crawl, batch), and the request part they make. */
import { Options } from "@effect/cli"
import type { ScrapeOptionsInput } from "@webdata/core"
import { Effect, Option } from "effect"
import { CliFailure } from "../CliFailure.js"

export const scrapeFlags = {
  format: Options.text("format").pipe(
    Options.withAlias("f"),
    Options.repeated,
    Options.withDescription("Output format: markdown (default), html, rawHtml, links, images; repeat for several"),
  ),
  noMainContent: Options.boolean("no-main-content").pipe(
    Options.withDescription("Keep navigation, headers and footers instead of extracting the main content"),
  ),
  includeTags: Options.text("include-tags").pipe(
    Options.repeated,
    Options.withDescription("CSS selector of elements to keep (repeatable; commas separate several)"),
  ),
  excludeTags: Options.text("exclude-tags").pipe(
    Options.repeated,
    Options.withDescription("CSS selector of elements to remove (repeatable; commas separate several)"),
  ),
  timeout: Options.integer("timeout").pipe(
    Options.optional,
    Options.withDescription("Timeout of each page's scrape in milliseconds (default 60000)"),
  ),
  header: Options.text("header").pipe(
    Options.withAlias("H"),
    Options.repeated,
    Options.withDescription('Request header "Name: value" sent to the target (repeatable)'),
  ),
}

export interface ScrapeFlags {
  readonly format: ReadonlyArray<string>
  readonly noMainContent: boolean
  readonly includeTags: ReadonlyArray<string>
  readonly excludeTags: ReadonlyArray<string>
  readonly timeout: Option.Option<number>
  readonly header: ReadonlyArray<string>
}

/** Repeated values where each may also hold a comma-separated list. */
export const splitList = (values: ReadonlyArray<string>): Array<string> =>
  values
    .flatMap((value) => value.split(","))
    .map((value) => value.trim())
    .filter((value) => value !== "")

const parseHeaders = (values: ReadonlyArray<string>): Effect.Effect<Record<string, string>, CliFailure> =>
  Effect.forEach(values, (value) => {
    const colon = value.indexOf(":")
    return colon <= 0
      ? Effect.fail(new CliFailure(`Invalid --header "${value}": expected "Name: value"`))
      : Effect.succeed([value.slice(0, colon).trim(), value.slice(colon + 1).trim()] as const)
  }).pipe(Effect.map(Object.fromEntries))

/** The formats asked for, markdown when none. */
export const formatsOf = (flags: ScrapeFlags): Array<string> =>
  flags.format.length > 0 ? splitList(flags.format) : ["markdown"]

/** The v2 scrape options the flags stand for (only what was given, so the server's defaults apply). */
export const scrapeOptionsOf = (flags: ScrapeFlags): Effect.Effect<Omit<ScrapeOptionsInput, "url">, CliFailure> =>
  Effect.map(parseHeaders(flags.header), (headers) => {
    const includeTags = splitList(flags.includeTags)
    const excludeTags = splitList(flags.excludeTags)
    return {
      formats: formatsOf(flags),
      onlyMainContent: !flags.noMainContent,
      ...(includeTags.length > 0 ? { includeTags } : {}),
      ...(excludeTags.length > 0 ? { excludeTags } : {}),
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
      ...Option.match(flags.timeout, { onNone: () => ({}), onSome: (timeout) => ({ timeout }) }),
    }
  })
