/**
 * `webdata monitor …`: monitors of the local store (what `webdata serve` checks on schedule) or of a server
 * (`--api-url`): add, list, get, run a check now, read checks and their pages, pause, resume, delete.
 */
import { Args, Command, Options } from "@effect/cli"
import type { MonitorCheckDetail, MonitorCheckStatus, MonitorPageStatus, MonitorView } from "@webdata/core/engine"
import { Console, Effect, Option } from "effect"
import { CliFailure } from "../CliFailure.js"
import type { Connection } from "../Connection.js"
import { oneLine } from "../FollowRun.js"
import { MonitorClient, type MonitorClientShape, withMonitorClient } from "../MonitorClient.js"
import { checkHeadline, checkRow, monitorLines, monitorRow, pageRow } from "../MonitorOutput.js"
import { stopOnCtrlC } from "../Signals.js"
import { connection } from "./connection.js"
import { some } from "./fields.js"
import { monitorAddCommand } from "./monitorAdd.js"
import { jsonFlag, monitorId, printJson } from "./monitorFlags.js"

/** Rows read per request when a command reads a whole list. */
const PAGE = 100

// The statuses of core's `Monitor/Records.ts`, written out: `--help` must not load the engine to list them.
const CHECK_STATUSES: ReadonlyArray<MonitorCheckStatus> = [
  "queued",
  "running",
  "completed",
  "failed",
  "partial",
  "skipped_overlap",
]
const PAGE_STATUSES: ReadonlyArray<MonitorPageStatus> = ["same", "new", "changed", "removed", "error"]

/** `effect` with the monitor client of the connection options; the engine's worker only for `runsChecks`. */
const withClient = <A>(
  args: Connection,
  use: (client: MonitorClientShape) => Effect.Effect<A, CliFailure>,
  runsChecks = false,
) => withMonitorClient(args, runsChecks, Effect.flatMap(MonitorClient, use))

/** Every monitor, page after page. */
const allMonitors = (client: MonitorClientShape) =>
  Effect.gen(function* () {
    const monitors: Array<MonitorView> = []
    for (;;) {
      const read = yield* client.list({ offset: monitors.length, limit: PAGE })
      monitors.push(...read)
      if (read.length < PAGE) return monitors
    }
  })

/** The check with every page (of `status`), page after page. */
const wholeCheck = (client: MonitorClientShape, id: string, checkId: string, status?: MonitorPageStatus) =>
  Effect.gen(function* () {
    const pages: Array<MonitorCheckDetail["pages"][number]> = []
    for (let skip = 0; ; ) {
      const { next, ...read } = yield* client.check(id, checkId, {
        skip,
        limit: PAGE,
        ...(status !== undefined ? { status } : {}),
      })
      pages.push(...read.pages)
      if (next === undefined) return { ...read, pages }
      skip = next
    }
  })

/** The headline and a row per page, each changed page's diff under it with `diff`. */
const printCheck = (check: MonitorCheckDetail, diff: boolean) =>
  Effect.gen(function* () {
    yield* Console.log(checkHeadline(check))
    for (const page of check.pages) {
      yield* Console.log(pageRow(page))
      if (diff && page.diff?.text !== undefined) yield* Console.log(page.diff.text.trimEnd())
    }
  })

const listCommand = Command.make("list", { json: jsonFlag("the monitors"), ...connection }, (args) =>
  withClient(args, (client) =>
    Effect.flatMap(allMonitors(client), (monitors) =>
      args.json ? printJson(monitors) : Effect.forEach(monitors, (monitor) => Console.log(monitorRow(monitor))),
    ),
  ),
).pipe(Command.withDescription("List the monitors: id, status, schedule, next run, name (tab-separated)"))

const getCommand = Command.make("get", { id: monitorId, json: jsonFlag("the monitor"), ...connection }, (args) =>
  withClient(args, (client) =>
    Effect.flatMap(client.get(args.id), (monitor) =>
      args.json ? printJson(monitor) : Console.log(monitorLines(monitor).join("\n")),
    ),
  ),
).pipe(Command.withDescription("Show a monitor: its schedule, targets, notifications and last check"))

const runOptions = {
  id: monitorId,
  wait: Options.boolean("wait").pipe(
    Options.withDescription(
      "Wait for the check's end, then print what it found and the pages that did not stay the same",
    ),
  ),
  json: jsonFlag("the check (with --wait, with its pages)"),
  ...connection,
}

/** Starts a check and prints it; in process no worker runs here, so the note says who will run it. */
const start = (client: MonitorClientShape, args: { readonly id: string; readonly json: boolean }, remote: boolean) =>
  Effect.gen(function* () {
    const started = yield* client.run(args.id)
    yield* args.json ? printJson(started) : Console.log(checkRow(started))
    if (!remote)
      yield* Console.error(
        "The check runs where a worker serves this store (webdata serve, webdata worker); --wait runs it here.",
      )
  })

/** Runs a check (or follows the one under way: a worker may not have taken it yet) and waits for its end. */
const runAndWait = (
  client: MonitorClientShape,
  args: { readonly id: string; readonly json: boolean },
  remote: boolean,
) =>
  Effect.gen(function* () {
    const running = (yield* client.get(args.id)).currentCheckId
    if (running !== null) yield* Console.error(`A check of this monitor is under way: following it (${running}).`)
    const checkId = running ?? (yield* client.run(args.id)).id
    const ended = yield* Effect.raceFirst(
      client.ended(args.id, checkId),
      stopOnCtrlC(
        Effect.void,
        `stopped following check ${checkId} (${remote ? "it runs on at the server" : "a worker that serves the store finishes it"})`,
      ),
    )
    const check = yield* wholeCheck(client, args.id, ended.id)
    if (args.json) yield* printJson(check)
    else yield* printCheck({ ...check, pages: check.pages.filter((page) => page.status !== "same") }, false)
    if (check.status === "failed")
      return yield* Effect.fail(new CliFailure(`The check failed${check.error ? `: ${oneLine(check.error)}` : ""}`))
  })

const runCommand = Command.make("run", runOptions, (args) =>
  withClient(args, (client) => (args.wait ? runAndWait : start)(client, args, Option.isSome(args.apiUrl)), args.wait),
).pipe(Command.withDescription("Run a check now (--wait: wait for its end and print what changed)"))

const checksOptions = {
  id: monitorId,
  status: Options.choice("status", CHECK_STATUSES).pipe(
    Options.optional,
    Options.withDescription(`Only the checks of this status: ${CHECK_STATUSES.join(", ")}`),
  ),
  limit: Options.integer("limit").pipe(
    Options.optional,
    Options.withDescription("Checks at most, newest first (default 25, at most 100)"),
  ),
  json: jsonFlag("the checks"),
  ...connection,
}

const checksCommand = Command.make("checks", checksOptions, (args) =>
  withClient(args, (client) =>
    Effect.flatMap(
      client.checks(args.id, { ...some("status", args.status), ...some("limit", args.limit) }),
      (checks) => (args.json ? printJson(checks) : Effect.forEach(checks, (check) => Console.log(checkRow(check)))),
    ),
  ),
).pipe(
  Command.withDescription(
    "List a monitor's checks, newest first: id, status, trigger, start, what it found (tab-separated)",
  ),
)

const checkOptions = {
  id: monitorId,
  checkId: Args.text({ name: "checkId" }).pipe(Args.withDescription("The check's id")),
  status: Options.choice("status", PAGE_STATUSES).pipe(
    Options.optional,
    Options.withDescription(`Only the pages of this status: ${PAGE_STATUSES.join(", ")}`),
  ),
  diff: Options.boolean("diff").pipe(Options.withDescription("Print each changed page's diff under it")),
  json: jsonFlag("the check with its pages"),
  ...connection,
}

const checkCommand = Command.make("check", checkOptions, (args) =>
  withClient(args, (client) =>
    Effect.flatMap(wholeCheck(client, args.id, args.checkId, Option.getOrUndefined(args.status)), (check) =>
      args.json ? printJson(check) : printCheck(check, args.diff),
    ),
  ),
).pipe(Command.withDescription("Show a check: what it found, then each page's status and URL (--diff: what changed)"))

/** `pause` and `resume`: the monitor's status, and the row that shows it. */
const statusCommand = (name: "pause" | "resume", status: "paused" | "active", description: string) =>
  Command.make(name, { id: monitorId, json: jsonFlag("the monitor"), ...connection }, (args) =>
    withClient(args, (client) =>
      Effect.flatMap(client.update(args.id, { status }), (monitor) =>
        args.json ? printJson(monitor) : Console.log(monitorRow(monitor)),
      ),
    ),
  ).pipe(Command.withDescription(description))

const deleteCommand = Command.make("delete", { id: monitorId, ...connection }, (args) =>
  withClient(args, (client) => Effect.zipRight(client.delete(args.id), Console.log(`Monitor ${args.id} deleted`))),
).pipe(Command.withDescription("Delete a monitor with its checks (a running check is cancelled)"))

const SUBCOMMANDS = "add, list, get, run, checks, check, pause, resume or delete"

export const monitorCommand = Command.make("monitor", {}, () =>
  Effect.fail(new CliFailure(`Missing subcommand: ${SUBCOMMANDS} (see webdata monitor --help)`)),
).pipe(
  Command.withDescription(
    "Monitors: pages, sites and searches checked on a schedule, each check saying what changed. Checks run on schedule where a worker runs (webdata serve, webdata worker)",
  ),
  Command.withSubcommands([
    monitorAddCommand,
    listCommand,
    getCommand,
    runCommand,
    checksCommand,
    checkCommand,
    statusCommand("pause", "paused", "Pause a monitor: no scheduled checks until it is resumed"),
    statusCommand("resume", "active", "Resume a paused monitor: its next check at its schedule's next time"),
    deleteCommand,
  ]),
)
