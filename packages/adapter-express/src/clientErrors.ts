/**
 * Requests Node's HTTP server answers before Express sees them (a header or request line over Node's size limit, a
 * method its parser does not know, a malformed request, `CONNECT`) answer the API's error envelope instead of Node's
 * bare status line or a closed connection.
 */
import type { IncomingMessage, Server } from "node:http"
import type { Duplex } from "node:stream"

const envelope = (status: number, reason: string, code: string, error: string): string => {
  const body = JSON.stringify({ success: false, code, error })
  return [
    `HTTP/1.1 ${status} ${reason}`,
    "Content-Type: application/json; charset=utf-8",
    `Content-Length: ${Buffer.byteLength(body)}`,
    "Connection: close",
    "",
    body,
  ].join("\r\n")
}

const HEADERS_TOO_LARGE = envelope(
  431,
  "Request Header Fields Too Large",
  "REQUEST_HEADER_FIELDS_TOO_LARGE",
  "The request line or headers are too large",
)
const MALFORMED = envelope(400, "Bad Request", "BAD_REQUEST", "Bad request: the HTTP request is malformed")

const methodNotAllowed = (method: string) =>
  envelope(405, "Method Not Allowed", "METHOD_NOT_ALLOWED", `Method ${method} is not allowed on this API`)

/** A well-formed request line, so that a method the parser does not know (`TRACK`) is told apart from garbage. */
const REQUEST_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]{1,20}) \S+ HTTP\/1\.[01]\r?\n/

const answerFor = (error: NodeJS.ErrnoException & { rawPacket?: Buffer }): string => {
  if (error.code === "HPE_HEADER_OVERFLOW") return HEADERS_TOO_LARGE
  const method = error.code === "HPE_INVALID_METHOD" ? REQUEST_LINE.exec(String(error.rawPacket ?? ""))?.[1] : undefined
  return method !== undefined ? methodNotAllowed(method) : MALFORMED
}

/**
 * Answers `server`'s parser errors with the envelope: 431 for a request line or headers over Node's limit, 405 for a
 * method Node's parser does not know, 400 for anything else it cannot parse; and `CONNECT` with 405, unless the server
 * has a `connect` listener of its own. `serve()` of `@webdata/server` attaches it; attach it to your own server around
 * `webdataRouter`.
 */
export const attachClientErrorEnvelope = (server: Server): void => {
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A connection reset or a timeout has nobody left to answer.
    if (error.code === "ECONNRESET" || !socket.writable) return void socket.destroy()
    socket.end(answerFor(error))
  })
  // Node never hands CONNECT to Express, and without a listener it closes the connection without a word.
  server.on("connect", (_request: IncomingMessage, socket: Duplex) => {
    if (server.listenerCount("connect") === 1) socket.end(methodNotAllowed("CONNECT"))
  })
}
