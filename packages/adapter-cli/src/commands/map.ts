/** `webdata map <url>`: a site's URLs, one per line (or JSON with titles and descriptions). */
import { Args, Command, Options } from "@effect/cli"
import { Console, Effect } from "effect"
import { JobClient, withJobClient } from "../JobClient.js"
import { connection } from "./connection.js"
import { some } from "./fields.js"

const options = {
  url: Args.text({ name: "url" }).pipe(Args.withDescription("The site to map (http:// is assumed without a scheme)")),
  search: Options.text("search").pipe(
    Options.optional,
    Options.withDescription("Order the URLs by relevance to this query (nothing is dropped)"),
  ),
  limit: Options.integer("limit").pipe(
    Options.optional,
    Options.withDescription("URLs to return at most (default 5000, at most 100000)"),
  ),
  sitemap: Options.choice("sitemap", ["include", "skip", "only"]).pipe(
    Options.optional,
    Options.withDescription("Use the site's sitemap too (include, default), not at all (skip), or only it (only)"),
  ),
  includeSubdomains: Options.boolean("include-subdomains").pipe(
    Options.withDescription("Also list URLs on subdomains of the start host (the API's default; off here)"),
  ),
  timeout: Options.integer("timeout").pipe(
    Options.optional,
    Options.withDescription("Budget of the whole map in milliseconds (default: answer with what was found in 30 s)"),
  ),
  json: Options.boolean("json").pipe(
    Options.withDescription("Print the answer as JSON: { links: [{ url, title?, description? }] }"),
  ),
  ...connection,
}

export const mapCommand = Command.make("map", options, (args) =>
  withJobClient(
    args,
    Effect.gen(function* () {
      const client = yield* JobClient
      const answer = yield* client.map({
        url: args.url,
        ...some("search", args.search),
        ...some("limit", args.limit),
        ...some("sitemap", args.sitemap),
        includeSubdomains: args.includeSubdomains,
        ...some("timeout", args.timeout),
      })
      if (args.json) return yield* Console.log(JSON.stringify(answer, null, 2))
      if (answer.warning !== undefined) yield* Console.error(`warning: ${answer.warning}`)
      if (answer.links.length > 0) yield* Console.log(answer.links.map((link) => link.url).join("\n"))
    }),
  ),
).pipe(Command.withDescription("List a site's URLs from its sitemaps and links, one per line"))
