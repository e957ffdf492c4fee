/** `webdata monitor add <url...>`: a monitor over pages (or sites with `--crawl`), checked on a schedule. */
import { Args, Command, Options } from "@effect/cli"
import type { MonitorInput } from "@webdata/core/engine"
import { Console, Effect, Option } from "effect"
import { CliFailure } from "../CliFailure.js"
import { MonitorClient, withMonitorClient } from "../MonitorClient.js"
import { monitorRow } from "../MonitorOutput.js"
import { connection } from "./connection.js"
import { some } from "./fields.js"
import { jsonFlag, printJson } from "./monitorFlags.js"

const options = {
  urls: Args.text({ name: "url" }).pipe(
    Args.atLeast(1),
    Args.withDescription("A page to watch (with --crawl, a site); http:// is assumed without a scheme"),
  ),
  every: Options.text("every").pipe(
    Options.optional,
    Options.withDescription(
      'How often: "30 minutes", "hourly", "every 6 hours", "daily at 9am", "weekdays at 9am", "weekly on friday at 9am", "monthly"',
    ),
  ),
  cron: Options.text("cron").pipe(
    Options.optional,
    Options.withDescription('A five-field cron expression instead of --every, e.g. "*/30 * * * *"'),
  ),
  timezone: Options.text("timezone").pipe(
    Options.optional,
    Options.withDescription("The schedule's IANA time zone, e.g. Europe/Paris (default UTC)"),
  ),
  name: Options.text("name").pipe(
    Options.optional,
    Options.withDescription("The monitor's name (default: the first URL)"),
  ),
  webhook: Options.text("webhook").pipe(
    Options.optional,
    Options.withDescription("A URL that gets each changed page and the end of each check (signed POSTs)"),
  ),
  email: Options.text("email").pipe(
    Options.repeated,
    Options.withDescription("Mail what changed to this address (repeatable; the server needs WEBDATA_SMTP_URL)"),
  ),
  goal: Options.text("goal").pipe(
    Options.optional,
    Options.withDescription("What matters, in words: a language model judges each change by it"),
  ),
  crawl: Options.boolean("crawl").pipe(
    Options.withDescription("Crawl each URL as a site instead of scraping that page"),
  ),
  limit: Options.integer("limit").pipe(
    Options.optional,
    Options.withDescription("Pages of each crawl at most (with --crawl; default 100)"),
  ),
  json: jsonFlag("the monitor"),
  ...connection,
}

type AddArgs = Command.Command.ParseConfig<typeof options>

/** `--every`'s words as a schedule's text: a count gets its "every" ("30 minutes"); "hourly", "daily at 9am" stay. */
export const everyText = (every: string): string => {
  const text = every.trim()
  return /^\d/.test(text) ? `every ${text}` : text
}

const scheduleOf = (args: AddArgs): Effect.Effect<MonitorInput["schedule"], CliFailure> =>
  Option.isSome(args.every) && Option.isSome(args.cron)
    ? Effect.fail(new CliFailure("Give --every or --cron, not both"))
    : Option.isNone(args.every) && Option.isNone(args.cron)
      ? Effect.fail(new CliFailure('A monitor needs a schedule: --every "30 minutes" or --cron "*/30 * * * *"'))
      : Effect.succeed({
          ...some("text", Option.map(args.every, everyText)),
          ...some("cron", args.cron),
          ...some("timezone", args.timezone),
        })

const targetsOf = (args: AddArgs): Effect.Effect<MonitorInput["targets"], CliFailure> => {
  if (!args.crawl)
    return Option.isSome(args.limit)
      ? Effect.fail(new CliFailure("--limit bounds a crawl: use it with --crawl"))
      : Effect.succeed([{ type: "scrape", urls: args.urls }])
  const crawlOptions = Option.match(args.limit, {
    onNone: () => ({}),
    onSome: (limit) => ({ crawlOptions: { limit } }),
  })
  return Effect.succeed(args.urls.map((url) => ({ type: "crawl" as const, url, ...crawlOptions })))
}

/** The request body of the flags. */
const bodyOf = (args: AddArgs): Effect.Effect<MonitorInput, CliFailure> =>
  Effect.zipWith(scheduleOf(args), targetsOf(args), (schedule, targets) => ({
    name: Option.getOrElse(args.name, () => args.urls[0].slice(0, 256)),
    schedule,
    targets,
    ...Option.match(args.webhook, { onNone: () => ({}), onSome: (url) => ({ webhook: { url } }) }),
    ...(args.email.length > 0 ? { notification: { email: { enabled: true, recipients: args.email } } } : {}),
    ...some("goal", args.goal),
  }))

export const monitorAddCommand = Command.make("add", options, (args) =>
  Effect.gen(function* () {
    const body = yield* bodyOf(args)
    const created = yield* withMonitorClient(
      args,
      false,
      Effect.flatMap(MonitorClient, (client) => client.create(body)),
    )
    yield* args.json ? printJson(created) : Console.log(monitorRow(created))
    if (Option.isNone(args.apiUrl))
      yield* Console.error(
        `Checks run on schedule where a worker serves this store (webdata serve, webdata worker); webdata monitor run ${created.id} --wait runs one now.`,
      )
  }),
).pipe(
  Command.withDescription(
    'Add a monitor: pages (or sites with --crawl) checked on a schedule (--every "30 minutes" or --cron), changes sent to --webhook and --email',
  ),
)
