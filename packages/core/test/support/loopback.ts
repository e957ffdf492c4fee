/** Test servers on an ephemeral port of a loopback address (127.0.0.1 unless another of 127.0.0.0/8 is given). */
import type { Server } from "node:http"
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
