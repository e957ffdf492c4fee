import { spawn } from "node:child_process"
import { once } from "node:events"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { hostPrefix, isGone, newHolder } from "../../src/Jobs/WorkerIdentity.js"

const identityModule = fileURLToPath(new URL("../../src/Jobs/WorkerIdentity.ts", import.meta.url))

describe("WorkerIdentity", () => {
  it("tells a stopped process of this machine from a running one", async () => {
    // A child names itself like a worker would, then waits to be killed.
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "--input-type=module",
        "-e",
        `const { newHolder } = await import(${JSON.stringify(identityModule)}); console.log(newHolder()); setInterval(() => {}, 1000)`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    )
    const [line] = (await once(child.stdout, "data")) as [Buffer]
    const holder = line.toString().trim()
    expect(holder.startsWith(hostPrefix())).toBe(true)
    expect(isGone(holder)).toBe(false)
    child.kill("SIGKILL")
    await once(child, "exit")
    expect(isGone(holder)).toBe(true)
  })

  it("never judges this process, another machine's worker or a foreign name gone", () => {
    expect(isGone(newHolder())).toBe(false)
    const [, pid, start, nonce] = newHolder().split("|")
    expect(isGone(["another-host", pid, start, nonce].join("|"))).toBe(false)
    expect(isGone("w1")).toBe(false)
    expect(isGone(`${hostPrefix()}not-a-pid|x|y`)).toBe(false)
  })

  it("judges a holder with this process's pid but another start time gone (the pid was reused)", () => {
    const [host, pid, , nonce] = newHolder().split("|")
    if (process.platform === "linux") expect(isGone([host, pid, "1", nonce].join("|"))).toBe(true)
  })
})
