/** `webdata crawl <url>`: crawl a site and print (or write) every page as it is scraped. */
import { Args, Command, Options } from "@effect/cli"
import { Effect } from "effect"
import { withJobClient } from "../JobClient.js"
import { outputFlags } from "../PageOutput.js"
import { runJob } from "../RunJob.js"
import { connection } from "./connection.js"
import { list, some, when } from "./fields.js"
import { formatsOf, scrapeFlags, scrapeOptionsOf } from "./scrapeFlags.js"

const flag = (name: string, description: string) => Options.boolean(name).pipe(Options.withDescription(description))

const options = {
  url: Args.text({ name: "url" }).pipe(
    Args.withDescription("Where the crawl starts (http:// is assumed without a scheme)"),
  ),
  limit: Options.integer("limit").pipe(
    Options.optional,
    Options.withDescription("Pages to crawl at most (default 10000)"),
  ),
  maxDepth: Options.integer("max-depth").pipe(
    Options.optional,
    Options.withDescription("Link hops from the start page to follow (maxDiscoveryDepth; 0 = the start page only)"),
  ),
  includePaths: Options.text("include-paths").pipe(
    Options.repeated,
    Options.withDescription("Regex the URL path must match to be crawled (repeatable)"),
  ),
  excludePaths: Options.text("exclude-paths").pipe(
    Options.repeated,
    Options.withDescription("Regex of URL paths to leave out (repeatable)"),
  ),
  crawlEntireDomain: flag("crawl-entire-domain", "Follow links anywhere on the domain, not only below the start path"),
  allowSubdomains: flag("allow-subdomains", "Follow links to subdomains of the start host"),
  allowExternalLinks: flag("allow-external-links", "Follow links to other sites"),
  sitemap: Options.choice("sitemap", ["include", "skip", "only"]).pipe(
    Options.optional,
    Options.withDescription("Use the site's sitemap too (include, default), not at all (skip), or only it (only)"),
  ),
  ignoreQueryParameters: flag("ignore-query-parameters", "Treat URLs that differ only in their query as one page"),
  delay: Options.float("delay").pipe(
    Options.optional,
    Options.withDescription("Seconds to wait between two fetches (the crawl then fetches one page at a time)"),
  ),
  maxConcurrency: Options.integer("max-concurrency").pipe(
    Options.optional,
    Options.withDescription("Pages of this crawl fetched at once"),
  ),
  prompt: Options.text("prompt").pipe(
    Options.optional,
    Options.withDescription('Crawl options in words, e.g. "only the blog, up to 2 levels deep"; explicit options win'),
  ),
  ...scrapeFlags,
  ...outputFlags,
  ...connection,
}

export const crawlCommand = Command.make("crawl", options, (args) =>
  withJobClient(
    args,
    Effect.gen(function* () {
      const body = {
        url: args.url,
        ...some("limit", args.limit),
        ...some("maxDiscoveryDepth", args.maxDepth),
        ...list("includePaths", args.includePaths),
        ...list("excludePaths", args.excludePaths),
        ...when("crawlEntireDomain", args.crawlEntireDomain),
        ...when("allowSubdomains", args.allowSubdomains),
        ...when("allowExternalLinks", args.allowExternalLinks),
        ...some("sitemap", args.sitemap),
        ...when("ignoreQueryParameters", args.ignoreQueryParameters),
        ...some("delay", args.delay),
        ...some("maxConcurrency", args.maxConcurrency),
        ...some("prompt", args.prompt),
        scrapeOptions: yield* scrapeOptionsOf(args),
      }
      yield* runJob("crawl", body, {
        jsonl: args.jsonl,
        output: args.output,
        formats: formatsOf(args),
        startUrl: args.url,
      })
    }),
  ),
).pipe(
  Command.withDescription(
    "Crawl a site: print each page as markdown (or --jsonl, or -o dir), with live progress on a terminal; Ctrl-C cancels",
  ),
)
