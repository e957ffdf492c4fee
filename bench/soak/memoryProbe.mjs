/**
 * Preloaded into the soaked server (`node --expose-gc --import ./memoryProbe.mjs ...`): a line `measure` on stdin
 * answers `memory <json>` on stdout after two full collections, `sample` answers at once. The server itself is not
 * changed for the benchmark.
 */
import { createInterface } from "node:readline"

const report = () => {
  const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage()
  process.stdout.write(`memory ${JSON.stringify({ rss, heapUsed, heapTotal, external, arrayBuffers })}\n`)
}

// Not the server's stdin otherwise: let the process exit when the server stops, whatever the pipe does.
const lines = createInterface({ input: process.stdin })
process.stdin.unref()
lines.on("line", (line) => {
  if (line === "sample") return report()
  if (line !== "measure") return
  globalThis.gc?.()
  // A second pass after the finalizers and weak callbacks the first one queued.
  setTimeout(() => {
    globalThis.gc?.()
    report()
  }, 200)
})
