/**
 * The README's TypeScript examples, as files a fresh project compiles and runs. Only what a local test needs is
 * changed: the example sites become the local fixture site, the engines may fetch it (it is on loopback), and the
 * Express example listens on a free port, asks for one scrape and exits.
 */
import { readFile } from "node:fs/promises"

/** The ```ts blocks under a `### heading`, up to the next heading. */
const blocksUnder = (markdown: string, heading: string): Array<string> => {
  const start = markdown.indexOf(`\n### ${heading}\n`)
  if (start < 0) throw new Error(`README.md has no "### ${heading}" section`)
  const rest = markdown.slice(start + heading.length + 6)
  const section = rest.slice(0, rest.search(/\n#{2,3} /) === -1 ? undefined : rest.search(/\n#{2,3} /))
  const blocks = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] ?? "")
  if (blocks.length === 0) throw new Error(`README.md's "${heading}" section has no ts example`)
  return blocks
}

const replaceOnce = (source: string, from: string | RegExp, to: string): string => {
  const replaced = source.replace(from, to)
  if (replaced === source) throw new Error(`README example changed: "${String(from)}" not found in\n${source}`)
  return replaced
}

const localSite = (source: string, site: string) => source.replace(/https:\/\/(docs\.)?example\.com/g, site)

/** `new Webdata()` / `new Webdata({ … })` and `Engine.layer()` with the loopback opt-in. */
const allowLoopback = (source: string) =>
  source
    .replace(
      /new Webdata\((\{ |\))/g,
      (_, next) => `new Webdata({ allowPrivateAddresses: true${next === ")" ? " })" : ", "}`,
    )
    .replaceAll("Engine.layer()", "Engine.layer({ allowPrivateAddresses: true })")

export const readmeSnippets = async (
  readmePath: string,
  site: string,
  port: number,
): Promise<
  Record<
    "promise" | "promiseJobs" | "effect" | "browser" | "files" | "structured" | "agent" | "express" | "lambda",
    string
  >
> => {
  const readme = await readFile(readmePath, "utf8")
  const [promise, promiseJobs] = blocksUnder(readme, "In an app (Promises)")
  const [effect] = blocksUnder(readme, "In an app (Effect)")
  const [browser] = blocksUnder(readme, "A browser session")
  const [files] = blocksUnder(readme, "Files")
  const [structured, agent] = blocksUnder(readme, "Structured data, extract and agents")
  const [express] = blocksUnder(readme, "Express")
  const [lambda] = blocksUnder(readme, "AWS Lambda")
  if (
    promise === undefined ||
    promiseJobs === undefined ||
    effect === undefined ||
    browser === undefined ||
    files === undefined ||
    structured === undefined ||
    agent === undefined ||
    express === undefined ||
    lambda === undefined
  )
    throw new Error("README.md lost one of its examples")
  const expressServer = replaceOnce(
    replaceOnce(
      localSite(express, site),
      "webdataRouter({ ",
      "webdataRouter({ engineOptions: { allowPrivateAddresses: true }, ",
    ),
    /app\.listen\(\d+\)/,
    `app.listen(${port}, "127.0.0.1")`,
  )
  const lambdaHandler = replaceOnce(lambda, "Engine.layer({ ", "Engine.layer({ allowPrivateAddresses: true, ")
  return {
    promise: allowLoopback(localSite(promise, site)),
    promiseJobs: allowLoopback(localSite(promiseJobs, site)),
    effect: allowLoopback(localSite(effect, site)),
    browser: allowLoopback(localSite(browser, site)),
    files,
    structured: allowLoopback(localSite(structured, site)),
    // Compiled only: it needs a model.
    agent,
    express: `${expressServer}
server.once("listening", async () => {
  const response = await fetch("http://127.0.0.1:${port}/firecrawl/v2/scrape", {
    method: "POST",
    headers: { authorization: "Bearer secret", "content-type": "application/json" },
    body: JSON.stringify({ url: "${site}/article", formats: ["markdown"] }),
  })
  console.log(JSON.stringify(await response.json()))
  server.close()
  await router.dispose()
  process.exit(0)
})
`,
    // An HTTP API (payload 2.0) event, as API Gateway sends it.
    lambda: `${lambdaHandler}
const result = await handler({
  version: "2.0",
  rawPath: "/v2/scrape",
  rawQueryString: "",
  headers: { host: "abc123.execute-api.us-east-1.amazonaws.com", "content-type": "application/json" },
  requestContext: { http: { method: "POST" }, stage: "$default", domainName: "abc123.execute-api.us-east-1.amazonaws.com" },
  body: JSON.stringify({ url: "${site}/article", formats: ["markdown"] }),
  isBase64Encoded: false,
})
const crawl = await handler({
  version: "2.0",
  rawPath: "/v2/crawl",
  headers: { host: "abc123.execute-api.us-east-1.amazonaws.com", "content-type": "application/json" },
  requestContext: { http: { method: "POST" }, stage: "$default" },
  body: JSON.stringify({ url: "${site}" }),
})
console.log(JSON.stringify({ scrape: JSON.parse(result.body), crawl: { status: crawl.statusCode, ...JSON.parse(crawl.body) } }))
await handler.dispose()
`,
  }
}
