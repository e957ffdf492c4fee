/**
 * `webdata monitor`: in process (on an SQLite store of the test's, as `webdata serve` would open) and through a
 * server (`--api-url`), against a fixture site on 127.0.0.1 that the test edits between checks.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Engine, ServerConfig } from "@webdata/core"
import { type RunningServer, serve } from "@webdata/server"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type EditableSite, page, startEditableSite } from "../../core/test/support/editableSite.js"
import { everyText } from "../src/commands/monitorAdd.js"
import { webdata } from "./support/run.js"

const HELLO = page("News", "<p>The first paragraph says hello.</p><p>Stays.</p>")
const GOODBYE = page("News", "<p>The first paragraph says goodbye.</p><p>Stays.</p>")

let site: EditableSite
let api: RunningServer
beforeAll(async () => {
  site = await startEditableSite({ "/news": HELLO })
  api = await serve({
    port: 0,
    engine: Engine.layer({ allowPrivateAddresses: true }),
    serverConfig: ServerConfig.layer({ apiKeys: [] }),
  })
  // In process, monitors live in the store `webdata serve` would open: here a file of the test's.
  process.env.WEBDATA_STORE = `sqlite:${join(mkdtempSync(join(tmpdir(), "webdata-monitor-")), "webdata.db")}`
})
afterAll(async () => {
  delete process.env.WEBDATA_STORE
  await api.close()
  await site.close()
})

const rows = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .map((line) => line.split("\t"))

describe.each([
  { mode: "in process", connection: (): ReadonlyArray<string> => [] },
  { mode: "with --api-url", connection: (): ReadonlyArray<string> => ["--api-url", api.url] },
])("webdata monitor, $mode", ({ mode, connection }) => {
  const monitor = (...args: ReadonlyArray<string>) => webdata(["monitor", ...args, ...connection()])

  it("adds, lists, runs and waits, reads checks, pauses and deletes", async () => {
    site.pages.set("/news", HELLO)
    const added = await monitor("add", `${site.url}/news`, "--every", "30 minutes", "--name", "News")
    expect(added.code, added.stderr).toBe(0)
    const [[id = "", status, schedule, next, name] = []] = rows(added.stdout)
    expect({ status, schedule, name }).toEqual({ status: "active", schedule: "*/30 * * * * (UTC)", name: "News" })
    expect(next).toMatch(/^\d{4}-\d\d-\d\dT/)
    if (mode === "in process") expect(added.stderr).toContain("where a worker serves this store (webdata serve")
    else expect(added.stderr).toBe("")

    const listed = await monitor("list")
    expect(listed.code).toBe(0)
    expect(rows(listed.stdout).find((row) => row[0] === id)?.[4]).toBe("News")

    const first = await monitor("run", id, "--wait")
    expect(first.code, first.stderr).toBe(0)
    expect(first.stdout).toMatch(new RegExp(`^Check \\S+ completed: 1 page: 1 new\\nnew\\t${site.url}/news\\n$`))

    site.pages.set("/news", GOODBYE)
    const second = await monitor("run", id, "--wait", "--json")
    expect(second.code, second.stderr).toBe(0)
    const changed = JSON.parse(second.stdout)
    expect(changed).toMatchObject({ status: "completed", summary: { totalPages: 1, changed: 1 } })
    expect(changed.pages[0].diff.text).toContain("+The first paragraph says goodbye.")

    const checks = await monitor("checks", id)
    expect(checks.code).toBe(0)
    expect(rows(checks.stdout).map((row) => [row[1], row[2], row[4]])).toEqual(
      expect.arrayContaining([
        ["completed", "manual", "1 page: 1 new"],
        ["completed", "manual", "1 page: 1 changed"],
      ]),
    )
    const detail = await monitor("check", id, changed.id, "--diff")
    expect(detail.code).toBe(0)
    expect(detail.stdout).toContain(`changed\t${site.url}/news\n`)
    expect(detail.stdout).toContain("+The first paragraph says goodbye.")

    const paused = await monitor("pause", id)
    expect(rows(paused.stdout)[0]?.slice(1, 4)).toEqual(["paused", "*/30 * * * * (UTC)", "-"])
    const resumed = await monitor("resume", id, "--json")
    expect(JSON.parse(resumed.stdout)).toMatchObject({ id, status: "active", nextRunAt: expect.any(String) })

    const deleted = await monitor("delete", id)
    expect(deleted).toMatchObject({ code: 0, stdout: `Monitor ${id} deleted\n` })
    const gone = await monitor("get", id)
    expect(gone).toMatchObject({ code: 1, stdout: "", stderr: "webdata: Monitor not found (NOT_FOUND)\n" })
  })

  it("refuses a schedule it does not know with one line and exit code 1", async () => {
    const moon = await monitor("add", `${site.url}/news`, "--every", "blue moon")
    expect(moon).toMatchObject({ code: 1, stdout: "" })
    expect(moon.stderr).toMatch(
      /^webdata: Unrecognized schedule text "blue moon"\. Accepted forms: .*\(BAD_REQUEST\)\n$/,
    )
  })
})

describe("webdata monitor run, in process", () => {
  it("leaves a check to the store's worker, and runs the one under way when told to wait", async () => {
    const added = await webdata(["monitor", "add", `${site.url}/news`, "--every", "hourly", "--json"])
    const { id } = JSON.parse(added.stdout)
    const queued = await webdata(["monitor", "run", id])
    expect(queued.code, queued.stderr).toBe(0)
    const [[checkId = ""] = []] = rows(queued.stdout)
    expect(queued.stderr).toContain("The check runs where a worker serves this store")
    const waited = await webdata(["monitor", "run", id, "--wait"])
    expect(waited.code, waited.stderr).toBe(0)
    expect(waited.stderr).toBe(`A check of this monitor is under way: following it (${checkId}).\n`)
    expect(waited.stdout).toMatch(new RegExp(`^Check ${checkId} completed: 1 page: 1 new\\n`))
    expect((await webdata(["monitor", "delete", id])).code).toBe(0)
  })
})

describe("webdata monitor add, flags", () => {
  it("turns --every into a schedule's text", () => {
    expect(everyText("30 minutes")).toBe("every 30 minutes")
    expect(everyText(" every 2 hours ")).toBe("every 2 hours")
    expect(everyText("daily at 9am")).toBe("daily at 9am")
  })

  it("refuses a missing schedule, two schedules and --limit without --crawl before anything runs", async () => {
    const url = `${site.url}/news`
    expect(await webdata(["monitor", "add", url])).toMatchObject({
      code: 1,
      stderr: 'webdata: A monitor needs a schedule: --every "30 minutes" or --cron "*/30 * * * *"\n',
    })
    expect((await webdata(["monitor", "add", url, "--every", "hourly", "--cron", "0 * * * *"])).stderr).toBe(
      "webdata: Give --every or --cron, not both\n",
    )
    expect((await webdata(["monitor", "add", url, "--every", "hourly", "--limit", "5"])).stderr).toBe(
      "webdata: --limit bounds a crawl: use it with --crawl\n",
    )
    expect((await webdata(["monitor"])).stderr).toMatch(/^webdata: Missing subcommand: add, list, .*\n$/)
  })

  it("refuses the memory store in process: the monitor would not outlive the command", async () => {
    const store = process.env.WEBDATA_STORE
    process.env.WEBDATA_STORE = "memory:"
    try {
      const result = await webdata(["monitor", "list"])
      expect(result).toMatchObject({ code: 1, stdout: "" })
      expect(result.stderr).toMatch(/^webdata: WEBDATA_STORE=memory: keeps nothing after this command; .*\n$/)
    } finally {
      process.env.WEBDATA_STORE = store
    }
  })
})
