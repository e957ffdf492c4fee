/** `npm start`: the API (and, from the jobs issue on, a worker) on PORT/HOST, configured from the environment. */
import { findChromium } from "@webdata/browser"
import { serve } from "./serve.js"

const port = Number(process.env.PORT ?? 3002)
const host = process.env.HOST ?? "127.0.0.1"

const running = await serve({ port, host }).catch((error: unknown) => {
  console.error(`webdata: cannot start the server on ${host}:${port}: ${(error as Error).message}`)
  process.exit(1)
})
console.log(`webdata API listening on ${running.url}`)
const chromium = findChromium()
console.log(
  chromium !== undefined
    ? `engines: http, browser (Chromium at ${chromium})`
    : "engines: http only; no Chromium found (set CHROMIUM_PATH or install chromium): waitFor answers 400",
)

const shutdown = () => {
  running.close().then(
    () => process.exit(0),
    () => process.exit(1),
  )
}
process.once("SIGINT", shutdown)
process.once("SIGTERM", shutdown)
