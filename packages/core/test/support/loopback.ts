/** Test servers on an ephemeral port of a loopback address (127.0.0.1 unless another of 127.0.0.0/8 is given). */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"

export interface Listening {
  /** `http://<address>:<port>` */
  readonly url: string
  /** Stops listening and drops kept-alive connections, so a test run never waits on a client's idle socket. */
  readonly close: () => Promise<void>
}

export const listenOnLoopback = async (server: Server, address = "127.0.0.1"): Promise<Listening> => {
  await new Promise<void>((resolve) => server.listen(0, address, resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://${address}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

/** The web handler behind a plain Node server, as an adapter would serve it. */
export const serveWebHandler = (handler: (request: Request) => Promise<Response>): Promise<Listening> =>
  listenOnLoopback(
    createServer(async (incoming, outgoing) => {
      const chunks: Array<Buffer> = []
      for await (const chunk of incoming) chunks.push(chunk as Buffer)
      const body = Buffer.concat(chunks)
      const headers = new Headers()
      for (const [name, value] of Object.entries(incoming.headers))
        if (typeof value === "string") headers.set(name, value)
      const response = await handler(
        new Request(`http://${incoming.headers.host}${incoming.url}`, {
          method: incoming.method ?? "GET",
          headers,
          ...(body.length > 0 ? { body } : {}),
        }),
      )
      outgoing.writeHead(response.status, Object.fromEntries(response.headers))
      outgoing.end(Buffer.from(await response.arrayBuffer()))
    }),
  )
