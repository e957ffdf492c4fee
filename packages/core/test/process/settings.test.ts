/**
 * The registry of environment variables (`Process/Settings.ts`) against what documents them and what reads them:
 * docs/configuration.md lists exactly the registry's variables, and every variable a package's sources read is in the
 * registry. Then the checks themselves: the values the readers refuse are refused here, with a line naming them.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import * as Settings from "../../src/Process/Settings.js"

const root = fileURLToPath(new URL("../../../../", import.meta.url))

/** The variables of docs/configuration.md's table "Environment variables": its rows' first cells. */
const documented = (): Set<string> => {
  const text = readFileSync(join(root, "docs/configuration.md"), "utf8")
  const section = text.slice(text.indexOf("## Environment variables"), text.indexOf("## Engine options"))
  const names = section
    .split("\n")
    .filter((line) => line.startsWith("| `"))
    .flatMap((line) => [...(line.split("|")[1] ?? "").matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((match) => match[1]!))
  return new Set(names)
}

const sourceFiles = (directory: string): Array<string> =>
  readdirSync(directory, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(directory, entry.name))
      : entry.name.endsWith(".ts")
        ? [join(directory, entry.name)]
        : [],
  )

/**
 * Variables the sources read: names given to `Config.*`, to the readers' helpers (`optionalString`, `required`, …)
 * or read from an environment object (`process.env.X`, `env.X`, `env["X"]`).
 */
const readInSources = (): Map<string, string> => {
  const found = new Map<string, string>()
  const packages = readdirSync(join(root, "packages"))
  for (const name of packages)
    for (const file of sourceFiles(join(root, "packages", name, "src"))) {
      const text = readFileSync(file, "utf8")
      const patterns = [
        /\b(?:Config\.[a-zA-Z]+|Config\.literal\([^)]*\)|optionalString|required|optional)\(\s*"([A-Z][A-Z0-9_]+)"/g,
        /\benv(?:ironment)?\.([A-Z][A-Z0-9_]+)\b/g,
        /\benv\[\s*"([A-Z][A-Z0-9_]+)"\s*\]/g,
      ]
      for (const pattern of patterns)
        for (const match of text.matchAll(pattern)) found.set(match[1]!, file.slice(root.length))
    }
  return found
}

/**
 * Set by the browser package for its own code-runner child process, never by an operator; `PATH`, `NO_COLOR` and
 * `TERM` are the system's.
 */
const NOT_SETTINGS = new Set(["WEBDATA_CDP_ENDPOINT", "WEBDATA_PLAYWRIGHT", "PATH", "NO_COLOR", "TERM"])

describe("the registry of environment variables", () => {
  it("is what docs/configuration.md documents: every variable, and no other", () => {
    const docs = documented()
    const registered = new Set(Settings.all.map((setting) => setting.name))
    expect([...registered].filter((name) => !docs.has(name))).toEqual([])
    expect([...docs].filter((name) => !registered.has(name))).toEqual([])
    expect(registered.size).toBe(Settings.all.length)
  })

  it("holds every variable the packages' sources read", () => {
    const read = readInSources()
    // The scan itself finds readers of each kind.
    expect(read.get("WEBDATA_WORKER_CONCURRENCY")).toBe("packages/core/src/Jobs/Worker.ts")
    expect(read.get("WEBDATA_TRUST_PROXY")).toBe("packages/server/src/serve.ts")
    expect(read.has("SEARXNG_URL")).toBe(true)
    const unknown = [...read].filter(([name]) => !Settings.byName.has(name) && !NOT_SETTINGS.has(name))
    expect(unknown).toEqual([])
  })

  it("describes each variable in a line, with a default and a reader", () => {
    for (const setting of Settings.all) {
      expect(setting.description, setting.name).toMatch(/^[A-Z0-9].*\.$/)
      expect(setting.description, setting.name).not.toMatch(/TODO|\n/)
      expect(setting.default, setting.name).not.toBe("")
      expect(setting.readBy.length, setting.name).toBeGreaterThan(0)
    }
  })
})

describe("Settings.problems", () => {
  const messages = (env: Record<string, string>) => Settings.problems(env).map((problem) => problem.message)

  it("accepts good values and the empty environment", () => {
    expect(messages({})).toEqual([])
    expect(
      messages({
        PORT: "0",
        WEBDATA_STORE: "postgres://user:secret@db.internal:5432/webdata",
        WEBDATA_WORKER: "0",
        WEBDATA_WORKER_CONCURRENCY: "32",
        WEBDATA_CACHE_SCOPE: "global",
        WEBDATA_LOG_LEVEL: "Debug",
        WEBDATA_SEARCH: "searxng, local",
        WEBDATA_LLM: "openai:gpt-4.1-mini",
        WEBDATA_PROXY_URL: "http://proxy.internal:3128,http://other.internal:3128",
        WEBDATA_ARTIFACTS: "s3://bucket/prefix",
        WEBDATA_JOB_TTL_HOURS: "0.5",
        WEBDATA_SHUTDOWN_GRACE_MS: "0",
        // Empty means unset for this one, as its reader takes it.
        WEBDATA_ALLOW_PRIVATE_ADDRESSES: "",
      }),
    ).toEqual([])
  })

  it("names the variable, its value and what is wrong, in one line each", () => {
    expect(
      messages({
        WEBDATA_WORKER_CONCURRENCY: "-4",
        WEBDATA_CACHE_SCOPE: "everyone",
        WEBDATA_STORE: "sqlight:/data/x.db",
        WEBDATA_LOG_LEVEL: "verbose",
        WEBDATA_JOB_TTL_HOURS: "0",
        WEBDATA_WORKER: "TRUE",
        PORT: "70000",
      }),
    ).toEqual([
      'PORT="70000": must be a port, 0 to 65535',
      'WEBDATA_CACHE_SCOPE="everyone": must be one of key, global',
      'WEBDATA_STORE="sqlight:/data/x.db": expected sqlite:<path>, memory:, postgres://… (or postgresql://…) or redis://… (or rediss://…)',
      'WEBDATA_WORKER="TRUE": must be 1 or 0 (true/false, yes/no)',
      'WEBDATA_WORKER_CONCURRENCY="-4": must be a whole number of at least 1',
      'WEBDATA_JOB_TTL_HOURS="0": must be a number more than 0',
      'WEBDATA_LOG_LEVEL="verbose": must be one of all, trace, debug, info, warn, warning, error, fatal, none, off',
    ])
  })

  it("reuses the readers' own parsers: a model and a search provider", () => {
    expect(messages({ WEBDATA_LLM: "gpt-4" })[0]).toMatch(
      /^WEBDATA_LLM="gpt-4": Model "gpt-4" is not <provider>:<model>/,
    )
    expect(messages({ WEBDATA_SEARCH: "local,googel" })).toEqual([
      'WEBDATA_SEARCH="local,googel": unknown googel; use a comma list of local, searxng, brave, duckduckgo, serper',
    ])
  })

  it("never shows a secret: the value of a secret variable, the password of a URL", () => {
    expect(messages({ WEBDATA_SMTP_URL: "http://user:hunter2@mail.internal" })).toEqual([
      "WEBDATA_SMTP_URL: must be a smtp:// or smtps:// URL",
    ])
    const [store] = messages({ WEBDATA_STORE: "postgress://user:hunter2@db.internal/x" })
    expect(store).toContain("WEBDATA_STORE=")
    expect(store).not.toContain("hunter2")
  })

  it("finds WEBDATA_ names that are no setting", () => {
    expect(Settings.unknownNames({ WEBDATA_STOER: "memory:", WEBDATA_STORE: "memory:", HOME: "/root" })).toEqual([
      "WEBDATA_STOER",
    ])
  })
})

describe("Settings.report", () => {
  it("has a line for each problem, and a warning for each unknown WEBDATA_ name", () => {
    expect(Settings.report({ PORT: "-1", WEBDATA_STOER: "memory:", WEBDATA_STORE: "memory:" })).toEqual({
      errors: ['PORT="-1": must be a port, 0 to 65535'],
      warnings: ["WEBDATA_STOER is not a setting (ignored); the settings are in docs/configuration.md"],
    })
    expect(Settings.report({ WEBDATA_STORE: "memory:" })).toEqual({ errors: [], warnings: [] })
  })
})
