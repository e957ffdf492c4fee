import { createServer } from "node:http"
import { describe, expect, it } from "vitest"
import { listenOnLoopback } from "../../core/test/support/loopback.js"
import { runWebdata } from "./support/binary.js"
import { spawnWebdata } from "./support/child.js"

describe("webdata serve", () => {
  it("serves the API until SIGTERM, then closes it and exits 0", async () => {
    // The flag wins over PORT, which is then neither used nor checked; a misspelt name is reported, not fatal.
    const server = spawnWebdata(["serve", "--port", "0"], {
      WEBDATA_STORE: "memory:",
      PORT: "not-a-port",
      WEBDATA_STOER: "memory:",
    })
    try {
      await server.waitFor((stdout) => /listening on http:\/\/127\.0\.0\.1:\d+/.test(stdout))
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(server.stdout())?.[1]
      const answer = await fetch(`${url}/v2/scrape`, { method: "POST", body: "{}" })
      expect(answer.status).toBe(400)
      expect(await answer.json()).toMatchObject({ success: false })
      server.process.kill("SIGTERM")
      expect(await server.exited).toBe(0)
      expect(server.stdout()).toContain("webdata API stopping (SIGTERM)")
      expect(server.stderr()).toContain("webdata: WEBDATA_STOER is not a setting (ignored)")
      expect(server.stderr()).not.toContain("PORT")
      await expect(fetch(`${url}/`)).rejects.toThrow()
    } finally {
      server.process.kill("SIGKILL")
    }
  })

  it("exits 1 with one line when the port is taken, its engine stopped", async () => {
    const taken = await listenOnLoopback(createServer())
    try {
      const port = new URL(taken.url).port
      const result = await runWebdata(["serve", "--port", port], { WEBDATA_STORE: "memory:" })
      expect(result.code).toBe(1)
      expect(result.stderr.trim().split("\n")).toHaveLength(1)
      expect(result.stderr).toMatch(new RegExp(`^webdata: Cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`, "m"))
    } finally {
      await taken.close()
    }
  })

  it("exits 1 before it starts when a setting is bad, with a line naming each variable", async () => {
    const result = await runWebdata(["serve"], { WEBDATA_STORE: "nonsense:x", PORT: "-1" })
    expect(result.code).toBe(1)
    expect(result.stderr.trim().split("\n")).toEqual([
      'webdata: PORT="-1": must be a port, 0 to 65535',
      expect.stringMatching(/^webdata: WEBDATA_STORE="nonsense:x": /),
    ])
    expect(result.stdout).not.toContain("listening")
  })
})

describe("webdata worker", () => {
  it("exits 1 before it starts when a setting is bad, naming the variable", async () => {
    const result = await runWebdata(["worker"], { WEBDATA_WORKER_CONCURRENCY: "-2" })
    expect(result.code).toBe(1)
    expect(result.stderr.trim()).toBe('webdata: WEBDATA_WORKER_CONCURRENCY="-2": must be a whole number of at least 1')
  })
})
