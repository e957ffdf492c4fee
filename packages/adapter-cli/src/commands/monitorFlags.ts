/** What the monitor commands share: the monitor's id, `--json`, and JSON on stdout. */
import { Args, Options } from "@effect/cli"
import { Console } from "effect"

export const monitorId = Args.text({ name: "id" }).pipe(Args.withDescription("The monitor's id"))

export const jsonFlag = (what: string) =>
  Options.boolean("json").pipe(Options.withDescription(`Print ${what} as JSON (the API's shape)`))

export const printJson = (value: unknown) => Console.log(JSON.stringify(value, null, 2))
