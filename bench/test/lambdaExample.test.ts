/**
 * `examples/lambda` as it deploys: the esbuild bundle of `build.mjs`, written to a folder outside the repository (so
 * that nothing resolves from its node_modules, as in a Lambda container) and loaded by a fresh `node` process
 * (`bench/lambda/probe.mjs`), answers HTTP API events for scrapes of pages on 127.0.0.1 (HTML on the main thread and
 * on a content thread, a PDF on a parse thread) and runs a crawl through its whole job path on the local Redis (the
 * tests' store; nothing here skips when it is down): `handler` → an SQS queue faked on loopback → `workHandler` →
 * the crawl's status. The SAM template parses (with CloudFormation's tags), its references resolve, and every
 * handler it names is exported by the bundle.
 */
import { spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import { mkdtemp, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Redis } from "ioredis"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type CollectionTag, parse, type ScalarTag, type YAMLMap, type YAMLSeq } from "yaml"
import { type BuildResult, build } from "../../examples/lambda/build.mjs"
import { BIG_MARKER, PDF_TEXT, type Site, startSite } from "../lambda/site.mjs"

const PROBE = fileURLToPath(new URL("../lambda/probe.mjs", import.meta.url))
const TEMPLATE = fileURLToPath(new URL("../../examples/lambda/template.yaml", import.meta.url))
const REDIS_URL = "redis://127.0.0.1:6379"

interface ScrapeReport {
  readonly url: string
  readonly statusCode: number
  readonly success?: boolean
  readonly markdownLength?: number
  readonly markdownHead?: string
  readonly markdownTail?: string
  readonly error?: unknown
}

interface ProbeReport {
  readonly importMs: number
  readonly exports: ReadonlyArray<string>
  readonly scrapes: ReadonlyArray<ScrapeReport>
  readonly crawl?: {
    readonly start: { readonly statusCode: number; readonly body: { readonly success?: boolean; readonly id?: string } }
    readonly workerInvocations: number
    readonly failures: ReadonlyArray<unknown>
    readonly status?: string
    readonly completed?: number
    readonly total?: number
    readonly documents?: ReadonlyArray<{ readonly url?: string; readonly markdownHead?: string }>
    readonly sweep: { readonly due: number; readonly woken: number }
    readonly sqs: { readonly requests: number; readonly signed: number }
  }
}

/** Runs the probe on the bundle in `outdir` with `env`; its report, or a failure with what it printed. */
const runProbe = (outdir: string, env: Record<string, string>): Promise<ProbeReport> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [PROBE, join(outdir, "index.js")], {
      cwd: outdir,
      env: { PATH: process.env.PATH ?? "", WEBDATA_ALLOW_PRIVATE_ADDRESSES: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8")
    })
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8")
    })
    child.once("exit", (code) => {
      const line = stdout.split("\n").find((each) => each.startsWith("PROBE "))
      if (code === 0 && line !== undefined) resolve(JSON.parse(line.slice("PROBE ".length)) as ProbeReport)
      else reject(new Error(`the probe exited with ${code}\n${stdout.slice(-3000)}\n${stderr.slice(-3000)}`))
    })
  })

/** CloudFormation's short forms (`!Ref`, `!GetAtt`, `!If`, …) as their long forms, on scalars, lists and maps. */
const INTRINSICS = ["Ref", "Condition", "GetAtt", "Sub", "If", "Equals", "Not", "And", "Or", "Join", "Select", "Split"]
const longName = (name: string) => (name === "Ref" || name === "Condition" ? name : `Fn::${name}`)
const cloudFormationTags: Array<ScalarTag | CollectionTag> = INTRINSICS.flatMap((name) => [
  { tag: `!${name}`, resolve: (value: string) => ({ [longName(name)]: value }) },
  ...(["seq", "map"] as const).map(
    (collection): CollectionTag => ({
      tag: `!${name}`,
      collection,
      resolve: (value: YAMLMap.Parsed | YAMLSeq.Parsed) => ({ [longName(name)]: value.toJSON() }),
    }),
  ),
])

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }
type Properties = Record<string, Json>
interface Template {
  readonly Parameters: Record<string, Properties>
  readonly Conditions: Record<string, Json>
  readonly Globals: { readonly Function: Properties }
  readonly Resources: Record<
    string,
    { readonly Type: string; readonly Condition?: string; readonly Properties: Properties }
  >
  readonly Outputs: Record<string, Properties>
}

/** Every logical name `value` refers to (`Ref`, `Fn::GetAtt`, `${…}` of `Fn::Sub`) and every condition it names. */
const referencesOf = (value: Json, found = { names: new Set<string>(), conditions: new Set<string>() }) => {
  if (Array.isArray(value)) for (const each of value) referencesOf(each, found)
  else if (value !== null && typeof value === "object") {
    for (const [key, inner] of Object.entries(value as Record<string, Json>)) {
      if (key === "Ref" && typeof inner === "string") found.names.add(inner)
      else if (key === "Fn::GetAtt")
        found.names.add(typeof inner === "string" ? inner.split(".")[0]! : String((inner as Array<Json>)[0]))
      else if (key === "Fn::Sub") {
        // `!Sub [text, { Name: value }]`: the map's names are the text's own.
        const [text, own] = typeof inner === "string" ? [inner, {}] : (inner as [string, Record<string, Json>])
        for (const match of text.matchAll(/\$\{([^!}][^}]*)\}/g)) {
          const name = match[1]!.split(".")[0]!
          if (!(name in own)) found.names.add(name)
        }
      } else if ((key === "Condition" && typeof inner === "string") || key === "Fn::If") {
        found.conditions.add(typeof inner === "string" ? inner : String((inner as Array<Json>)[0]))
      }
      referencesOf(inner, found)
    }
  }
  return found
}

describe("examples/lambda", () => {
  let outdir: string
  let built: BuildResult
  let site: Site
  let report: ProbeReport

  beforeAll(async () => {
    outdir = await mkdtemp(join(tmpdir(), "webdata-lambda-example-"))
    site = await startSite()
    built = await build({ outdir, logLevel: "silent" })
    report = await runProbe(outdir, { PROBE_SCRAPE: ["/article", "/big", "/doc.pdf"].map(site.url).join(",") })
  })

  afterAll(async () => {
    await site?.close()
    if (outdir !== undefined) await rm(outdir, { recursive: true, force: true })
  })

  it("bundles the handlers and the engine's thread entries, without warnings and without the externals", async () => {
    expect(built.warnings).toEqual([])
    const names = built.files.map((file) => file.path.slice(outdir.length + 1)).sort()
    expect(names).toEqual([
      "DocumentWorker.js",
      "DocumentWorker.js.map",
      "ParseWorker.js",
      "ParseWorker.js.map",
      "index.js",
      "index.js.map",
    ])
    expect(JSON.parse(await readFile(join(outdir, "package.json"), "utf8"))).toEqual({ type: "module" })
    const inputs = Object.keys(built.metafile.inputs).join("\n")
    for (const external of ["playwright-core", "better-sqlite3", "store-sqlite/", "tesseract.js", "@napi-rs/canvas"])
      expect(inputs).not.toContain(external)
    // The stores the deployment may name are in it (imported only when named).
    expect(inputs).toContain("store-postgres/")
    expect(inputs).toContain("store-redis/")
    // 4.3 MB when measured (bench/README.md); far more would mean something was pulled in by mistake.
    const index = built.files.find((file) => file.path.endsWith("/index.js"))!
    expect(index.bytes).toBeLessThan(8 * 1024 * 1024)
  })

  it("answers POST /v2/scrape in a fresh node process, from outside the repository", () => {
    expect(report.exports).toEqual(
      expect.arrayContaining(["handler", "streamingHandler", "workHandler", "scheduleHandler"]),
    )
    const [article, big, pdf] = report.scrapes
    for (const scrape of report.scrapes)
      expect({ url: scrape.url, statusCode: scrape.statusCode, error: scrape.error }).toEqual({
        url: scrape.url,
        statusCode: 200,
        error: undefined,
      })
    expect(article?.markdownHead).toContain("Paragraph 0 of the article explains")
    expect(article?.markdownTail).toContain("| Row 29 | 58 | 87 |")
    // Past 256 Ki characters: built on a content thread (DocumentWorker.js next to the bundle).
    expect(big?.markdownTail).toContain(BIG_MARKER)
    // Parsed on a parse thread (ParseWorker.js).
    expect(pdf?.markdownHead).toContain(PDF_TEXT)
  })

  it("runs a crawl through the queue and the workers on a shared store (Redis)", async () => {
    const prefix = `webdata-test:lambda-example:${randomUUID()}:`
    try {
      const { crawl } = await runProbe(outdir, {
        PROBE_CRAWL: site.url("/site/"),
        WEBDATA_STORE: REDIS_URL,
        WEBDATA_REDIS_PREFIX: prefix,
      })
      expect(crawl?.start.statusCode).toBe(200)
      expect(crawl?.failures).toEqual([])
      expect({ status: crawl?.status, completed: crawl?.completed, total: crawl?.total }).toEqual({
        status: "completed",
        completed: 4,
        total: 4,
      })
      expect(crawl?.documents?.map((document) => document.markdownHead).sort()).toEqual(
        [0, 1, 2, 3].map((n) => `The text of page ${n} of the crawled site.`),
      )
      // The API function's message to the queue, signed with the function's credentials.
      expect(crawl?.sqs.requests).toBeGreaterThanOrEqual(1)
      expect(crawl?.sqs.signed).toBe(crawl?.sqs.requests)
      expect(crawl?.sweep).toEqual({ due: 0, woken: 0 })
    } finally {
      const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 })
      await redis.connect()
      const keys = await redis.keys(`${prefix}*`)
      if (keys.length > 0) await redis.unlink(...keys)
      redis.disconnect()
    }
  })

  it("has a SAM template whose handlers the bundle exports and whose references resolve", async () => {
    const template = parse(await readFile(TEMPLATE, "utf8"), { customTags: cloudFormationTags }) as Template
    const globals = template.Globals.Function
    expect(globals.CodeUri).toBe("dist/")
    expect(globals.Runtime).toBe("nodejs20.x")

    const functions = Object.entries(template.Resources).filter(
      ([, resource]) => resource.Type === "AWS::Serverless::Function",
    )
    const handlers = Object.fromEntries(functions.map(([name, resource]) => [name, resource.Properties.Handler]))
    expect(handlers).toEqual({
      ApiFunction: "index.handler",
      ApiStreamingFunction: "index.streamingHandler",
      WorkerFunction: "index.workHandler",
      ScheduleFunction: "index.scheduleHandler",
    })
    for (const handler of Object.values(handlers)) {
      const [file, name] = String(handler).split(".")
      expect(file).toBe("index")
      expect(report.exports).toContain(name)
    }

    // Every function sends to the queue (jobs, continuations, fan-out, the sweep's wake-ups).
    for (const [name, resource] of functions)
      expect(JSON.stringify(resource.Properties.Policies), name).toContain(
        '"SQSSendMessagePolicy":{"QueueName":{"Fn::GetAtt":"WorkQueue.QueueName"}}',
      )
    const worker = template.Resources.WorkerFunction!.Properties
    const work = (worker.Events as Record<string, { Type: string; Properties: Properties }>).Work!
    expect(work.Type).toBe("SQS")
    expect(work.Properties.FunctionResponseTypes).toEqual(["ReportBatchItemFailures"])
    const queue = template.Resources.WorkQueue!.Properties
    expect(Number(queue.VisibilityTimeout)).toBeGreaterThanOrEqual(6 * Number(worker.Timeout))
    expect((queue.RedrivePolicy as Properties).maxReceiveCount).toBe(5)
    const streaming = template.Resources.ApiStreamingFunction!.Properties
    expect(streaming.FunctionUrlConfig).toEqual({ AuthType: "NONE", InvokeMode: "RESPONSE_STREAM" })

    // References: parameters, resources, pseudo parameters, and what SAM generates (the HTTP API, function URLs).
    const { names, conditions } = referencesOf(template as unknown as Json)
    const generated = [
      "ServerlessHttpApi",
      ...functions
        .filter(([, resource]) => resource.Properties.FunctionUrlConfig !== undefined)
        .map(([name]) => `${name}Url`),
    ]
    const known = new Set([
      ...Object.keys(template.Parameters),
      ...Object.keys(template.Resources),
      ...["AWS::Region", "AWS::URLSuffix", "AWS::NoValue", "AWS::AccountId", "AWS::StackName", "AWS::Partition"],
      ...generated,
    ])
    expect([...names].filter((name) => !known.has(name))).toEqual([])
    expect([...conditions].filter((name) => !(name in template.Conditions))).toEqual([])
  })
})
