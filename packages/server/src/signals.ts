/**
 * How the server's processes end: on SIGINT or SIGTERM, once what they run is closed (open requests and running tasks
 * finish first, within the shutdown grace); a second signal ends the process at once.
 */
export const closeOnSignal = (close: () => Promise<void>): void => {
  let closing = false
  // Node's default would end the process at once, cutting open requests and leased tasks short.
  const shutdown = (signal: NodeJS.Signals) => {
    if (closing) {
      console.error(`webdata: ${signal} again: exiting without waiting for open work`)
      process.exit(1)
    }
    closing = true
    console.log(`webdata: ${signal}: stopping (open requests and running tasks finish first)`)
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(`webdata: stopping failed: ${error instanceof Error ? error.message : String(error)}`)
        process.exit(1)
      },
    )
  }
  process.on("SIGINT", shutdown)
  process.on("SIGTERM", shutdown)
}
