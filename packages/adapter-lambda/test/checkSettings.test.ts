/**
 * The environment checked when the ready handlers load in a Lambda container: a bad value fails the container's
 * initialisation with an error naming the variable; a misspelt `WEBDATA_` name is only warned about.
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import { checkSettings } from "../src/checkSettings.js"

afterEach(() => {
  vi.unstubAllEnvs()
  vi.restoreAllMocks()
  vi.resetModules()
})

describe("the settings of the ready handlers", () => {
  it("fail the module's loading in a Lambda container, naming each bad variable", async () => {
    vi.stubEnv("AWS_LAMBDA_FUNCTION_NAME", "webdata-api")
    vi.stubEnv("WEBDATA_STORE", "nonsense:x")
    vi.stubEnv("WEBDATA_WORKER_CONCURRENCY", "-2")
    const loading = import("../src/fromEnvironment.js")
    await expect(loading).rejects.toThrow(/^webdata: WEBDATA_STORE="nonsense:x": .+$/m)
    await expect(loading).rejects.toThrow(
      /^webdata: WEBDATA_WORKER_CONCURRENCY="-2": must be a whole number of at least 1$/m,
    )
  })

  it("warn about a WEBDATA_ name that is no setting, and go on", () => {
    const warned = vi.spyOn(console, "warn").mockImplementation(() => undefined)
    expect(() => checkSettings({ WEBDATA_STOER: "memory:", WEBDATA_STORE: "memory:" })).not.toThrow()
    expect(warned).toHaveBeenCalledWith(
      "webdata: WEBDATA_STOER is not a setting (ignored); the settings are in docs/configuration.md",
    )
  })
})
