/** Entry of a content thread (`DocumentBuilder.layerThreads`): builds documents for the thread that sent the pages. */
import { parentPort, workerData } from "node:worker_threads"
import { buildDocument } from "./BuildDocument.js"
import type { BuildReply, BuildRequest } from "./DocumentBuilder.js"
import { isWithdrawn } from "./WithdrawnPages.js"

const port = parentPort
if (port === null) throw new Error("DocumentWorker runs as a worker thread")

const withdrawn = new Int32Array((workerData as { readonly withdrawn: SharedArrayBuffer }).withdrawn)

port.on("message", (request: BuildRequest) => {
  // Nobody waits for it: answered at once, unbuilt.
  if (isWithdrawn(withdrawn, request.id)) return void port.postMessage({ id: request.id, error: "withdrawn" })
  let reply: BuildReply
  try {
    reply = {
      id: request.id,
      document: buildDocument(request.options, request.page, request.provenance, request.extras),
    }
  } catch (error) {
    reply = { id: request.id, error: error instanceof Error ? error.message : String(error) }
  }
  port.postMessage(reply)
})
