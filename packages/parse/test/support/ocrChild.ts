/** Reads `fixtures/pdf/scanned.pdf` by OCR and prints the text (run under `noNetwork.mjs` by the OCR test). */
import { parsePdf } from "../../src/formats/Pdf.js"
import { fixture } from "./fixtures.js"
import { markdownOf } from "./markdownOf.js"

// The guard is in place: a fetch (to loopback, never reached) is refused before it starts.
const guarded = await fetch("http://127.0.0.1:9/").then(
  () => false,
  (error: Error) => error.message.startsWith("network refused"),
)
const parsed = await parsePdf(fixture("pdf/scanned.pdf"), { mode: "auto" })
process.stdout.write(`${JSON.stringify({ guarded, ocrPages: parsed.ocrPages, markdown: markdownOf(parsed) })}\n`)
process.exit(0)
