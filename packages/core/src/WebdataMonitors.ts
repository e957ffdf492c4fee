/**
 * Monitors in the Promise facade (`webdata.monitors`): pages, sites and searches checked on a schedule, each check
 * saying what changed since the previous one. Checks run on the engine's worker: on schedule while the `Webdata`
 * lives (a durable `store` keeps monitors across restarts), or now with `run` / `runAndWait`.
 */
import { Duration, Effect } from "effect"
import type { MonitorCreateRequest, MonitorUpdateRequest } from "./Domain/MonitorRequest.js"
import { RequestError } from "./Errors.js"
import type { CheckStatus, PageStatus } from "./Monitor/Records.js"
import { type CheckDetailView, type CheckView, Monitor, type MonitorView } from "./Monitor.js"
import type { Runner } from "./WebdataSession.js"

/** What `create` takes: the body of `POST /v2/monitor` (name, schedule, targets, webhook, notification, ...). */
export type MonitorInput = typeof MonitorCreateRequest.Encoded
/** What `update` takes: the fields to change, and `status` (`"paused"` / `"active"`). */
export type MonitorUpdate = typeof MonitorUpdateRequest.Encoded
/** A check, in Firecrawl's `MonitorCheck` shape. */
export type MonitorCheck = CheckView
export type { CheckStatus as MonitorCheckStatus, MonitorView, PageStatus as MonitorPageStatus }

/** A check with one page of its pages; `next` is the `skip` of the following page when more follow. */
export type MonitorCheckDetail = CheckDetailView & { readonly next?: number }

export interface MonitorListOptions {
  /** 1–100, default 25. */
  readonly limit?: number
  readonly offset?: number
}

export interface MonitorChecksOptions extends MonitorListOptions {
  readonly status?: CheckStatus
}

export interface MonitorCheckOptions {
  readonly skip?: number
  /** 1–100, default 25. */
  readonly limit?: number
  readonly status?: PageStatus
}

export interface RunAndWaitOptions {
  /** How long to wait for the check's end; default 10 minutes. The check goes on after a timeout. */
  readonly timeoutMs?: number
  /** Pause between two reads of the check; default 500 ms. */
  readonly pollMs?: number
}

const DEFAULT_TIMEOUT_MS = 10 * 60 * 1000
const DEFAULT_POLL_MS = 500

/** Whether a check has ended: any status but `queued` and `running` is final. */
export const checkEnded = (status: CheckStatus): boolean => status !== "queued" && status !== "running"

/** The facade's calls carry no API key: monitors made here belong to no one, like its jobs. */
const OWNER = null

export class WebdataMonitors {
  readonly #run: Runner

  constructor(run: Runner) {
    this.#run = run
  }

  /** Creates a monitor; its first check comes at its schedule's next time (or now with `run`). */
  create(input: MonitorInput): Promise<MonitorView> {
    return this.#run(Effect.flatMap(Monitor, (monitors) => monitors.create(input, OWNER)))
  }

  /** The monitors, newest first. */
  list(options: MonitorListOptions = {}): Promise<ReadonlyArray<MonitorView>> {
    return this.#run(Effect.flatMap(Monitor, (monitors) => monitors.list(OWNER, options)))
  }

  get(id: string): Promise<MonitorView> {
    return this.#run(Effect.flatMap(Monitor, (monitors) => monitors.get(id, OWNER)))
  }

  /** Changes the fields given; `{ status: "paused" }` stops the schedule, `"active"` resumes it from now. */
  update(id: string, input: MonitorUpdate): Promise<MonitorView> {
    return this.#run(Effect.flatMap(Monitor, (monitors) => monitors.update(id, input, OWNER)))
  }

  /** Deletes the monitor and its checks; a running check is cancelled. */
  delete(id: string): Promise<void> {
    return this.#run(Effect.flatMap(Monitor, (monitors) => monitors.delete(id, OWNER)))
  }

  /** Starts a check now and answers it as it starts; `MONITOR_CHECK_RUNNING` while one runs. */
  run(id: string): Promise<MonitorCheck> {
    return this.#run(Effect.flatMap(Monitor, (monitors) => monitors.run(id, OWNER)))
  }

  /** The monitor's checks, newest first. */
  checks(id: string, options: MonitorChecksOptions = {}): Promise<ReadonlyArray<MonitorCheck>> {
    return this.#run(Effect.flatMap(Monitor, (monitors) => monitors.checks(id, OWNER, options)))
  }

  /** A check with a page of its pages (each with its status, and its diff when it changed). */
  check(id: string, checkId: string, options: MonitorCheckOptions = {}): Promise<MonitorCheckDetail> {
    return this.#run(detail(id, checkId, options))
  }

  /**
   * Runs a check and resolves once it has ended, with the first page of its pages (`check` with `skip: next` reads
   * on). A check still running after `timeoutMs` rejects with `MONITOR_CHECK_TIMEOUT`; it goes on meanwhile.
   */
  runAndWait(id: string, options: RunAndWaitOptions = {}): Promise<MonitorCheckDetail> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
    const pause = Duration.millis(options.pollMs ?? DEFAULT_POLL_MS)
    return this.#run(
      Effect.gen(function* () {
        const started = yield* Effect.flatMap(Monitor, (monitors) => monitors.run(id, OWNER))
        const ended = Effect.gen(function* () {
          for (;;) {
            const read = yield* detail(id, started.id, {})
            if (checkEnded(read.status)) return read
            yield* Effect.sleep(pause)
          }
        })
        return yield* Effect.timeoutFail(ended, {
          duration: Duration.millis(timeoutMs),
          // No RequestError reason means "waited too long"; Conflict comes closest, and the code says what happened.
          onTimeout: () =>
            new RequestError({
              reason: "Conflict",
              code: "MONITOR_CHECK_TIMEOUT",
              message: `The check ${started.id} did not end within ${timeoutMs} ms; it goes on (read it with monitors.check).`,
            }),
        })
      }),
    )
  }
}

const detail = (id: string, checkId: string, options: MonitorCheckOptions) =>
  Effect.flatMap(Monitor, (monitors) =>
    Effect.map(
      monitors.check(id, checkId, OWNER, options),
      ({ check, nextSkip }): MonitorCheckDetail => ({
        ...check,
        ...(nextSkip !== undefined ? { next: nextSkip } : {}),
      }),
    ),
  )
