/**
 * `webdata search "<query>"`: results of the configured providers (`WEBDATA_SEARCH`; by default the local index of
 * the pages in `WEBDATA_STORE`), one per line with title and URL, or JSON; `--scrape` adds each result's markdown.
 */
import { Args, Command, Options } from "@effect/cli"
import { Console, Effect } from "effect"
import { JobClient, type SearchAnswer, type SearchItem, withJobClient } from "../JobClient.js"
import { connection } from "./connection.js"
import { list, some } from "./fields.js"

const options = {
  query: Args.text({ name: "query" }).pipe(Args.withDescription("What to search for")),
  source: Options.choice("source", ["web", "news", "images"]).pipe(
    Options.repeated,
    Options.withDescription("Which results: web (default), news, images (repeatable)"),
  ),
  limit: Options.integer("limit").pipe(
    Options.optional,
    Options.withDescription("Results per source at most (default 10, at most 100)"),
  ),
  scrape: Options.boolean("scrape").pipe(
    Options.withDescription("Scrape every web and news result and print its markdown"),
  ),
  category: Options.choice("category", ["github", "research", "pdf"]).pipe(
    Options.repeated,
    Options.withDescription("Only results of this kind: github, research (papers), pdf (repeatable)"),
  ),
  includeDomain: Options.text("include-domain").pipe(
    Options.repeated,
    Options.withDescription("Only results from this host and its subdomains (repeatable)"),
  ),
  excludeDomain: Options.text("exclude-domain").pipe(
    Options.repeated,
    Options.withDescription("No results from this host and its subdomains (repeatable)"),
  ),
  tbs: Options.text("tbs").pipe(
    Options.optional,
    Options.withDescription("Time filter: qdr:h|d|w|m|y, or cdr:1,cd_min:MM/DD/YYYY,cd_max:MM/DD/YYYY"),
  ),
  lang: Options.text("lang").pipe(Options.optional, Options.withDescription("Language of the results (default en)")),
  country: Options.text("country").pipe(
    Options.optional,
    Options.withDescription("Country of the results, e.g. us (the default), de"),
  ),
  location: Options.text("location").pipe(
    Options.optional,
    Options.withDescription('Place of the results, e.g. "Berlin,Germany"'),
  ),
  timeout: Options.integer("timeout").pipe(
    Options.optional,
    Options.withDescription("Budget of the whole search in milliseconds, scrapes included (default 60000)"),
  ),
  json: Options.boolean("json").pipe(
    Options.withDescription("Print the answer as JSON: { data: { web?, news?, images? }, creditsUsed, warning? }"),
  ),
  ...connection,
}

const describe = (item: SearchItem, scraped: boolean): string => {
  const title = item.title ?? item.url
  const lines = [`${item.position ?? "-"}. ${title}`, `   ${item.imageUrl ?? item.url}`]
  if (!scraped && item.description) lines.push(`   ${item.description}`)
  if (scraped && typeof item.markdown === "string") lines.push("", item.markdown.trim(), "")
  return lines.join("\n")
}

const print = (answer: SearchAnswer, scraped: boolean) =>
  Effect.gen(function* () {
    if (answer.warning !== undefined) yield* Console.error(`warning: ${answer.warning}`)
    const sources = (["web", "news", "images"] as const).filter((source) => answer.data[source] !== undefined)
    for (const source of sources) {
      const items = answer.data[source] ?? []
      if (sources.length > 1) yield* Console.log(`# ${source}`)
      if (items.length === 0) yield* Console.error(`No ${source} results.`)
      for (const item of items) yield* Console.log(describe(item, scraped))
    }
  })

export const searchCommand = Command.make("search", options, (args) =>
  withJobClient(
    args,
    Effect.gen(function* () {
      const client = yield* JobClient
      const answer = yield* client.search({
        query: args.query,
        ...list("sources", args.source),
        ...some("limit", args.limit),
        ...list("categories", args.category),
        ...list("includeDomains", args.includeDomain),
        ...list("excludeDomains", args.excludeDomain),
        ...some("tbs", args.tbs),
        ...some("lang", args.lang),
        ...some("country", args.country),
        ...some("location", args.location),
        ...some("timeout", args.timeout),
        ...(args.scrape ? { scrapeOptions: { formats: ["markdown"] } } : {}),
      })
      if (args.json) return yield* Console.log(JSON.stringify(answer, null, 2))
      yield* print(answer, args.scrape)
    }),
  ),
).pipe(Command.withDescription("Search the web (or the pages scraped so far) and optionally scrape the results"))
