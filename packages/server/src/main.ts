#!/usr/bin/env node
/**
 * `npm start` and the `webdata-server` binary: the API, the crawl watcher and the session sockets on PORT/HOST, with a
 * worker unless WEBDATA_WORKER=0 (the API processes of a deployment whose workers run apart), configured from the
 * environment.
 */
import { checkEnvironment } from "./checkEnvironment.js"
import { enginesLine } from "./engine.js"
import { serve } from "./serve.js"
import { closeOnSignal } from "./signals.js"

checkEnvironment()
const port = Number(process.env.PORT ?? 3002)
const host = process.env.HOST ?? "127.0.0.1"

const running = await serve({ port, host }).catch((error: unknown) => {
  console.error(`webdata: cannot start the server on ${host}:${port}: ${(error as Error).message}`)
  process.exit(1)
})
// Before the lines that say it runs: whoever reads them may signal it at once.
closeOnSignal(running.close)
console.log(`webdata API listening on ${running.url}`)
console.log(enginesLine())
