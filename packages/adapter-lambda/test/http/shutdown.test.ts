/** releaseOnShutdown: one SIGTERM listener per dispose function; it releases, then exits. */
import { afterEach, describe, expect, it, vi } from "vitest"
import { releaseOnShutdown } from "../../src/http/index.js"

/** Registers and returns the listener `register` added (called directly: emitting SIGTERM would reach others). */
const added = (register: () => void): (() => void) => {
  const before = new Set(process.listeners("SIGTERM"))
  register()
  const listeners = process.listeners("SIGTERM").filter((listener) => !before.has(listener))
  expect(listeners).toHaveLength(1)
  return listeners[0] as () => void
}

afterEach(() => vi.restoreAllMocks())

describe("releaseOnShutdown", () => {
  it("registers once however often it is called; on SIGTERM it releases, then exits 0", async () => {
    const exit = vi.spyOn(process, "exit").mockImplementation((() => undefined) as never)
    const dispose = vi.fn(async () => undefined)
    const listener = added(() => {
      releaseOnShutdown(dispose)
      releaseOnShutdown(dispose)
    })
    process.removeListener("SIGTERM", listener)
    listener()
    await vi.waitFor(() => expect(exit).toHaveBeenCalledWith(0))
    expect(dispose).toHaveBeenCalledTimes(1)
  })

  it("exits 1 when releasing fails", async () => {
    const exit = vi.spyOn(process, "exit").mockImplementation((() => undefined) as never)
    const logged = vi.spyOn(console, "error").mockImplementation(() => undefined)
    const listener = added(() => releaseOnShutdown(async () => Promise.reject(new Error("store gone"))))
    process.removeListener("SIGTERM", listener)
    listener()
    await vi.waitFor(() => expect(exit).toHaveBeenCalledWith(1))
    expect(logged).toHaveBeenCalledWith("Releasing the engine on shutdown failed", expect.any(Error))
  })
})
