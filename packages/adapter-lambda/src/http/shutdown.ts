/**
 * Releasing the engine when Lambda shuts the container down: it sends SIGTERM first when an extension is
 * registered, and a short grace period to finish.
 */

const registered = new WeakSet<() => Promise<void>>()

/** Registers `dispose` for SIGTERM once, however often it is called; the process exits when it is done. */
export const releaseOnShutdown = (dispose: () => Promise<void>): void => {
  if (registered.has(dispose)) return
  registered.add(dispose)
  // Listening replaces Node's default exit, so the process exits itself once the engine is released.
  process.once("SIGTERM", () => {
    dispose().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error("Releasing the engine on shutdown failed", error)
        process.exit(1)
      },
    )
  })
}
