/**
 * The two monitor clients of the CLI. In process, the engine is `webdata serve`'s on the store `WEBDATA_STORE` names
 * (SQLite under `.webdata/` by default), so that the monitors added here are the ones a server or worker started in
 * the same place checks on schedule: this process only runs the checks it waits for.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import {
  checkEnded,
  Decode,
  Monitor,
  type MonitorCheck,
  type MonitorCheckDetail,
  MonitorCreateRequest,
  MonitorUpdateRequest,
  type MonitorView,
} from "@webdata/core/engine"
import { Effect, Layer } from "effect"
import { type ApiFailure, makeCall, skipOf } from "./ApiCall.js"
import { CliFailure } from "./CliFailure.js"
import { RUN_POLL } from "./JobClient.js"
import { logsToStderr } from "./LocalEngine.js"
import { MonitorClient, type MonitorClientShape } from "./MonitorClient.js"
import { fail } from "./ScraperLayers.js"

/** The server's engine, with a worker only when `worker` (and `WEBDATA_WORKER` does not turn it off). */
const engineHere = (worker: boolean) =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const { StoreFromEnvironment, engineFromEnvironment } = yield* Effect.promise(() => import("@webdata/server"))
      if ((yield* StoreFromEnvironment.spec) === "memory:")
        return yield* Effect.fail(
          new CliFailure(
            "WEBDATA_STORE=memory: keeps nothing after this command; monitors need a durable store: sqlite:<path>, postgres://… or redis://…",
          ),
        )
      return logsToStderr(engineFromEnvironment(worker ? { shutdownGraceMs: 0 } : { worker: false }))
    }),
  ).pipe(Layer.orDie)

/** A client's `ended`, from its `check` (read without pages until the check has ended). */
const endedBy =
  (check: MonitorClientShape["check"]): MonitorClientShape["ended"] =>
  (id, checkId) =>
    Effect.gen(function* () {
      for (;;) {
        const read = yield* check(id, checkId, { limit: 1 })
        if (checkEnded(read.status)) return read
        yield* Effect.sleep(RUN_POLL)
      }
    })

/** The client's calls but `ended`. */
type Calls = Omit<MonitorClientShape, "ended">

const client = (calls: Calls): MonitorClientShape => ({ ...calls, ended: endedBy(calls.check) })

export const layerLocal = (worker: boolean): Layer.Layer<MonitorClient> =>
  Layer.effect(
    MonitorClient,
    Effect.map(Monitor.Monitor, (monitors) => {
      // Monitors made by the CLI have no owner, like the library's: every call passes `null`.
      const local = <A, E>(effect: Effect.Effect<A, E>) => Effect.mapError(effect, fail)
      return client({
        create: (input) => local(monitors.create(input, null)),
        list: (page) => local(monitors.list(null, page)),
        get: (id) => local(monitors.get(id, null)),
        update: (id, input) => local(monitors.update(id, input, null)),
        delete: (id) => local(monitors.delete(id, null)),
        run: (id) => local(monitors.run(id, null)),
        checks: (id, page) => local(monitors.checks(id, null, page)),
        check: (id, checkId, page) =>
          local(
            Effect.map(monitors.check(id, checkId, null, page), ({ check, nextSkip }) => ({
              ...check,
              ...(nextSkip !== undefined ? { next: nextSkip } : {}),
            })),
          ),
      })
    }),
  ).pipe(Layer.provide(engineHere(worker)))

interface Answer extends ApiFailure {
  readonly data?: unknown
  readonly next?: string | null
}

/** Request bodies are checked here first, so that a typo fails before anything is sent. */
const validateCreate = Decode.decodeStrict(MonitorCreateRequest)
const validateUpdate = Decode.decodeStrict(MonitorUpdateRequest)

/** The query of a list or page read: the parameters given. */
const query = (params: Readonly<Record<string, string | number | undefined>>): string => {
  const given = Object.entries(params).flatMap(([key, value]) => (value === undefined ? [] : [[key, String(value)]]))
  return given.length === 0 ? "" : `?${new URLSearchParams(given).toString()}`
}

/** Remote mode: `/v2/monitor` of a webdata (or Firecrawl) server. */
export const layerRemote = (apiUrl: string, apiKey: string | undefined): Layer.Layer<MonitorClient> =>
  Layer.effect(
    MonitorClient,
    Effect.gen(function* () {
      const call = makeCall<Answer>(yield* HttpClient.HttpClient, apiKey)
      const base = `${apiUrl.replace(/\/+$/, "")}/v2/monitor`
      const path = (...parts: ReadonlyArray<string>) => [base, ...parts.map(encodeURIComponent)].join("/")
      const data = <A>(request: HttpClientRequest.HttpClientRequest) =>
        Effect.map(call(request), (answer) => answer.data as A)
      const send = (
        request: HttpClientRequest.HttpClientRequest,
        body: unknown,
        validate: (input: unknown) => Effect.Effect<unknown, unknown>,
      ) =>
        validate(body).pipe(
          Effect.mapError(fail),
          Effect.zipRight(data<MonitorView>(HttpClientRequest.bodyUnsafeJson(request, body))),
        )
      return client({
        create: (input) => send(HttpClientRequest.post(base), input, validateCreate),
        list: (page) => data(HttpClientRequest.get(`${base}${query({ ...page })}`)),
        get: (id) => data(HttpClientRequest.get(path(id))),
        update: (id, input) => send(HttpClientRequest.patch(path(id)), input, validateUpdate),
        delete: (id) => Effect.asVoid(call(HttpClientRequest.del(path(id)))),
        run: (id) => data<MonitorCheck>(HttpClientRequest.post(path(id, "run"))),
        checks: (id, page) => data(HttpClientRequest.get(`${path(id, "checks")}${query({ ...page })}`)),
        check: (id, checkId, page) =>
          Effect.map(call(HttpClientRequest.get(`${path(id, "checks", checkId)}${query({ ...page })}`)), (answer) => {
            // The check's own `next` is the link; the CLI keeps its cursor only.
            const { next: _link, ...check } = answer.data as MonitorCheckDetail & { readonly next?: unknown }
            const next = skipOf(answer.next, (page.skip ?? 0) + check.pages.length)
            return { ...check, ...(next !== undefined ? { next } : {}) }
          }),
      })
    }),
  ).pipe(Layer.provide(FetchHttpClient.layer))
