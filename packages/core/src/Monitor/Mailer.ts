/**
 * The mail port: monitors send their check emails through it. Core names what a mailer does; `@webdata/server`
 * provides the SMTP one (`SmtpMailer`), so that core carries no mail library.
 */
import { Context, type Effect, Schema } from "effect"

/** A message that could not be handed to the mail server. */
export class MailError extends Schema.TaggedError<MailError>()("MailError", {
  reason: Schema.Literal(
    /** The server could not be reached, timed out, or answered a temporary (4xx) failure: trying later may work. */
    "Unavailable",
    /** The server refused the message, its sender or its recipients for good (5xx), or the login. */
    "Rejected",
  ),
  message: Schema.String,
}) {}

export interface MailMessage {
  readonly to: ReadonlyArray<string>
  readonly subject: string
  readonly text: string
  readonly html: string
}

export interface MailerShape {
  readonly send: (message: MailMessage) => Effect.Effect<void, MailError>
}

export class Mailer extends Context.Tag("@webdata/core/Mailer")<Mailer, MailerShape>() {}
