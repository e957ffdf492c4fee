/**
 * The load benchmark's fixture site, a process of its own: `/article`, the overhead benchmark's ~96 KB text-dense
 * article, and `/tiny`, a 50-byte page; prints `listening on <url>` and serves until SIGTERM.
 */
import { createServer } from "node:http"
import { articlePage, TINY_PAGE } from "../lambda/site.mjs"

const pages = { "/article": Buffer.from(articlePage()), "/tiny": Buffer.from(TINY_PAGE) }
const server = createServer((req, res) => {
  const page = pages[new URL(req.url, "http://site").pathname]
  res.writeHead(page === undefined ? 404 : 200, { "content-type": "text/html; charset=utf-8" })
  res.end(page ?? "")
})
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
console.log(`listening on http://127.0.0.1:${server.address().port}`)
process.once("SIGTERM", () => server.close(() => process.exit(0)))
