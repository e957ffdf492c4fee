import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Engine, ServerConfig } from "@webdata/core"
import { type RunningServer, serve } from "@webdata/server"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { type FakeModel, type FakeReply, replySequence, startFakeModel } from "../../core/test/support/fakeModels.js"
import { stepLine } from "../src/FollowRun.js"
import { runWebdata } from "./support/binary.js"
import { type Child, spawnWebdata } from "./support/child.js"
import { type ProductSite, product, productSchema, startProductSite } from "./support/productSite.js"
import { webdata } from "./support/run.js"

let site: ProductSite
/** An API without a language model, like a server without WEBDATA_LLM. */
let plainApi: RunningServer
const dir = mkdtempSync(join(tmpdir(), "webdata-agent-"))
const schemaFile = join(dir, "product.json")
writeFileSync(schemaFile, JSON.stringify(productSchema))

beforeAll(async () => {
  site = await startProductSite()
  plainApi = await serve({
    port: 0,
    engine: Engine.layer({ allowPrivateAddresses: true }),
    serverConfig: ServerConfig.layer({ apiKeys: [] }),
  })
})
afterAll(async () => {
  await plainApi.close()
  await site.close()
})

const open: Array<{ readonly close: () => Promise<void> }> = []
afterEach(async () => {
  for (const resource of open.splice(0).reverse()) await resource.close()
})

const page = (path: string) => `${site.url}${path}`

/** A fake model answering `replies` in turn, and the environment that makes the CLI's local engine use it. */
const fakeModel = async (reply: () => FakeReply) => {
  const model = await startFakeModel({ reply })
  open.push(model)
  const env = { WEBDATA_LLM: "openai-chat:test", OPENAI_BASE_URL: model.baseUrl, OPENAI_API_KEY: "x" }
  return { model, env }
}

/** An API whose engine has the fake model. */
const apiWith = async (model: FakeModel) => {
  const api = await serve({
    port: 0,
    engine: Engine.layer({
      allowPrivateAddresses: true,
      llm: { model: "openai-chat:test", baseUrl: model.baseUrl, apiKey: "x" },
    }),
    serverConfig: ServerConfig.layer({ apiKeys: [] }),
  })
  open.push(api)
  return api
}

/** The model reads the product page, then finishes with its name and price. */
const scrapeThenFinish = () =>
  replySequence(
    { json: { thought: "read the product page", tool: "scrape", url: page("/product") } },
    { json: { thought: "the page says it", tool: "finish", data: { name: product.name, price: product.price } } },
  )

const stepLines = (stderr: string) => stderr.split("\n").filter((line) => line.startsWith("step "))

describe("webdata agent", () => {
  it("prints each step on stderr as it happens and the final data on stdout", async () => {
    const { model, env } = await fakeModel(scrapeThenFinish())
    const result = await runWebdata(["agent", "What does the Acme Anvil cost?", "--url", page("/product")], env)
    expect(result.code, result.stderr).toBe(0)
    expect(stepLines(result.stderr)).toEqual([
      `step 0  scrape  ${page("/product")}  → Read ${product.name}`,
      "step 1  finish  → Finished",
    ])
    expect(JSON.parse(result.stdout)).toEqual({ name: product.name, price: product.price })
    expect(model.requests).toHaveLength(2)
    // The page's text reached the model for its last decision.
    expect(model.requests[1]?.text).toContain("forged from one piece of steel")
  })

  it("runs on a server with --api-url, and prints the whole answer with --json", async () => {
    const { model } = await fakeModel(scrapeThenFinish())
    const api = await apiWith(model)
    const result = await webdata([
      "agent",
      "What does the Acme Anvil cost?",
      "--url",
      page("/product"),
      "--schema",
      schemaFile,
      "--max-credits",
      "50",
      "--strict",
      "--json",
      "--api-url",
      api.url,
    ])
    expect(result.code, result.stderr).toBe(0)
    expect(stepLines(result.stderr)).toEqual([
      `step 0  scrape  ${page("/product")}  → Read ${product.name}`,
      "step 1  finish  → Finished",
    ])
    const answer = JSON.parse(result.stdout)
    expect(answer).toMatchObject({
      success: true,
      status: "completed",
      data: { name: product.name, price: product.price },
      model: "openai-chat:test",
    })
    expect(answer.steps.map((step: { tool: string }) => step.tool)).toEqual(["scrape", "finish"])
    // The schema, the URL and the constraint reached the model.
    expect(model.requests[0]?.text).toContain('"price":{"type":"number"}')
    expect(model.requests[0]?.text).toContain(`Only these URLs may be read: ${page("/product")}`)
  })

  it("fails with the run's error in one line, exit code 1", async () => {
    const { env } = await fakeModel(() => ({ status: 401 }))
    const result = await runWebdata(["agent", "What does the Acme Anvil cost?"], env)
    expect(result).toMatchObject({ code: 1, stdout: "" })
    // The engine's log lines (the model it found) go to stderr too; the failure is the last line.
    expect(result.stderr).toMatch(/(^|\n)webdata: The model failed at step 0: [^\n]+\n$/)
  })

  it("needs a language model: one line, exit code 1", async () => {
    for (const connection of [[], ["--api-url", plainApi.url]]) {
      const result = await webdata([
        "agent",
        "What does the Acme Anvil cost?",
        "--url",
        page("/product"),
        ...connection,
      ])
      expect(result).toMatchObject({ code: 1, stdout: "" })
      expect(result.stderr).toMatch(
        /^webdata: The agent needs a language model, and none is configured\. Set WEBDATA_LLM .*\(LLM_NOT_CONFIGURED\)\n$/,
      )
    }
  })

  it("refuses a schema file it cannot read or parse, in one line", async () => {
    const missing = await webdata(["agent", "price?", "--schema", join(dir, "missing.json")])
    expect(missing).toMatchObject({
      code: 1,
      stderr: `webdata: Cannot read ${join(dir, "missing.json")}: no such file\n`,
    })
    const bad = join(dir, "bad.json")
    writeFileSync(bad, '{"type": ')
    const unparsed = await webdata(["agent", "price?", "--schema", bad])
    expect(unparsed.code).toBe(1)
    expect(unparsed.stderr).toMatch(new RegExp(`^webdata: ${bad} is not valid JSON: [^\\n]+\\n$`))
    expect((await webdata(["agent"])).stderr).toBe("webdata: Missing argument <prompt> (see webdata --help)\n")
  })

  it("lists its options in --help", async () => {
    const help = await webdata(["agent", "--help"])
    expect(help.code).toBe(0)
    for (const option of ["--url", "--schema", "--max-credits", "--strict", "--json", "--api-url", "--api-key"])
      expect(help.stdout).toContain(option)
    expect((await webdata(["--help"])).stdout).toContain("agent")
  })

  it("cancels the run on Ctrl-C and exits with 130", async () => {
    const { model, env } = await fakeModel(() => ({ hang: true }))
    const api = await apiWith(model)
    const local = spawnWebdata(["agent", "What does the Acme Anvil cost?"], env)
    await untilAsked(model, local)
    local.process.kill("SIGINT")
    expect(await local.exited).toBe(130)
    expect(local.stderr()).toMatch(/\nwebdata: agent [0-9a-f-]{36} cancelled\n$/)
    const child = spawnWebdata(["agent", "What does the Acme Anvil cost?", "--api-url", api.url])
    await untilAsked(model, child)
    child.process.kill("SIGINT")
    expect(await child.exited).toBe(130)
    expect(child.stderr()).toMatch(/^webdata: agent [0-9a-f-]{36} cancelled\n$/)
    const id = /agent ([0-9a-f-]{36})/.exec(child.stderr())?.[1]
    const status = await (await fetch(`${api.url}/v2/agent/${id}`)).json()
    expect(status.status).toBe("cancelled")
  })
})

/** Waits until the model was asked once more (a run started), and the CLI that started it is following it. */
const untilAsked = async (model: FakeModel, child: Child) => {
  const before = model.requests.length
  while (model.requests.length === before) {
    if (child.process.exitCode !== null)
      throw new Error(`webdata exited (${child.process.exitCode}): ${child.stderr()}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  // The model is asked as soon as the run starts; the CLI, which prints nothing until a step is done, is then
  // following it a moment later.
  await new Promise((resolve) => setTimeout(resolve, 1000))
}

describe("agent step lines", () => {
  it("show the tool's input and output on one line", () => {
    const at = "2025-01-01T00:00:00.000Z"
    expect(stepLine({ step: 0, tool: "search", input: { query: "anvil price" }, output: "8 results", at })).toBe(
      'step 0  search  "anvil price"  → 8 results',
    )
    expect(
      stepLine({
        step: 2,
        tool: "extract",
        input: { url: "http://a.test/p", prompt: "the price\nin dollars" },
        output: '{"price":\n19.99}',
        at,
      }),
    ).toBe('step 2  extract  http://a.test/p  "the price in dollars"  → {"price": 19.99}')
    expect(stepLine({ step: 3, tool: "finish", input: {}, output: "Finished", thought: "done", at })).toBe(
      "step 3  finish  → Finished",
    )
  })
})
