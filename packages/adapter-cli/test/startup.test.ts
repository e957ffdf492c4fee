/**
 * Start-up: a one-shot command loads only what it runs. Checked on the modules the process loads (deterministic),
 * not on wall time: `--version` and `--help` load no engine, local commands the engine without the HTTP contract,
 * and only `serve` and `worker` the server, Express and the job store.
 */
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type FixtureSite, startFixtureSite } from "../../core/test/support/fixtureSite.js"
import { runWebdata } from "./support/binary.js"

const recorder = fileURLToPath(new URL("./support/recordLoads.mjs", import.meta.url))
const directory = mkdtempSync(join(tmpdir(), "webdata-loads-"))
let runs = 0

/** Runs the binary and returns its result with the module files it loaded. */
const loadsOf = async (args: ReadonlyArray<string>) => {
  const record = join(directory, `${++runs}.txt`)
  const result = await runWebdata(args, { WEBDATA_RECORD_LOADS: record }, ["--import", recorder])
  const loaded = readFileSync(record, "utf8").split("\n").filter(Boolean)
  return { ...result, loaded }
}

const loadsAny = (loaded: ReadonlyArray<string>, parts: ReadonlyArray<string>) =>
  loaded.filter((url) => parts.some((part) => url.includes(part)))

/** What a one-shot command leaves out: the server (Express, the job stores and drivers, the v2 HTTP contract) and more. */
const LEFT_OUT = [
  "/packages/server/",
  "/packages/adapter-express/",
  "/node_modules/express/",
  "/packages/store-sqlite/",
  "/node_modules/better-sqlite3/",
  "/packages/store-postgres/",
  "/packages/store-redis/",
  "/packages/core/src/Http/",
  // The indexes of @effect/platform and @effect/platform-node, which load every module of the package (the HTTP
  // server, cluster, RPC, SQL): the CLI imports the few modules it uses by their own paths.
  "/node_modules/@effect/platform/dist/esm/index.js",
  "/node_modules/@effect/platform-node/dist/esm/index.js",
  "/node_modules/@effect/cluster/",
]

let site: FixtureSite
beforeAll(async () => {
  site = await startFixtureSite()
})
afterAll(() => site.close())

describe("webdata start-up", () => {
  it("loads neither the engine nor the server for --version and --help", async () => {
    const version = await loadsOf(["--version"])
    expect(version.code).toBe(0)
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/)
    // The recorder saw the CLI itself, so an empty list below is not a recorder that saw nothing.
    expect(loadsAny(version.loaded, ["/packages/adapter-cli/src/Cli.ts"])).toHaveLength(1)
    expect(loadsAny(version.loaded, [...LEFT_OUT, "/packages/core/"])).toEqual([])
    const help = await loadsOf(["--help"])
    expect(help.code).toBe(0)
    expect(help.stdout).toContain("webdata")
    expect(loadsAny(help.loaded, [...LEFT_OUT, "/packages/core/"])).toEqual([])
  })

  it("loads the engine without the server for a local scrape and map", async () => {
    for (const args of [
      ["scrape", `${site.url}/article`],
      ["map", site.url, "--sitemap", "skip"],
    ]) {
      const run = await loadsOf(args)
      expect(run.code, run.stderr).toBe(0)
      expect(loadsAny(run.loaded, ["/packages/core/src/Engine.ts"]), args[0]).toHaveLength(1)
      expect(loadsAny(run.loaded, LEFT_OUT), args[0]).toEqual([])
    }
  })
})
