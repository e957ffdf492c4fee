/**
 * A fresh Lambda container, played by a plain `node` process: imports the bundle (`node probe.mjs <dir>/index.js`),
 * then invokes its handlers as Lambda's runtime would, and prints one line `PROBE <json>` with what happened.
 *
 * - `PROBE_SCRAPE=<url>,<url>…`: a `POST /v2/scrape` of each (`maxAge: 0`) through `handler`, with an HTTP API
 *   (payload 2.0) event; the first one builds the engine.
 * - `PROBE_CRAWL=<url>`: a crawl through the deployment's whole job path, on the shared store `WEBDATA_STORE` names:
 *   `POST /v2/crawl` through `handler`, whose message reaches a fake SQS queue served here (SendMessageBatch, the
 *   messages kept); each batch of messages then invokes `workHandler` as the event source mapping would, and
 *   `scheduleHandler` runs once at the end; `GET /v2/crawl/{id}` through `handler` reads the result.
 *
 * Times: `bootMs` (the process's start to this module running: Node's own start-up), `importMs` (the bundle's
 * `import()`: Lambda's module initialisation), and each invocation's.
 */
import { createServer } from "node:http"
import { pathToFileURL } from "node:url"
import { httpApiEvent, lambdaContext, scheduledEvent, sqsEvent } from "./events.mjs"

const bootMs = performance.now()
const bundle = process.argv[2]
if (bundle === undefined) throw new Error("usage: node probe.mjs <bundle>/index.js")
const report = { bootMs }

/** SQS's SendMessageBatch on 127.0.0.1: keeps the messages (delays ignored) and whether requests were signed. */
const startFakeSqs = async () => {
  const messages = []
  let requests = 0
  let signed = 0
  const server = createServer((request, response) => {
    const chunks = []
    request.on("data", (chunk) => chunks.push(chunk))
    request.on("end", () => {
      requests++
      if (String(request.headers.authorization ?? "").startsWith("AWS4-HMAC-SHA256 ")) signed++
      const { Entries = [] } = JSON.parse(Buffer.concat(chunks).toString("utf8"))
      for (const entry of Entries) messages.push(entry.MessageBody)
      response.writeHead(200, { "content-type": "application/x-amz-json-1.0" })
      response.end(
        JSON.stringify({
          Successful: Entries.map((entry) => ({
            Id: entry.Id,
            MessageId: `m-${messages.length}`,
            MD5OfMessageBody: "",
          })),
          Failed: [],
        }),
      )
    })
  })
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    queueUrl: `http://127.0.0.1:${server.address().port}/123456789012/webdata-work`,
    take: () => messages.splice(0),
    stats: () => ({ requests, signed }),
    close: () => server.close(),
  }
}

const crawlUrl = process.env.PROBE_CRAWL
const sqs = crawlUrl !== undefined ? await startFakeSqs() : undefined
if (sqs !== undefined) {
  // What Lambda gives a function with a role; the fake queue does not check the signature.
  process.env.WEBDATA_WORK_QUEUE_URL = sqs.queueUrl
  process.env.AWS_REGION ??= "us-east-1"
  process.env.AWS_ACCESS_KEY_ID ??= "AKIDPROBE"
  process.env.AWS_SECRET_ACCESS_KEY ??= "probe-secret"
  process.env.AWS_SESSION_TOKEN ??= "probe-session"
}

const importStarted = performance.now()
const lambda = await import(pathToFileURL(bundle).href)
report.importMs = performance.now() - importStarted
report.exports = Object.keys(lambda).sort()

/** The start and end of a markdown (the report stays small), and its length. */
const excerpt = (markdown) =>
  typeof markdown === "string"
    ? { markdownLength: markdown.length, markdownHead: markdown.slice(0, 300), markdownTail: markdown.slice(-300) }
    : { markdownLength: undefined }

const invoke = async (event) => {
  const started = performance.now()
  const result = await lambda.handler(event, lambdaContext())
  const ms = performance.now() - started
  let body
  try {
    body = JSON.parse(result.body)
  } catch {
    body = result.body
  }
  return { ms, statusCode: result.statusCode, body }
}

report.scrapes = []
for (const url of (process.env.PROBE_SCRAPE ?? "").split(",").filter((each) => each !== "")) {
  const { ms, statusCode, body } = await invoke(
    httpApiEvent("POST", "/v2/scrape", { url, formats: ["markdown"], maxAge: 0 }),
  )
  report.scrapes.push({
    url,
    ms,
    statusCode,
    success: body?.success,
    ...excerpt(body?.data?.markdown),
    ...(body?.success !== true ? { error: body } : {}),
  })
}

if (crawlUrl !== undefined && sqs !== undefined) {
  const started = await invoke(
    httpApiEvent("POST", "/v2/crawl", { url: crawlUrl, limit: 10, scrapeOptions: { formats: ["markdown"] } }),
  )
  const crawl = { start: { statusCode: started.statusCode, body: started.body }, workerInvocations: 0, failures: [] }
  report.crawl = crawl
  const id = started.body?.id
  const deadline = Date.now() + 30_000
  while (id !== undefined && Date.now() < deadline) {
    const messages = sqs.take()
    if (messages.length > 0) {
      // The event source mapping's batches of at most 10.
      for (let i = 0; i < messages.length; i += 10) {
        const answer = await lambda.workHandler(sqsEvent(messages.slice(i, i + 10)), lambdaContext(60_000))
        crawl.workerInvocations++
        crawl.failures.push(...answer.batchItemFailures)
      }
    }
    const status = await invoke(httpApiEvent("GET", `/v2/crawl/${id}`))
    crawl.status = status.body?.status
    crawl.completed = status.body?.completed
    crawl.total = status.body?.total
    crawl.documents = (status.body?.data ?? []).map((document) => ({
      url: document.metadata?.sourceURL,
      ...excerpt(document.markdown),
    }))
    if (crawl.status === "completed" || crawl.status === "failed") break
    if (messages.length === 0) await new Promise((resolve) => setTimeout(resolve, 200))
  }
  crawl.sweep = await lambda.scheduleHandler(scheduledEvent(), lambdaContext(60_000))
  crawl.sqs = sqs.stats()
  sqs.close()
}

await Promise.all([lambda.handler, lambda.workHandler, lambda.scheduleHandler].map((ready) => ready.dispose()))
// A pipe's writes are asynchronous: exit once the line is out.
process.stdout.write(`PROBE ${JSON.stringify(report)}\n`, () => process.exit(0))
