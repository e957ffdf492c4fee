/**
 * Keys across two API processes on one store (a SQLite file, then Postgres): a key the admin API makes on one process
 * works on the other, a revocation made on one is refused by the other within seconds, and a rate limit is one budget
 * for both processes (its counter is in the store).
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { type Backend, freshPostgres } from "./support/backends.js"
import { until } from "./support/crawlApi.js"
import { type Entry, startEntry } from "./support/entry.js"

const ADMIN = "admin-key-0123456789abcdef"

const running: Array<Entry> = []
const directories: Array<string> = []
afterAll(async () => {
  for (const entry of running.splice(0)) entry.process.kill("SIGKILL")
  for (const directory of directories) rmSync(directory, { recursive: true, force: true })
})

const startApi = async (env: Record<string, string>) => {
  const entry = startEntry("main.ts", {
    HOST: "127.0.0.1",
    PORT: "0",
    WEBDATA_WORKER: "0",
    WEBDATA_ADMIN_KEY: ADMIN,
    WEBDATA_RATE_LIMITS: "status=6/min",
    ...env,
  })
  running.push(entry)
  const [, url] = await entry.waitFor(/listening on (http:\/\/\S+)/)
  return url as string
}

const call = async (api: string, method: string, path: string, key: string, body?: object) => {
  const response = await fetch(`${api}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

const sqliteFile = (): Backend => {
  const directory = mkdtempSync(join(tmpdir(), "webdata-tenants-"))
  directories.push(directory)
  return {
    name: "sqlite",
    layer: () => {
      throw new Error("not used")
    },
    env: { WEBDATA_STORE: `sqlite:${join(directory, "webdata.db")}` },
    cleanUp: async () => {},
  }
}

describe.each([
  ["a SQLite file", sqliteFile],
  ["Postgres", freshPostgres],
])("two API processes on %s", (_, backend) => {
  it("share keys, revocations and rate limits", { timeout: 60_000 }, async () => {
    const store = backend()
    try {
      const [first, second] = [await startApi(store.env), await startApi(store.env)] as [string, string]
      const made = await call(first, "POST", "/v2/admin/keys", ADMIN, { name: "shared", limits: "status=4/min" })
      expect(made.status).toBe(200)
      const key = made.body.key as string

      // One budget of 4 status requests a minute across both processes (unless a minute turns over meanwhile).
      const minute = () => Math.floor(Date.now() / 60_000)
      const began = minute()
      const statuses: Array<number> = []
      for (const api of [first, second, first, second, second])
        statuses.push((await call(api, "GET", "/v2/crawl/active", key)).status)
      if (minute() === began) expect(statuses).toEqual([200, 200, 200, 200, 429])

      const revokedAt = Date.now()
      const id = (made.body.data as { id: string }).id
      expect((await call(first, "DELETE", `/v2/admin/keys/${id}`, ADMIN)).status).toBe(200)
      expect((await call(first, "GET", "/v2/crawl/active", key)).status).toBe(401)
      await until(
        () => call(second, "GET", "/v2/crawl/active", key),
        (answer) => answer.status === 401,
        5_000,
      )
      expect(Date.now() - revokedAt).toBeLessThan(3_500)
    } finally {
      await store.cleanUp()
    }
  })
})
