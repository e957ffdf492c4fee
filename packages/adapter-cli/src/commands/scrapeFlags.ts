/** The scrape options every command that scrapes pages offers (scrape, crawl, batch), and the request part they make. */
import { Options } from "@effect/cli"
import type { ScrapeOptionsInput } from "@webdata/core"
import { Effect, Option } from "effect"
import { CliFailure } from "../CliFailure.js"
import { parseActions } from "./actionSpec.js"

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
  waitFor: Options.integer("wait-for").pipe(
    Options.optional,
    Options.withDescription("Milliseconds to wait after the page loaded, in the browser"),
  ),
  action: Options.text("action").pipe(
    Options.withAlias("a"),
    Options.repeated,
    Options.withDescription(
      "Browser action before the page is read (repeatable, in order): click:<selector>, click-all:<selector>, wait:<ms or selector>, write:<text>, press:<key>, scroll:<up|down|selector>, js:<script>, screenshot[:full], scrape, pdf",
    ),
  ),
  mobile: Options.boolean("mobile").pipe(Options.withDescription("Visit as a phone (viewport, touch, user agent)")),
  country: Options.text("country").pipe(
    Options.optional,
    Options.withDescription("Visit from this country (ISO code: de, fr, jp, ...): locale, time zone, Accept-Language"),
  ),
}

export interface ScrapeFlags {
  readonly format: ReadonlyArray<string>
  readonly noMainContent: boolean
  readonly includeTags: ReadonlyArray<string>
  readonly excludeTags: ReadonlyArray<string>
  readonly timeout: Option.Option<number>
  readonly header: ReadonlyArray<string>
  readonly waitFor: Option.Option<number>
  readonly action: ReadonlyArray<string>
  readonly mobile: boolean
  readonly country: Option.Option<string>
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
  Effect.map(Effect.all([parseHeaders(flags.header), parseActions(flags.action)]), ([headers, actions]) => {
    const includeTags = splitList(flags.includeTags)
    const excludeTags = splitList(flags.excludeTags)
    return {
      formats: formatsOf(flags),
      ...(actions.length > 0 ? { actions } : {}),
      ...(flags.mobile ? { mobile: true } : {}),
      ...Option.match(flags.waitFor, { onNone: () => ({}), onSome: (waitFor) => ({ waitFor }) }),
      ...Option.match(flags.country, { onNone: () => ({}), onSome: (country) => ({ location: { country } }) }),
      onlyMainContent: !flags.noMainContent,
      ...(includeTags.length > 0 ? { includeTags } : {}),
      ...(excludeTags.length > 0 ? { excludeTags } : {}),
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
      ...Option.match(flags.timeout, { onNone: () => ({}), onSome: (timeout) => ({ timeout }) }),
    }
  })
