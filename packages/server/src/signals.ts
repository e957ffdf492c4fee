/** How the server's processes end: on SIGINT or SIGTERM, once what they run is closed (open work finishes first). */
export const closeOnSignal = (close: () => Promise<void>): void => {
  // Node's default would end the process at once, cutting open requests and leased tasks short.
  const shutdown = () => {
    close().then(
      () => process.exit(0),
      () => process.exit(1),
    )
  }
  process.once("SIGINT", shutdown)
  process.once("SIGTERM", shutdown)
}
