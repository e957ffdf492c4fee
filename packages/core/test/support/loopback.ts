/** Test servers on an ephemeral port of 127.0.0.1. */
import type { Server } from "node:http"
import type { AddressInfo } from "node:net"

export interface Listening {
  /** `http://127.0.0.1:<port>` */
  readonly url: string
  /** Stops listening and drops kept-alive connections, so a test run never waits on a client's idle socket. */
  readonly close: () => Promise<void>
}

export const listenOnLoopback = async (server: Server): Promise<Listening> => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
