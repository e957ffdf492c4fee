/**
 * A forward HTTP proxy on loopback for tests: absolute-URL requests are passed on with `X-Through-Proxy: 1` added (so
 * the site can tell), CONNECT tunnels are opened as asked; every target is recorded. With `credentials`, requests
 * without the matching `Proxy-Authorization` get 407.
 */
import { createServer, request as httpRequest } from "node:http"
import { connect } from "node:net"
import { type Listening, listenOnLoopback } from "./loopback.js"

export interface ForwardProxy extends Listening {
  /** `GET http://…` URLs and `CONNECT host:port` targets, in order. */
  readonly seen: Array<string>
}

export const startForwardProxy = async (credentials?: string): Promise<ForwardProxy> => {
  const seen: Array<string> = []
  const expected = credentials === undefined ? undefined : `Basic ${Buffer.from(credentials).toString("base64")}`
  const server = createServer((req, res) => {
    if (expected !== undefined && req.headers["proxy-authorization"] !== expected) {
      res.writeHead(407, { "proxy-authenticate": 'Basic realm="test"' })
      return void res.end()
    }
    const target = new URL(req.url ?? "/")
    seen.push(target.href)
    const { "proxy-authorization": _, "proxy-connection": __, ...headers } = req.headers
    const upstream = httpRequest(
      target,
      { method: req.method, headers: { ...headers, "x-through-proxy": "1" } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      },
    )
    upstream.on("error", () => res.destroy())
    req.pipe(upstream)
  })
  server.on("connect", (req, socket, head) => {
    if (expected !== undefined && req.headers["proxy-authorization"] !== expected) {
      socket.end("HTTP/1.1 407 Proxy Authentication Required\r\n\r\n")
      return
    }
    seen.push(`CONNECT ${req.url}`)
    const [host, port] = (req.url ?? "").split(":")
    const upstream = connect(Number(port), host ?? "127.0.0.1", () => {
      socket.write("HTTP/1.1 200 Connection Established\r\n\r\n")
      upstream.write(head)
      upstream.pipe(socket)
      socket.pipe(upstream)
    })
    upstream.on("error", () => socket.destroy())
    socket.on("error", () => upstream.destroy())
  })
  return Object.assign(await listenOnLoopback(server), { seen })
}
