/**
 * The framework-free floor of the server benchmarks: a bare `node:http` server doing a request's essential work with
 * nothing around it. `POST` (any path): reads the JSON body's `url`, fetches the page with `fetch`, runs the same
 * content pipeline as the API (`@webdata/core/content`) and answers the document as JSON; no validation, URL guard,
 * limits, cache or store. `GET` (any path): answers `statusBody`, a crawl status of the size the API's would be,
 * with no store behind it.
 *
 * Run as a script with BENCH_FLOOR_SERVER=1 (the benchmarks' `floor-process` lanes), it serves until SIGTERM and prints
 * `listening on <url>`; STATUS_BODY_BYTES sizes its status answer.
 */
import { createServer } from "node:http"
import { extractHtml } from "@webdata/core/content"

const formats = { markdown: true, html: false, links: false, images: false }

export const startFloor = async (statusBody = '{"success":true,"status":"completed","data":[]}') => {
  const server = createServer(async (req, res) => {
    if (req.method === "GET") {
      res.writeHead(200, { "content-type": "application/json" })
      return void res.end(statusBody)
    }
    const chunks = []
    for await (const chunk of req) chunks.push(chunk)
    const { url } = JSON.parse(Buffer.concat(chunks).toString("utf8"))
    const response = await fetch(url)
    const html = await response.text()
    const { markdown, metadata } = extractHtml(html, {
      url,
      onlyMainContent: true,
      includeTags: [],
      excludeTags: [],
      removeBase64Images: true,
      formats,
    })
    const document = { markdown, metadata: { ...metadata, sourceURL: url, url, statusCode: response.status } }
    res.writeHead(200, { "content-type": "application/json" })
    res.end(JSON.stringify({ success: true, data: document }))
  })
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => server.close(resolve)),
  }
}

if (process.env.BENCH_FLOOR_SERVER === "1") {
  const size = Number(process.env.STATUS_BODY_BYTES ?? 0)
  const floor = await startFloor(
    size > 0 ? JSON.stringify({ success: true, status: "completed", data: ["x".repeat(size)] }) : undefined,
  )
  console.log(`listening on ${floor.url}`)
  await new Promise((resolve) => process.once("SIGTERM", resolve))
  await floor.close()
  process.exit(0)
}
