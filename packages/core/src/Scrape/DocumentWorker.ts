/** Entry of a content thread (`DocumentBuilder.layerThreads`): builds documents for the thread that sent the pages. */
import { parentPort } from "node:worker_threads"
import { buildDocument } from "./BuildDocument.js"
import type { BuildReply, BuildRequest } from "./DocumentBuilder.js"

const port = parentPort
if (port === null) throw new Error("DocumentWorker runs as a worker thread")

port.on("message", (request: BuildRequest) => {
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
