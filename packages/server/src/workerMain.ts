#!/usr/bin/env node
/**
 * The `webdata-worker` binary: a worker process without HTTP, next to API processes (`webdata-server` with
 * WEBDATA_WORKER=0) on one durable store, configured from the environment.
 */
import { checkEnvironment } from "./checkEnvironment.js"
import { enginesLine } from "./engine.js"
import { closeOnSignal } from "./signals.js"
import { runWorker } from "./worker.js"

checkEnvironment()
const worker = await runWorker().catch((error: unknown) => {
  console.error(`webdata: cannot start the worker: ${(error as Error).message}`)
  process.exit(1)
})
// Before the lines that say it runs: whoever reads them may signal it at once.
closeOnSignal(worker.close)
console.log(`webdata worker running on ${worker.store}`)
console.log(enginesLine())
