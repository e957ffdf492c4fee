/**
 * Your Express app with the webdata API under `/firecrawl` (keys `secret-1`, `secret-2`), jobs on SQLite and a
 * worker in the same process: `npm start -w @webdata/example-express-server`, then point the Firecrawl SDK at
 * `http://127.0.0.1:3000/firecrawl` with one of the keys. For the API alone, configured from the environment, run
 * `@webdata/server` (`npm start` at the root) instead.
 */
import { attachCrawlWatcher, webdataErrorHandler, webdataRouter } from "@webdata/adapter-express"
import { SqliteJobStore } from "@webdata/store-sqlite"
import express from "express"

const app = express()
app.get("/", (_req, res) => {
  res.send("My app. The web data API is under /firecrawl.")
})
app.use(express.json({ limit: "10mb" }))
const router = webdataRouter({
  apiKeys: ["secret-1", "secret-2"],
  engineOptions: {
    store: SqliteJobStore.layer({ filename: ".webdata/webdata.db" }) /* git ignores .webdata/ */,
    contentThreads: 1,
  },
})
app.use("/firecrawl", router)
app.use(webdataErrorHandler)

const server = app.listen(3000, "127.0.0.1", () => console.log("listening on http://127.0.0.1:3000"))
attachCrawlWatcher(server, router, { prefix: "/firecrawl" })
const stop = () => server.close(() => void router.dispose().then(() => process.exit(0)))
process.once("SIGINT", stop)
process.once("SIGTERM", stop)
