/** The engine as the server's processes run it: every setting from the environment. */
import * as Browser from "@webdata/browser"
import { Engine, type EngineServices, type Mailer } from "@webdata/core"
import * as Parse from "@webdata/parse"
import { Config, Effect, Layer, Option } from "effect"
import * as StoreFromEnvironment from "./StoreFromEnvironment.js"
import { telemetryFromEnvironment } from "./telemetry.js"

/** What a host other than the server decides (the Lambda functions): see `Engine.HostOptions`. */
export interface EnvironmentHostOptions extends Engine.HostOptions {
  /** The store when `WEBDATA_STORE` is unset; default `sqlite:.webdata/webdata.db`. */
  readonly defaultStore?: string
}

/**
 * The SMTP mailer of monitors' emails when `WEBDATA_SMTP_URL` is set, else nothing (monitors then report their email
 * `not_configured`). nodemailer is loaded only then, so that hosts without mail (Lambda) do not pay for it at start.
 */
const mailerFromEnvironment = Effect.gen(function* () {
  const url = yield* Config.option(Config.string("WEBDATA_SMTP_URL"))
  if (Option.isNone(url) || url.value.trim() === "") return Option.none<Layer.Layer<Mailer>>()
  const SmtpMailer = yield* Effect.promise(() => import("./SmtpMailer.js"))
  return yield* SmtpMailer.layerConfig
}).pipe(Effect.orDie)

/**
 * The engine configured from the environment (what `npm start`, `webdata serve` and the workers run): on the store
 * `WEBDATA_STORE` names, with the file parsers, the browser engine when a Chromium is found, a worker unless
 * `WEBDATA_WORKER=0`, the SMTP mailer when `WEBDATA_SMTP_URL` is set, and OpenTelemetry when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` is.
 */
export const engineFromEnvironment = (host: EnvironmentHostOptions = {}): Layer.Layer<EngineServices> =>
  Layer.unwrapEffect(
    Effect.map(mailerFromEnvironment, (mailer) =>
      Engine.layerConfig(
        StoreFromEnvironment.layerConfig(undefined, host.defaultStore),
        Effect.runSync(Browser.layerConfig()),
        Effect.runSync(Parse.layerConfig()),
        Option.match(mailer, { onNone: () => host, onSome: (layer) => ({ ...host, mailer: layer }) }),
      ),
    ),
    // Under the engine, so that every fiber it starts (the worker's included) traces to the collector.
  ).pipe(Layer.provide(telemetryFromEnvironment))

/** What the server and the workers say at start-up about the engines `engineFromEnvironment()` has. */
export const enginesLine = (env: NodeJS.ProcessEnv = process.env): string => {
  const chromium = Browser.findChromium(env)
  const model = env.WEBDATA_LLM?.trim()
  const llm =
    model !== undefined && model !== ""
      ? `language model ${model}`
      : "no language model (WEBDATA_LLM): summary is extractive, json with a schema uses the offline extractor, prompts and the agent answer 400"
  return chromium !== undefined
    ? `engines: http, browser (Chromium at ${chromium}), file parsers; ${llm}`
    : `engines: http, file parsers; no Chromium found (set CHROMIUM_PATH or install chromium): browser options (waitFor, actions, screenshot, mobile, location, profile) and interact sessions answer 400; ${llm}`
}
