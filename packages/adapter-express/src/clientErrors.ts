/**
 * Requests Node's HTTP parser refuses before Express sees them (a header or request line over Node's size limit, a
 * malformed request) answer the API's error envelope instead of Node's bare status line.
 */
import type { Server } from "node:http"
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

/** Answers parser errors of `server`'s connections with the envelope (what `serve()` does; for your own server). */
export const attachClientErrorEnvelope = (server: Server): void => {
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A connection reset or a timeout has nobody left to answer.
    if (error.code === "ECONNRESET" || !socket.writable) return void socket.destroy()
    socket.end(error.code === "HPE_HEADER_OVERFLOW" ? HEADERS_TOO_LARGE : MALFORMED)
  })
}
