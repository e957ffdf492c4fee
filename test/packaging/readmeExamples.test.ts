/**
 * The packages as a user installs them: every workspace package is packed with `npm pack`, the tarballs are installed
 * into a fresh project outside the repository, and the README's examples are compiled there with `tsc` (strict, against
 * the published type declarations) and run against a local site. Catches what the workspace hides: a missing `files`
 * entry, an export that points at nothing, a dependency only the monorepo provides, a README that no longer compiles.
 */
import { execFile } from "node:child_process"
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type FixtureSite, startFixtureSite } from "../../packages/core/test/support/fixtureSite.js"
import { readmeSnippets } from "./readmeSnippets.js"

const run = promisify(execFile)
const root = fileURLToPath(new URL("../..", import.meta.url))
const PACKAGES = [
  "core",
  "store-sqlite",
  "store-postgres",
  "store-redis",
  "browser",
  "parse",
  "adapter-express",
  "server",
  "adapter-lambda",
  "adapter-cli",
]

let project: string
let site: FixtureSite

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })

/** Runs a compiled example in the project; its stdout. */
const node = async (file: string, env: Record<string, string> = {}) =>
  (await run("node", [file], { cwd: project, env: { ...process.env, ...env }, timeout: 60_000 })).stdout

beforeAll(async () => {
  site = await startFixtureSite()
  project = await mkdtemp(join(tmpdir(), "webdata-install-"))
  const packs = join(project, "packs")
  await mkdir(packs)
  const workspaces = PACKAGES.flatMap((name) => ["-w", `packages/${name}`])
  const { stdout } = await run("npm", ["pack", ...workspaces, "--pack-destination", packs, "--json"], { cwd: root })
  const tarballs = (JSON.parse(stdout) as Array<{ name: string; filename: string }>).map(
    ({ name, filename }) => [name, `file:${join(packs, filename)}`] as const,
  )
  const devVersions = JSON.parse(await readFile(join(root, "package.json"), "utf8")).devDependencies
  const expressVersion = JSON.parse(await readFile(join(root, "packages/adapter-express/package.json"), "utf8"))
    .devDependencies.express
  await writeFile(
    join(project, "package.json"),
    JSON.stringify({
      name: "webdata-install-check",
      private: true,
      type: "module",
      dependencies: { ...Object.fromEntries(tarballs), express: expressVersion },
      devDependencies: {
        typescript: devVersions.typescript,
        "@types/node": devVersions["@types/node"],
        "@types/express": devVersions["@types/express"],
      },
    }),
  )
  await writeFile(
    join(project, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        skipLibCheck: false,
        outDir: "out",
        types: ["node"],
      },
      include: ["src"],
    }),
  )
  // better-sqlite3 compiles from source when no prebuilt binary can be downloaded: allow for it.
  await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"], {
    cwd: project,
    timeout: 600_000,
    maxBuffer: 64 * 1024 * 1024,
  })
}, 900_000)

afterAll(async () => {
  await site?.close()
  if (project !== undefined) await rm(project, { recursive: true, force: true })
})

describe("the packed packages installed into a fresh project", () => {
  it("compile the README's examples against the published types and run them", async () => {
    const snippets = await readmeSnippets(join(root, "README.md"), site.url, await freePort())
    await mkdir(join(project, "src"), { recursive: true })
    for (const [name, source] of Object.entries(snippets)) await writeFile(join(project, "src", `${name}.ts`), source)
    await run("npx", ["tsc", "-p", "."], { cwd: project, timeout: 120_000 }).catch((error) => {
      throw new Error(`The README's examples do not compile in a fresh project:\n${error.stdout}${error.stderr}`)
    })

    const scraped = await node("out/promise.js")
    expect(scraped).toContain("Tidal")

    const crawled = await node("out/promiseJobs.js")
    expect(crawled).toContain("completed")
    expect(crawled).toContain(`${site.url}/article`)

    expect(await node("out/effect.js")).toContain("Tidal")

    const browser = await node("out/browser.js")
    expect(browser).toContain("data:image/png;base64,")
    expect(browser).toMatch(/Tidal.*ws:\/\/127\.0\.0\.1:\d+\/devtools\/browser\//)

    // The README parses report.pdf from the working directory.
    await copyFile(join(root, "packages/parse/test/fixtures/pdf/report.pdf"), join(project, "report.pdf"))
    const files = await node("out/files.js")
    expect(files).toMatch(/^3 # Tidal Energy Survey/)

    // Without a model: the offline extractor reads the article's metadata; the summary is its own sentences.
    const structured = await node("out/structured.js")
    expect(structured).toContain("Tidal Energy Explained")
    expect(structured).toContain("offline")
    expect(structured).toContain("completed")

    const express = JSON.parse(await node("out/express.js"))
    expect(express).toMatchObject({ success: true, data: { metadata: { statusCode: 200 } } })
    expect(express.data.markdown).toContain("Tidal")

    // The last line: the engine logs before it (the warning that no API key is set).
    const lambda = JSON.parse((await node("out/lambda.js")).trim().split("\n").at(-1) ?? "")
    expect(lambda.scrape).toMatchObject({ success: true, data: { metadata: { statusCode: 200 } } })
    expect(lambda.scrape.data.markdown).toContain("Tidal")
    expect(lambda.crawl).toMatchObject({ status: 400, success: false, code: "JOBS_NOT_CONFIGURED" })
  }, 240_000)

  it("installs the webdata binary, which scrapes a page", async () => {
    const version = (await run("npx", ["webdata", "--version"], { cwd: project })).stdout
    expect(version.trim()).toMatch(/\d+\.\d+\.\d+/)
    const { stdout } = await run("npx", ["webdata", "scrape", `${site.url}/article`], {
      cwd: project,
      env: { ...process.env, WEBDATA_ALLOW_PRIVATE_ADDRESSES: "1" },
    })
    expect(stdout).toContain("Tidal")
    const parsed = await run(
      "npx",
      ["webdata", "parse", join(root, "packages/parse/test/fixtures/office/report.docx")],
      {
        cwd: project,
      },
    )
    expect(parsed.stdout).toContain("# Quarterly Field Report")
  }, 120_000)

  it("installs the server's binaries, which load and refuse a worker on a store of its own", async () => {
    const refused = await run("npx", ["webdata-worker"], {
      cwd: project,
      env: { ...process.env, WEBDATA_STORE: "memory:" },
    }).then(
      () => ({ code: 0, stderr: "" }),
      (error: { code: number; stderr: string }) => error,
    )
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain("webdata: cannot start the worker: WEBDATA_STORE=memory: is private")
  }, 120_000)
})
