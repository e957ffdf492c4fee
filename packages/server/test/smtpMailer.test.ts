/** The SMTP mailer against a local SMTP server: what arrives, how refusals and a missing server fail, its settings. */
import { createServer } from "node:net"
import { it } from "@effect/vitest"
import { MailError, Mailer, type MailMessage } from "@webdata/core"
import { Cause, ConfigProvider, Effect, Exit, Layer, Option, Schedule } from "effect"
import type { ParsedMail } from "mailparser"
import { describe, expect } from "vitest"
import { renderCheckEmail } from "../../core/src/Monitor/Email.js"
import { engineFromEnvironment } from "../src/engine.js"
import * as SmtpMailer from "../src/SmtpMailer.js"
import { localSmtpServer } from "./support/smtpServer.js"

/** A loopback port nothing listens on. */
const closedPort = Effect.async<number>((resume) => {
  const probe = createServer().listen(0, "127.0.0.1", () => {
    const address = probe.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    probe.close(() => resume(Effect.succeed(port)))
  })
})

const send = (layer: Layer.Layer<Mailer>, message: MailMessage) =>
  Effect.flatMap(Mailer, (mailer) => mailer.send(message)).pipe(Effect.provide(layer))

const addresses = (field: ParsedMail["to"]): Array<string> =>
  (field === undefined ? [] : Array.isArray(field) ? field : [field]).flatMap((group) =>
    group.value.map((entry) => entry.address ?? ""),
  )

const rendered = renderCheckEmail({
  monitor: { id: "mon_1", name: "Blog <monitor>" },
  check: {
    id: "chk_1",
    status: "completed",
    summary: { totalPages: 3, same: 1, changed: 1, new: 1, removed: 0, error: 0 },
  },
  pages: [
    {
      url: "https://blog.example/pricing",
      status: "changed",
      diff: { text: "-Pro: $10\n+Pro: $12 <script>x</script>" },
      judgment: { meaningful: true, reason: "The price went up." },
    },
    { url: "https://blog.example/new", status: "new" },
  ],
  includeDiffs: true,
})

const withEnvironment = (env: Record<string, string>) =>
  Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))

describe("SmtpMailer", () => {
  it.scopedLive("delivers the rendered email: recipients, subject, text and HTML", () =>
    Effect.gen(function* () {
      const server = yield* localSmtpServer()
      const layer = SmtpMailer.layer(`smtp://127.0.0.1:${server.port}`)
      yield* send(layer, { to: ["ops@example.com", "dev@example.com"], ...rendered })
      expect(server.received).toHaveLength(1)
      const [message] = server.received
      expect(message!.to).toEqual(["ops@example.com", "dev@example.com"])
      expect(message!.from).toBe("monitor@localhost")
      const { mail } = message!
      expect(mail.from?.value[0]).toMatchObject({ name: "webdata", address: "monitor@localhost" })
      expect(addresses(mail.to)).toEqual(["ops@example.com", "dev@example.com"])
      expect(mail.subject).toBe("[webdata] Blog <monitor>: 1 changed, 1 new")
      expect(mail.text).toBe(rendered.text)
      expect(mail.html).toContain("Blog &#60;monitor&#62;")
      expect(mail.html).toContain("+Pro: $12 &#60;script&#62;x&#60;/script&#62;")
      expect(mail.html).not.toContain("<script")
    }),
  )

  it.scopedLive("logs in with the URL's user and sends from it when it is an address", () =>
    Effect.gen(function* () {
      const server = yield* localSmtpServer()
      const layer = SmtpMailer.layer(`smtp://alerts%40example.com:s3cret@127.0.0.1:${server.port}`)
      yield* send(layer, { to: ["ops@example.com"], ...rendered })
      expect(server.received[0]!.user).toBe("alerts@example.com")
      expect(server.received[0]!.mail.from?.value[0]?.address).toBe("alerts@example.com")
    }),
  )

  it.scopedLive("reads WEBDATA_SMTP_URL and WEBDATA_SMTP_FROM", () =>
    Effect.gen(function* () {
      const server = yield* localSmtpServer()
      const layer = yield* SmtpMailer.layerConfig.pipe(
        withEnvironment({
          WEBDATA_SMTP_URL: ` smtp://127.0.0.1:${server.port} `,
          WEBDATA_SMTP_FROM: "Site watch <watch@example.com>",
        }),
      )
      yield* send(Option.getOrThrow(layer), { to: ["ops@example.com"], ...rendered })
      expect(server.received[0]!.mail.from?.value[0]).toMatchObject({
        name: "Site watch",
        address: "watch@example.com",
      })
    }),
  )

  it.live("has no mailer without WEBDATA_SMTP_URL, and refuses a URL that is not SMTP without its password", () =>
    Effect.gen(function* () {
      expect(Option.isNone(yield* SmtpMailer.layerConfig.pipe(withEnvironment({})))).toBe(true)
      expect(Option.isNone(yield* SmtpMailer.layerConfig.pipe(withEnvironment({ WEBDATA_SMTP_URL: " " })))).toBe(true)
      const error = yield* Effect.flip(
        SmtpMailer.layerConfig.pipe(withEnvironment({ WEBDATA_SMTP_URL: "https://user:hunter2@127.0.0.1:25" })),
      )
      expect(error.message).toContain("WEBDATA_SMTP_URL must be smtp://")
      expect(error.message).not.toContain("hunter2")
    }),
  )

  it.scopedLive("fails Rejected when the server refuses the recipients for good (550)", () =>
    Effect.gen(function* () {
      const server = yield* localSmtpServer({
        onRcptTo: (_address, _session, callback) =>
          callback(Object.assign(new Error("No such user here"), { responseCode: 550 })),
      })
      const error = yield* Effect.flip(
        send(SmtpMailer.layer(`smtp://127.0.0.1:${server.port}`), { to: ["nobody@example.com"], ...rendered }),
      )
      expect(error).toBeInstanceOf(MailError)
      expect(error.reason).toBe("Rejected")
      expect(error.message).toContain("No such user here")
      expect(server.received).toHaveLength(0)
    }),
  )

  it.scopedLive("fails Unavailable on a temporary refusal (451)", () =>
    Effect.gen(function* () {
      const server = yield* localSmtpServer({
        onData: (stream, _session, callback) => {
          stream.resume()
          stream.on("end", () => callback(Object.assign(new Error("Try again later"), { responseCode: 451 })))
        },
      })
      const error = yield* Effect.flip(
        send(SmtpMailer.layer(`smtp://127.0.0.1:${server.port}`), { to: ["ops@example.com"], ...rendered }),
      )
      expect(error.reason).toBe("Unavailable")
    }),
  )

  it.live("fails Unavailable, at once, when nothing listens, without showing the password", () =>
    Effect.gen(function* () {
      const port = yield* closedPort
      const started = Date.now()
      const error = yield* Effect.flip(
        send(SmtpMailer.layer(`smtp://user:hunter2@127.0.0.1:${port}`), { to: ["ops@example.com"], ...rendered }),
      )
      expect(error.reason).toBe("Unavailable")
      expect(error.message).toContain(`127.0.0.1:${port}`)
      expect(error.message).not.toContain("hunter2")
      expect(Date.now() - started).toBeLessThan(5_000)
    }),
  )

  it.scopedLive("closes its connections when the layer is released", () =>
    Effect.gen(function* () {
      const server = yield* localSmtpServer()
      yield* Effect.scoped(
        Effect.gen(function* () {
          const context = yield* Layer.build(SmtpMailer.layer(`smtp://127.0.0.1:${server.port}`))
          yield* Effect.flatMap(Mailer, (mailer) => mailer.send({ to: ["ops@example.com"], ...rendered })).pipe(
            Effect.provide(context),
          )
          // The pool keeps its connection between messages while the layer lives.
          expect(server.openConnections()).toBe(1)
        }),
      )
      yield* Effect.suspend(() => (server.openConnections() === 0 ? Effect.void : Effect.fail("still open"))).pipe(
        Effect.retry(Schedule.spaced("20 millis").pipe(Schedule.upTo("3 seconds"))),
      )
    }),
  )

  it.live("is part of the engine from the environment, which stops at a WEBDATA_SMTP_URL that is not SMTP", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(
        Layer.build(engineFromEnvironment()).pipe(
          Effect.scoped,
          withEnvironment({ WEBDATA_STORE: "memory:", WEBDATA_WORKER: "0", WEBDATA_SMTP_URL: "http://127.0.0.1:25" }),
        ),
      )
      expect(Exit.isFailure(exit) && Cause.pretty(exit.cause)).toContain("WEBDATA_SMTP_URL must be smtp://")
    }),
  )
})
