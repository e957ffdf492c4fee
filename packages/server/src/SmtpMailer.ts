/**
 * The mailer over SMTP (nodemailer): monitors' emails through the server `WEBDATA_SMTP_URL` names
 * (`smtp://user:password@host:587`, `smtps://…:465`), from `WEBDATA_SMTP_FROM`.
 */
import { MailError, Mailer, type MailMessage } from "@webdata/core"
import { Config, Effect, Layer, Option } from "effect"
import { createTransport } from "nodemailer"
import { redact } from "./StoreFromEnvironment.js"

export interface SmtpOptions {
  /** The sender, `Name <address>`. Default: see `defaultFrom`. */
  readonly from?: string
}

/** Connecting, the server's greeting and a silent socket each give up after this: a send never hangs a check. */
const TIMEOUT_MS = 20_000

const decoded = (value: string): string => {
  try {
    return decodeURIComponent(value)
  } catch {
    return value
  }
}

/** The login when it is an address (most providers send only from it), else `webdata <monitor@localhost>`. */
export const defaultFrom = (url: string): string => {
  const user = URL.canParse(url) ? decoded(new URL(url).username) : ""
  return /^[^@\s<>]+@[^@\s<>]+$/.test(user) ? `webdata <${user}>` : "webdata <monitor@localhost>"
}

/** 5xx answers (and a refused login) are final; anything else (no connection, a timeout, 4xx) may pass later. */
const mailError =
  (url: string) =>
  (error: unknown): MailError => {
    const { responseCode, message } = error instanceof Error ? (error as Error & { responseCode?: unknown }) : {}
    return new MailError({
      reason: typeof responseCode === "number" && responseCode >= 500 ? "Rejected" : "Unavailable",
      message: `SMTP server ${redact(url)}: ${message ?? String(error)}`,
    })
  }

/** A pool of connections to the server `url` names, closed with the layer. */
export const layer = (url: string, options: SmtpOptions = {}): Layer.Layer<Mailer> =>
  Layer.scoped(
    Mailer,
    Effect.gen(function* () {
      const transport = yield* Effect.acquireRelease(
        Effect.sync(() =>
          createTransport({
            url,
            pool: true,
            connectionTimeout: TIMEOUT_MS,
            greetingTimeout: TIMEOUT_MS,
            socketTimeout: TIMEOUT_MS,
          }),
        ),
        (transport) => Effect.sync(() => transport.close()),
      )
      const from = options.from ?? defaultFrom(url)
      const toError = mailError(url)
      const send = Effect.fn("Mailer.send")(function* (message: MailMessage) {
        yield* Effect.tryPromise({
          try: (signal) =>
            transport.sendMail({
              from,
              to: [...message.to],
              subject: message.subject,
              text: message.text,
              html: message.html,
              signal,
            }),
          catch: toError,
        })
      })
      return Mailer.of({ send })
    }),
  )

/**
 * The mailer configured from the environment: `WEBDATA_SMTP_URL` (unset or empty: none, and monitors send no email)
 * and `WEBDATA_SMTP_FROM`. A URL that is not `smtp://` or `smtps://` fails, so that the server stops at start.
 */
export const layerConfig: Effect.Effect<Option.Option<Layer.Layer<Mailer>>, Error> = Effect.gen(function* () {
  const url = (yield* Config.option(Config.string("WEBDATA_SMTP_URL"))).pipe(
    Option.map((value) => value.trim()),
    Option.filter((value) => value !== ""),
  )
  if (Option.isNone(url)) return Option.none()
  if (!/^smtps?:\/\//i.test(url.value) || !URL.canParse(url.value))
    return yield* Effect.fail(
      new Error(`WEBDATA_SMTP_URL must be smtp://[user:password@]host[:port] or smtps://… (got ${redact(url.value)})`),
    )
  const from = (yield* Config.option(Config.string("WEBDATA_SMTP_FROM"))).pipe(
    Option.map((value) => value.trim()),
    Option.filter((value) => value !== ""),
  )
  return Option.some(layer(url.value, Option.isSome(from) ? { from: from.value } : {}))
}).pipe(Effect.mapError((error) => (error instanceof Error ? error : new Error(String(error)))))
