/**
 * OCR of PDF pages with tesseract.js and the English model from `@tesseract.js-data/eng`, both installed from npm:
 * nothing is downloaded at run time (the language path is the package's folder, the engine is tesseract.js-core's
 * WebAssembly in node_modules). Pages are rendered by pdf.js onto `@napi-rs/canvas` at about 300 DPI, capped so a
 * huge page cannot take the thread's memory. One recognizer per thread, made on first need.
 */
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { renderPageAsImage } from "unpdf"
import "./pdf/NodeCompat.js"
import { escapeHtml } from "../Xml.js"

type Recognizer = Awaited<ReturnType<typeof import("tesseract.js")["createWorker"]>>

/** The largest bitmap side rendered for OCR, in pixels. */
const MAX_SIDE = 4000

let recognizer: Promise<Recognizer> | undefined

/**
 * pdf.js draws paths with the global `Path2D` (and `DOMMatrix`, `ImageData`), which Node lacks: without the canvas
 * package's own (another library's polyfill will not do), a page with vector paths throws from inside pdf.js's render
 * loop, out of reach of any await. Parsing runs on threads of its own, so these globals are the thread's.
 */
const canvasModule = () =>
  import("@napi-rs/canvas").then((canvas) => {
    const globals = globalThis as Record<string, unknown>
    globals.Path2D = canvas.Path2D
    globals.DOMMatrix = canvas.DOMMatrix
    globals.ImageData = canvas.ImageData
    return canvas
  })

const languagePath = () =>
  join(dirname(createRequire(import.meta.url).resolve("@tesseract.js-data/eng/package.json")), "4.0.0_best_int")

const recognizerOf = (): Promise<Recognizer> => {
  recognizer ??= import("tesseract.js").then(({ createWorker }) =>
    createWorker("eng", 1, { langPath: languagePath(), gzip: true, cacheMethod: "none" }),
  )
  return recognizer
}

/** A PDF page's text by OCR, as paragraphs of HTML. */
export const ocrPage = async (
  document: Parameters<typeof renderPageAsImage>[0],
  pageNumber: number,
): Promise<string> => {
  const page = await (document as { getPage: (n: number) => Promise<{ view: Array<number> }> }).getPage(pageNumber)
  const [, , width = 612, height = 792] = page.view
  const scale = Math.min(300 / 72, MAX_SIDE / Math.max(width, height))
  const image = await renderPageAsImage(document, pageNumber, { canvasImport: canvasModule, scale })
  const worker = await recognizerOf()
  const { data } = await worker.recognize(Buffer.from(image))
  return data.text
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.replace(/\s*\n\s*/g, " ").trim())
    .filter((paragraph) => paragraph !== "")
    .map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`)
    .join("\n")
}
