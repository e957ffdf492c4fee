/** A monitor's email end to end: checks of a site on 127.0.0.1, mailed through a local SMTP server. */
import { Engine, Monitor } from "@webdata/core"
import { Effect, Exit, ManagedRuntime, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type EditableSite, page, startEditableSite } from "../../core/test/support/editableSite.js"
import * as SmtpMailer from "../src/SmtpMailer.js"
import { localSmtpServer, type Received } from "./support/smtpServer.js"

const scope = Effect.runSync(Scope.make())
let mails: ReadonlyArray<Received> = []
let site: EditableSite
let runtime: ManagedRuntime.ManagedRuntime<Monitor.Monitor, never>

beforeAll(async () => {
  const smtp = await Effect.runPromise(Scope.extend(localSmtpServer(), scope))
  mails = smtp.received
  const port = smtp.port
  site = await startEditableSite({ "/status": page("Status", "<p>All systems operational.</p>") })
  runtime = ManagedRuntime.make(
    Engine.layer({
      allowPrivateAddresses: true,
      worker: { pollMs: 20 },
      mailer: SmtpMailer.layer(`smtp://127.0.0.1:${port}`, { from: "Monitors <monitors@example.test>" }),
    }),
  )
})

afterAll(async () => {
  await runtime?.dispose()
  await site?.close()
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

const monitor = <A, E>(use: (service: Monitor.Monitor["Type"]) => Effect.Effect<A, E>) =>
  runtime.runPromise(Effect.flatMap(Monitor.Monitor, use))

/** Runs a check and waits for its end and its email (the email's outcome is recorded after the check's end). */
const runToEnd = async (id: string) => {
  const started = await monitor((service) => service.run(id, null))
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; ) {
    const { check } = await monitor((service) => service.check(id, started.id, null))
    const status = check.notificationStatus as { readonly email?: string } | null
    if (!["queued", "running"].includes(check.status) && status?.email !== undefined) return check
    await new Promise((resolve) => setTimeout(resolve, 30))
  }
  throw new Error("the check did not end in time")
}

describe("monitor email", () => {
  it("mails the recipients what changed, with the diff, and says so in the check", async () => {
    const created = await monitor((service) =>
      service.create(
        {
          name: "Status page",
          schedule: { text: "every 15 minutes" },
          targets: [{ type: "scrape", urls: [`${site.url}/status`] }],
          notification: { email: { enabled: true, recipients: ["ops@example.test"], includeDiffs: true } },
        },
        null,
      ),
    )
    const first = await runToEnd(created.id)
    expect(first.notificationStatus).toMatchObject({ email: "sent", webhook: "not_subscribed" })
    expect(mails).toHaveLength(1) // the first check finds the page new

    site.pages.set("/status", page("Status", "<p>Degraded performance in <b>eu-west</b>.</p>"))
    const second = await runToEnd(created.id)
    expect(second.notificationStatus).toMatchObject({ email: "sent" })
    expect(mails).toHaveLength(2)
    const { to, mail } = mails[1] ?? { to: [], mail: undefined }
    expect(to).toEqual(["ops@example.test"])
    expect(mail?.from?.text).toContain("monitors@example.test")
    expect(mail?.subject).toContain("Status page")
    expect(mail?.subject).toContain("1 changed")
    expect(mail?.text).toContain(`${site.url}/status`)
    expect(mail?.text).toContain("+Degraded performance in **eu-west**.")
    expect(mail?.html).toContain("+Degraded performance in **eu-west**.")

    // Nothing changed: nothing is mailed.
    const third = await runToEnd(created.id)
    expect(third.notificationStatus).toMatchObject({ email: "nothing_to_send" })
    expect(mails).toHaveLength(2)
  })
})
