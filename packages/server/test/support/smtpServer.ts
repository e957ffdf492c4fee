/** An SMTP server on a loopback port, without TLS, that keeps what it receives (parsed); closed with the scope. */
import { Effect } from "effect"
import { type ParsedMail, simpleParser } from "mailparser"
import { SMTPServer, type SMTPServerOptions } from "smtp-server"

export interface Received {
  readonly from: string | undefined
  readonly to: ReadonlyArray<string>
  readonly user: string | undefined
  readonly mail: ParsedMail
}

export const localSmtpServer = (options: SMTPServerOptions = {}) =>
  Effect.gen(function* () {
    const received: Array<Received> = []
    let open = 0
    const server = new SMTPServer({
      authOptional: true,
      allowInsecureAuth: true,
      disabledCommands: ["STARTTLS"],
      logger: false,
      onAuth: (auth, _session, callback) => callback(null, { user: auth.username }),
      onConnect: (_session, callback) => {
        open += 1
        callback()
      },
      onClose: () => {
        open -= 1
      },
      onData: (stream, session, callback) => {
        const chunks: Array<Buffer> = []
        stream.on("data", (chunk: Buffer) => chunks.push(chunk))
        stream.on("end", () => {
          simpleParser(Buffer.concat(chunks)).then(
            (mail) => {
              received.push({
                from: session.envelope.mailFrom === false ? undefined : session.envelope.mailFrom.address,
                to: session.envelope.rcptTo.map((address) => address.address),
                user: typeof session.user === "string" ? session.user : undefined,
                mail,
              })
              callback()
            },
            (error: Error) => callback(error),
          )
        })
      },
      ...options,
    })
    const port = yield* Effect.acquireRelease(
      Effect.async<number>((resume) => {
        const listening = server.listen(0, "127.0.0.1", () => {
          const address = listening.address()
          resume(Effect.succeed(typeof address === "object" && address !== null ? address.port : 0))
        })
      }),
      () => Effect.async<void>((resume) => server.close(() => resume(Effect.void))),
    )
    return { port, received, openConnections: () => open }
  })
