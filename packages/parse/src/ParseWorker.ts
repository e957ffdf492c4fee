/** Entry of a parse thread (`ParseThreads.ts`): parses one file at a time for the thread that sent it. */
import { parentPort } from "node:worker_threads"
import { FileFailure } from "./Failures.js"
import type { ParseReply } from "./ParseThreads.js"
import { type ParseJob, parseFile } from "./parseFile.js"

const port = parentPort
if (port === null) throw new Error("ParseWorker runs as a worker thread")

port.on("message", async (request: ParseJob & { readonly id: number }) => {
  let reply: ParseReply
  try {
    reply = { id: request.id, parsed: await parseFile(request) }
  } catch (error) {
    reply = {
      id: request.id,
      failure:
        error instanceof FileFailure
          ? { reason: error.reason, message: error.message }
          : // A library's own error on a file it could not read is the file's problem, not the server's.
            { reason: "ParseFailed", message: error instanceof Error ? error.message : String(error) },
    }
  }
  port.postMessage(reply)
})
