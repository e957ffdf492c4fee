/**
 * Monitors for the CLI: those of the store this process opens (what `WEBDATA_STORE` names, by default the SQLite file
 * of `webdata serve`), or a server's (`--api-url`). Both answer in the API's shapes. The clients themselves
 * (`MonitorClientLayers.ts`) load with the first command that needs one.
 */
import type {
  MonitorCheck,
  MonitorCheckDetail,
  MonitorCheckOptions,
  MonitorChecksOptions,
  MonitorInput,
  MonitorListOptions,
  MonitorUpdate,
  MonitorView,
} from "@webdata/core/engine"
import { Context, type Effect } from "effect"
import type { CliFailure } from "./CliFailure.js"
import { type Connection, withClient } from "./Connection.js"

export interface MonitorClientShape {
  readonly create: (input: MonitorInput) => Effect.Effect<MonitorView, CliFailure>
  readonly list: (page: MonitorListOptions) => Effect.Effect<ReadonlyArray<MonitorView>, CliFailure>
  readonly get: (id: string) => Effect.Effect<MonitorView, CliFailure>
  readonly update: (id: string, input: MonitorUpdate) => Effect.Effect<MonitorView, CliFailure>
  readonly delete: (id: string) => Effect.Effect<void, CliFailure>
  /** Starts a check now; it answers the check as it starts. */
  readonly run: (id: string) => Effect.Effect<MonitorCheck, CliFailure>
  readonly checks: (id: string, page: MonitorChecksOptions) => Effect.Effect<ReadonlyArray<MonitorCheck>, CliFailure>
  /** A check with a page of its pages; `next` is where the following page starts. */
  readonly check: (
    id: string,
    checkId: string,
    page: MonitorCheckOptions,
  ) => Effect.Effect<MonitorCheckDetail, CliFailure>
  /** Reads the check until it has ended (any status but `queued` and `running`). */
  readonly ended: (id: string, checkId: string) => Effect.Effect<MonitorCheck, CliFailure>
}

export class MonitorClient extends Context.Tag("@webdata/adapter-cli/MonitorClient")<
  MonitorClient,
  MonitorClientShape
>() {}

/**
 * Runs `effect` with the client the connection options choose. In process, `runsChecks` gives the engine a worker
 * (a command that waits for a check needs one); the others leave the store's checks to the workers that serve it.
 */
export const withMonitorClient = <A, E, R>(
  args: Connection,
  runsChecks: boolean,
  effect: Effect.Effect<A, E, R>,
): Effect.Effect<A, E, Exclude<R, MonitorClient>> =>
  withClient(
    args,
    () =>
      import("./MonitorClientLayers.js").then((layers) => ({
        layerLocal: layers.layerLocal(runsChecks),
        layerRemote: layers.layerRemote,
      })),
    effect,
  )
